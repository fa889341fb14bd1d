/**
 * The fixed vocabularies of releases: the platforms an artifact is built for, the audio plugin formats, the
 * release channels and a product's update policies. Stored as plain strings in the database (both engines), so
 * these lists are the only place that says which values are valid; validation, labels, feeds and the UI use them.
 */

/** Operating system and CPU architecture of an artifact. "macos-universal" is one binary for Apple silicon and Intel. */
export const PLATFORMS = ["windows-x64", "windows-arm64", "macos-universal", "macos-arm64", "macos-x64", "linux-x64", "linux-arm64"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Audio plugin formats. An artifact's format "" (stored) / null (in views) is an application, not a plugin. */
export const PLUGIN_FORMATS = ["vst3", "au", "aax", "clap"] as const;
export type PluginFormat = (typeof PLUGIN_FORMATS)[number];

/** Release channels: a license-holding app asks for one; "beta" sees beta and stable releases, "stable" only stable. */
export const CHANNELS = ["stable", "beta"] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * How long a license receives updates: "all" every release; "days" releases published within `updateDays` of the
 * purchase; "major" releases of the major version that was current at purchase.
 */
export const UPDATE_POLICIES = ["all", "days", "major"] as const;

/** Human names of the platforms, for pages and badges. */
export const PLATFORM_LABELS: Record<Platform, string> = {
  "windows-x64": "Windows (x64)",
  "windows-arm64": "Windows (ARM64)",
  "macos-universal": "macOS (Universal)",
  "macos-arm64": "macOS (Apple silicon)",
  "macos-x64": "macOS (Intel)",
  "linux-x64": "Linux (x64)",
  "linux-arm64": "Linux (ARM64)",
};

/** Human names of the plugin formats. */
export const FORMAT_LABELS: Record<PluginFormat, string> = {
  vst3: "VST3",
  au: "AU",
  aax: "AAX",
  clap: "CLAP",
};

export const isPlatform = (value: string): value is Platform => (PLATFORMS as readonly string[]).includes(value);
export const isPluginFormat = (value: string): value is PluginFormat => (PLUGIN_FORMATS as readonly string[]).includes(value);

/** File types of release files, by extension (".tgz" counts as "tar.gz"). */
export const FILE_TYPES = ["exe", "msi", "zip", "dmg", "pkg", "tar.gz", "appimage", "deb", "rpm"] as const;
export type FileType = (typeof FILE_TYPES)[number];

/**
 * Which file an update offers when a release has several for one platform and the app names no `file_type`: what an
 * updater installs in place comes first (a .zip on macOS, which electron-updater and Sparkle update from; an
 * installer on Windows; an AppImage on Linux).
 */
export const FILE_TYPE_PREFERENCE: Record<"windows" | "macos" | "linux", FileType[]> = {
  windows: ["exe", "msi", "zip"],
  macos: ["zip", "dmg", "pkg", "tar.gz"],
  linux: ["appimage", "tar.gz", "deb", "rpm", "zip"],
};
