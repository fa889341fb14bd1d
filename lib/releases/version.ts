import semver from "semver";
import { AppError } from "../http/errors.ts";

/** Longest version string accepted. */
export const VERSION_MAX_CHARS = 64;

export interface ParsedVersion {
  version: string;
  major: number;
  minor: number;
  patch: number;
  /** "beta.1" for 1.2.0-beta.1, "" for a release version. */
  prerelease: string;
}

/**
 * Parses a release version: strict Semantic Versioning 2.0.0 (MAJOR.MINOR.PATCH with an optional pre-release part).
 * Refused with 400 `invalid_version`: a leading "v" (the hint names the version without it), build metadata
 * ("+build.5": it does not take part in semver precedence, so 1.0.0+a and 1.0.0+b would be two releases no updater
 * can order), loose forms ("1.0", "01.0.0"), spaces or other characters around it (" 1.2.3" is refused, not trimmed:
 * what is stored is exactly what was sent) and anything longer than 64 characters.
 */
export function parseVersion(input: string): ParsedVersion {
  const raw = input;
  const refuse = (detail: string) => new AppError("invalid_version", 400, detail, { errors: [{ in: "body", name: "version", message: detail }] });
  if (!raw.trim()) throw refuse("A version is required, e.g. 1.0.0.");
  if (raw !== raw.trim()) throw refuse(`"${raw}" has spaces around it: send the version alone, e.g. "${raw.trim()}".`);
  if (raw.length > VERSION_MAX_CHARS) throw refuse(`A version has at most ${VERSION_MAX_CHARS} characters.`);
  if (/^v/i.test(raw)) {
    const bare = raw.slice(1);
    throw refuse(
      semver.valid(bare)
        ? `Write the version without the leading "v": ${bare}.`
        : `"${raw}" is not a semantic version (MAJOR.MINOR.PATCH, e.g. 1.0.0).`,
    );
  }
  const parsed = semver.parse(raw);
  if (!parsed) throw refuse(`"${raw}" is not a semantic version (MAJOR.MINOR.PATCH, e.g. 1.0.0 or 2.1.0-beta.1).`);
  if (parsed.build.length) throw refuse(`Build metadata ("+${parsed.build.join(".")}") is not accepted: use ${parsed.version}.`);
  if (parsed.major > 2_000_000_000 || parsed.minor > 2_000_000_000 || parsed.patch > 2_000_000_000)
    throw refuse("Version numbers are at most 2000000000.");
  return { version: parsed.version, major: parsed.major, minor: parsed.minor, patch: parsed.patch, prerelease: parsed.prerelease.join(".") };
}

/** A version given in a path (already stored), parsed without throwing: null when it can't be a stored version. */
export function normaliseVersion(input: string): string | null {
  try {
    return parseVersion(input).version;
  } catch {
    return null;
  }
}
