/** The id of a release's card on the Releases page: versions hold dots (and pre-release parts), ids only safe characters. */
export function releaseAnchor(version: string): string {
  return `release-${version.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}
