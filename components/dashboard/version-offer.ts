/**
 * What a person meant by "v1.0.0" or "V2.1.0-beta.1" typed as a release version: the version without the "v" (the
 * release operation refuses the "v" and says so; the release form offers this in the field). Null for anything else.
 */
export function versionWithoutV(input: string): string | null {
  const m = /^v((?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)$/i.exec(input.trim());
  return m?.[1] ?? null;
}
