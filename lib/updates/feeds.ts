import { stringify } from "yaml";
import { z } from "zod";
import type { Artifact } from "../generated/sqlite/client.ts";
import { AppError } from "../http/errors.ts";
import { renderNotes } from "../releases/notes.ts";
import { FILE_TYPE_PREFERENCE, isPlatform, type Channel, type Platform } from "../releases/platforms.ts";
import type { ReleaseWithArtifacts } from "../releases/read.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { checkActivation, recordSeen, type LicensedMachine } from "./access.ts";
import { appVersionSchema, blockmapUrl, signedArtifactUrl, entitledArtifact } from "./check.ts";
import { activationOfToken, feedArtifactUrl } from "./feed-token.ts";
import { artifactFor, channelSees, entitlementOf, type Entitlement } from "./select.ts";

/**
 * The update feeds real updaters read, each exactly in its updater's format, for one machine (the capability token in
 * the path, lib/updates/feed-token.ts), listing only the releases its license is entitled to:
 *
 * - electron-updater's generic provider: latest.yml (Windows), latest-mac.yml (macOS, the .zip builds Squirrel.Mac
 *   installs), latest-linux.yml and latest-linux-arm64.yml (AppImage); beta.yml, beta-mac.yml, beta-linux.yml and
 *   beta-linux-arm64.yml for the beta channel.
 * - Sparkle 2: appcast.xml, an RSS 2.0 appcast with one item per entitled macOS release (beta ones tagged with
 *   sparkle:channel), each enclosure carrying `length` and `sparkle:edSignature` (Ed25519 over the file).
 * - Tauri v2: tauri.json, the static JSON of the newest entitled release with a minisign `signature` per platform
 *   (the builds Tauri can install: .app.tar.gz on macOS, .exe/.msi on Windows, AppImage on Linux).
 *
 * Feeds list application builds only (artifacts without a plugin format). Every download URL in a feed is
 * …/feeds/<token>/artifacts/<artifact id>/<platform>-<filename>: it re-checks the license and entitlement when it is
 * followed and redirects to a fresh short-lived signed URL, so a feed read long ago still downloads, and never after
 * a revocation. The last segment only names the file for updaters that look at the URL's extension and architecture
 * (electron-updater picks the ".zip" on macOS, the "arm64" build on Apple silicon).
 */

export const ELECTRON_FEED_FILES = [
  "latest.yml",
  "latest-mac.yml",
  "latest-linux.yml",
  "latest-linux-arm64.yml",
  "beta.yml",
  "beta-mac.yml",
  "beta-linux.yml",
  "beta-linux-arm64.yml",
] as const;
export type ElectronFeedFile = (typeof ELECTRON_FEED_FILES)[number];

export const feedParamsSchema = z.object({
  plugin_id: z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/)
    .describe("The product's plugin_id"),
  token: z
    .string()
    .max(100)
    .regex(/^[A-Za-z0-9._-]+$/)
    .describe("This machine's feed token (the `feeds` URLs of the update check carry it)"),
});

/**
 * A licensed machine from a feed URL: the token's MAC, then the activation and its license (throws problems). The
 * fetch counts as the machine's "last seen", with the app version when the URL carries one (`?version=`).
 */
async function feedMachine(pluginId: string, token: string, appVersion?: string): Promise<LicensedMachine & { token: string }> {
  const activationId = await activationOfToken(token);
  const m = await checkActivation(pluginId, activationId);
  await recordSeen(m, appVersion);
  return { ...m, token };
}

/** The optional query every feed takes: the app's version, recorded as the machine's (electron-updater keeps a feed URL's query; Tauri fills `{{current_version}}`). */
export const feedQuerySchema = z.object({
  version: appVersionSchema.optional().describe("The app's current version, recorded with the machine's last-seen time"),
});

