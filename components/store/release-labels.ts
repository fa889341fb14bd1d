import { FORMAT_LABELS, PLATFORM_LABELS } from "@/lib/releases/platforms";

/** "Windows (x64)", "macOS (Universal)": a release artifact's platform as pages show it; unknown values as stored. */
export function artifactPlatformLabel(platform: string): string {
  return (PLATFORM_LABELS as Record<string, string>)[platform] ?? platform;
}

/** "VST3", "AU", "AAX", "CLAP"; an application ("" or null) has no format label. */
export function formatLabel(format: string | null): string {
  if (!format) return "";
  return (FORMAT_LABELS as Record<string, string>)[format] ?? format.toUpperCase();
}

/** The plugin formats a release ships, each once, in the order of the known formats. */
export function releaseFormats(artifacts: ReadonlyArray<{ format: string | null }>): string[] {
  const present = new Set(artifacts.map((a) => a.format).filter((f): f is string => Boolean(f)));
  const known = Object.keys(FORMAT_LABELS).filter((f) => present.has(f));
  return [...known, ...[...present].filter((f) => !known.includes(f)).sort()];
}
