import semver from "semver";
import type { Artifact } from "../generated/sqlite/client.ts";
import { entitledReleases, updatesUntil } from "../releases/entitlement.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { FILE_TYPE_PREFERENCE, PLUGIN_FORMATS, type Channel, type FileType, type Platform, type PluginFormat } from "../releases/platforms.ts";
import { publishedReleases, type ReleaseWithArtifacts } from "../releases/read.ts";
import type { LicensedMachine } from "./access.ts";

/**
 * Which release and artifact an update answers with. One place for the JSON update check, its download, the feeds
 * and the buyer's download page, so they always agree:
 *
 * - channel: "stable" sees stable releases only; "beta" sees beta and stable ones, and the newest wins.
 * - entitlement: lib/releases/entitlement.ts, from the product's update policy and the license's issue date.
 * - platform: the exact platform first; an Apple silicon or Intel Mac falls back to a macOS universal build.
 * - format: an audio plugin's format when asked for; otherwise the application build ("" format), else the first
 *   plugin format the release has (VST3, AU, AAX, CLAP order).
 * - file type: a release may hold several files for one platform and format (a .dmg to install, a .zip to update
 *   from): the one the app names (`file_type`), else the first by FILE_TYPE_PREFERENCE for the platform's system.
 */

export interface Wanted {
  platform: Platform;
  format?: PluginFormat | null;
  fileType?: FileType | null;
  channel: Channel;
}

/** Platforms whose builds also serve `platform`, best first. */
function platformCandidates(platform: Platform): Platform[] {
  return platform === "macos-arm64" || platform === "macos-x64" ? [platform, "macos-universal"] : [platform];
}

/** Of several files of one platform and format, the one named, else the preferred type for the platform's system. */
function byFileType(files: Artifact[], platform: Platform, fileType?: FileType | null): Artifact | undefined {
  if (fileType) return files.find((a) => a.fileType === fileType);
  const order: readonly string[] = FILE_TYPE_PREFERENCE[platform.split("-")[0] as keyof typeof FILE_TYPE_PREFERENCE];
  const rank = (a: Artifact) => (order.includes(a.fileType) ? order.indexOf(a.fileType) : order.length);
  return [...files].sort((a, b) => rank(a) - rank(b))[0];
}

/** The artifact of `release` for a platform, format and file type (see above), or undefined. */
export function artifactFor(
  release: { artifacts: Artifact[] },
  platform: Platform,
  format?: PluginFormat | null,
  fileType?: FileType | null,
): Artifact | undefined {
  for (const p of platformCandidates(platform)) {
    const here = release.artifacts.filter((a) => a.platform === p);
    for (const f of format ? [format] : ["", ...PLUGIN_FORMATS]) {
      const hit = byFileType(
        here.filter((a) => a.format === f),
        p,
        fileType,
      );
      if (hit) return hit;
    }
  }
  return undefined;
}

export const channelSees = (channel: Channel, release: { channel: string }) => channel === "beta" || release.channel === "stable";

/** What one license may have, computed once per call. */
export interface Entitlement {
  /** Published releases of the product, newest first. */
  all: ReleaseWithArtifacts[];
  /** Of those, the ones the license is entitled to, newest first. */
  entitled: ReleaseWithArtifacts[];
  updatesUntil: Date | null;
  /** Where the license's updates are renewed, for an updates plan's product; null otherwise. */
  renewUrl: string | null;
}

export async function entitlementOf(who: Pick<LicensedMachine, "license" | "product">): Promise<Entitlement> {
  const all = await publishedReleases(who.product.id);
  return {
    all,
    entitled: entitledReleases(who.product, who.license, all),
    updatesUntil: updatesUntil(who.product, who.license),
    renewUrl: who.product.pricingModel === "updates_plan" ? absoluteUrl(paths.checkout(who.product.id)) : null,
  };
}

/**
 * The newest entitled release (on the channel) with a build for the platform and format, and the newest release that
 * is newer but outside the entitlement (an upgrade the license does not cover), by version.
 */
export function pick(ent: Entitlement, wanted: Wanted): { release: ReleaseWithArtifacts; artifact: Artifact } | { release: null; artifact: null } {
  for (const release of ent.entitled) {
    if (!channelSees(wanted.channel, release)) continue;
    const artifact = artifactFor(release, wanted.platform, wanted.format, wanted.fileType);
    if (artifact) return { release, artifact };
  }
  return { release: null, artifact: null };
}

/** The newest release on the channel, with a build for the platform, newer than `than` and not entitled. */
export function newerNotEntitled(ent: Entitlement, wanted: Wanted, than: string | null): string | null {
  const entitled = new Set(ent.entitled.map((r) => r.id));
  for (const release of ent.all) {
    if (entitled.has(release.id) || !channelSees(wanted.channel, release)) continue;
    if (than !== null && !semver.gt(release.version, than)) continue;
    if (artifactFor(release, wanted.platform, wanted.format, wanted.fileType)) return release.version;
  }
  return null;
}