const isApp = (a: Artifact) => a.format === "";
const onPlatforms = (prefix: string) => (a: Artifact) => isApp(a) && a.platform.startsWith(prefix);
const published = (r: ReleaseWithArtifacts) => r.publishedAt ?? r.createdAt;

/** The newest entitled release on `channel` with at least one artifact `accept` takes, and those artifacts. */
function newestWith(ent: Entitlement, channel: Channel, accept: (a: Artifact) => boolean) {
  for (const release of ent.entitled) {
    if (!channelSees(channel, release)) continue;
    const artifacts = release.artifacts.filter(accept);
    if (artifacts.length) return { release, artifacts };
  }
  return null;
}

function downloadUrl(m: { product: { pluginId: string }; token: string }, a: Artifact): string {
  return `${feedArtifactUrl(m.product.pluginId, m.token, a.id)}/${encodeURIComponent(`${a.platform}-${a.filename}`)}`;
}

const noRelease = () => new AppError("release_not_found", 404, "No release this license is entitled to has a build for this feed yet.");

const ELECTRON_FILES: Record<"" | "-mac" | "-linux" | "-linux-arm64", (a: Artifact) => boolean> = {
  "": onPlatforms("windows-"),
  // Squirrel.Mac installs from a zip; electron-updater refuses a feed without one.
  "-mac": (a) => onPlatforms("macos-")(a) && /\.zip$/i.test(a.filename),
  // electron-updater asks for latest-linux.yml on x64 and latest-linux-<arch>.yml elsewhere.
  "-linux": (a) => onPlatforms("linux-x64")(a) && /\.appimage$/i.test(a.filename),
  "-linux-arm64": (a) => onPlatforms("linux-arm64")(a) && /\.appimage$/i.test(a.filename),
};

/** latest.yml and its siblings (electron-builder's format, as electron-updater's generic provider reads it). */
export async function electronFeed(pluginId: string, token: string, file: ElectronFeedFile, appVersion?: string): Promise<string> {
  const m = await feedMachine(pluginId, token, appVersion);
  const [, channelName, suffix] = /^(latest|beta)(|-mac|-linux|-linux-arm64)\.yml$/.exec(file) ?? [];
  const channel: Channel = channelName === "beta" ? "beta" : "stable";
  const hit = newestWith(await entitlementOf(m), channel, ELECTRON_FILES[(suffix ?? "") as keyof typeof ELECTRON_FILES]);
  if (!hit) throw noRelease();
  // Arm builds last: electron-updater falls back to the first file when none matches the machine's architecture.
  const order = (a: Artifact) => (a.platform.endsWith("arm64") ? 1 : 0);
  const artifacts = [...hit.artifacts].sort((a, b) => order(a) - order(b));
  const files = artifacts.map((a) => ({ url: downloadUrl(m, a), sha512: a.sha512, size: a.size }));
  const [first] = files;
  if (!first) throw noRelease();
  return stringify(
    {
      version: hit.release.version,
      files,
      path: first.url,
      sha512: first.sha512,
      releaseDate: published(hit.release).toISOString(),
      ...(hit.release.notes ? { releaseNotes: hit.release.notes } : {}),
    },
    { lineWidth: 0 },
  );
}

const XML_ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** XML text and attribute escaping (the five predefined entities); control characters never reach here. */
export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ENTITIES[c] ?? c);
}

/** A CDATA section holding `text` exactly, even when it contains "]]>". */
export function cdata(text: string): string {
  return `<![CDATA[${text.replaceAll("]]>", "]]]]><![CDATA[>")}]]>`;
}

/** The build a Mac gets from a Sparkle item: universal first, then Intel (runs everywhere under Rosetta), then Apple silicon. */
const SPARKLE_ORDER: Platform[] = ["macos-universal", "macos-x64", "macos-arm64"];

/** Sparkle's appcast (RSS 2.0 with the sparkle namespace), one item per entitled macOS release, newest first. */
export async function sparkleAppcast(pluginId: string, token: string, appVersion?: string): Promise<string> {
  const m = await feedMachine(pluginId, token, appVersion);
  const ent = await entitlementOf(m);
  const items: string[] = [];
  for (const release of ent.entitled) {
    // Of several files for one platform (a .dmg and a .zip), the one FILE_TYPE_PREFERENCE puts first (the .zip).
    const apps = { artifacts: release.artifacts.filter(isApp) };
    const artifact = SPARKLE_ORDER.map((p) => artifactFor(apps, p, null)).find((a) => a !== undefined);
    if (!artifact) continue;
    const url = downloadUrl(m, artifact);
    items.push(
      [
        "    <item>",
        `      <title>${xmlEscape(`Version ${release.version}`)}</title>`,
        `      <pubDate>${published(release).toUTCString()}</pubDate>`,
        `      <sparkle:version>${xmlEscape(release.version)}</sparkle:version>`,
        `      <sparkle:shortVersionString>${xmlEscape(release.version)}</sparkle:shortVersionString>`,
        ...(release.channel === "beta" ? ["      <sparkle:channel>beta</sparkle:channel>"] : []),
        ...(artifact.platform === "macos-arm64" ? ["      <sparkle:hardwareRequirements>arm64</sparkle:hardwareRequirements>"] : []),
        `      <description>${cdata(renderNotes(release.notes))}</description>`,
        `      <enclosure url="${xmlEscape(url)}" length="${artifact.size}" type="application/octet-stream" sparkle:edSignature="${xmlEscape(artifact.signature)}"/>`,
        "    </item>",
      ].join("\n"),
    );
  }
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<rss version="2.0" xmlns:sparkle="http://www.andymatuschak.org/xml-namespaces/sparkle" xmlns:dc="http://purl.org/dc/elements/1.1/">',
    "  <channel>",
    `    <title>${xmlEscape(`${m.product.name} updates`)}</title>`,
    `    <link>${xmlEscape(absoluteUrl(paths.product(m.product.id)))}</link>`,
    `    <description>${xmlEscape(`Releases of ${m.product.name} this license is entitled to.`)}</description>`,
    "    <language>en</language>",
    ...items,
    "  </channel>",
    "</rss>",
    "",
  ].join("\n");
}

/** Tauri's platform keys ({os}-{arch}) for our platforms; a universal macOS build serves both Mac architectures. */
const TAURI_KEYS: Record<Platform, string[]> = {
  "windows-x64": ["windows-x86_64"],
  "windows-arm64": ["windows-aarch64"],
  "macos-universal": ["darwin-aarch64", "darwin-x86_64"],
  "macos-arm64": ["darwin-aarch64"],
  "macos-x64": ["darwin-x86_64"],
  "linux-x64": ["linux-x86_64"],
  "linux-arm64": ["linux-aarch64"],
};

/**
 * What Tauri's updater can install, by operating system: on macOS the .app bundle as .tar.gz (what
 * `createUpdaterArtifacts` makes), on Windows the NSIS .exe or the .msi (or their v1-style .zip), on Linux the
 * AppImage (or its v1-style .tar.gz). Other builds (a .dmg, a .deb) are left out of the JSON.
 */
const TAURI_FILES: Record<string, RegExp> = {
  macos: /\.(tar\.gz|tgz)$/i,
  windows: /\.(exe|msi|zip)$/i,
  linux: /\.(appimage|tar\.gz|tgz)$/i,
};
const tauriInstallable = (a: Artifact) => isApp(a) && (TAURI_FILES[a.platform.split("-")[0] ?? ""]?.test(a.filename) ?? false);

export const tauriFeedSchema = z.object({
  version: z.string(),
  notes: z.string(),
  pub_date: z.string(),
  platforms: z.record(z.string(), z.object({ signature: z.string(), url: z.string() })),
});
export type TauriFeed = z.infer<typeof tauriFeedSchema>;

/** Tauri v2's static update JSON: the newest entitled release (on `channel`) with a build, one entry per platform key. */
export async function tauriFeed(pluginId: string, token: string, channel: Channel = "stable", appVersion?: string): Promise<TauriFeed> {
  const m = await feedMachine(pluginId, token, appVersion);
  const hit = newestWith(await entitlementOf(m), channel, tauriInstallable);
  if (!hit) throw noRelease();
  const platforms: TauriFeed["platforms"] = {};
  // A build for the exact architecture wins over a universal one: universal first, overwritten by exact builds.
  // Of several installable files for one platform (an .exe and an .msi), the preferred type goes last and wins.
  const rank = (a: Artifact) => {
    const order: readonly string[] = FILE_TYPE_PREFERENCE[a.platform.split("-")[0] as keyof typeof FILE_TYPE_PREFERENCE];
    return order.includes(a.fileType) ? order.indexOf(a.fileType) : order.length;
  };
  const universalFirst = [...hit.artifacts].sort(
    (a, b) => Number(b.platform === "macos-universal") - Number(a.platform === "macos-universal") || rank(b) - rank(a),
  );
  for (const a of universalFirst) {
    if (!isPlatform(a.platform)) continue;
    for (const key of TAURI_KEYS[a.platform]) platforms[key] = { signature: a.minisign, url: downloadUrl(m, a) };
  }
  return {
    version: hit.release.version,
    notes: hit.release.notes,
    pub_date: published(hit.release)
      .toISOString()
      .replace(/\.\d{3}Z$/, "Z"),
    platforms,
  };
}

/** A feed's download link: the license and entitlement re-checked, then where the bytes are (a fresh signed URL). */
export async function feedArtifactLocation(pluginId: string, token: string, artifactId: string): Promise<{ location: string }> {
  const m = await feedMachine(pluginId, token);
  const artifact = await entitledArtifact(m, artifactId);
  return { location: (await signedArtifactUrl(artifact)).url };
}

const feedName = (a: Pick<Artifact, "platform" | "filename">) => `${a.platform}-${a.filename}`;
const BLOCKMAP = ".blockmap";

/**
 * A feed's download link with its file name (…/artifacts/<id>/<platform>-<filename>). The name must be the artifact's
 * own: anything else is 404 `artifact_not_found`, never the installer. electron-updater asks for the link +
 * ".blockmap" before every download, and for the same link with the old version in place of the new one +
 * ".blockmap"; had those answered the installer, it would fetch it twice per update. So:
 *
 * - `<platform>-<filename>`: the build (302 to a signed URL);
 * - `<platform>-<filename>.blockmap`: its blockmap, when the seller uploaded one (302), else 404;
 * - `<platform>-<other filename>.blockmap`: the blockmap of the entitled build of the same platform, format and type
 *   with that filename (the old version's, named as electron-updater derives it), else 404.
 */
export async function feedArtifactNamedLocation(pluginId: string, token: string, artifactId: string, name: string): Promise<{ location: string }> {
  const m = await feedMachine(pluginId, token);
  const artifact = await entitledArtifact(m, artifactId);
  if (name === feedName(artifact)) return { location: (await signedArtifactUrl(artifact)).url };
  const missing = () => new AppError("artifact_not_found", 404, `This build has no file named "${name}".`);
  if (!name.endsWith(BLOCKMAP)) throw missing();
  const wanted = name.slice(0, -BLOCKMAP.length);
  const same = (a: Artifact) => a.platform === artifact.platform && a.format === artifact.format && a.fileType === artifact.fileType;
  const described =
    wanted === feedName(artifact)
      ? artifact
      : (await entitlementOf(m)).entitled.flatMap((r) => r.artifacts).find((a) => same(a) && feedName(a) === wanted);
  if (!described?.blockmapKey) throw missing();
  return { location: (await blockmapUrl(described.blockmapKey, described.filename)).url };
}
