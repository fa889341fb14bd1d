import { env } from "@/lib/env";

const DAY_MS = 86_400_000;

/** "abcd1234…wxyz": enough of a machine fingerprint to tell machines apart; the full one goes in a title. */
export function shortFingerprint(fingerprint: string): string {
  return fingerprint.length <= 14 ? fingerprint : `${fingerprint.slice(0, 8)}…${fingerprint.slice(-4)}`;
}

/** "5 Apr 2026": a date that reads the same wherever the server runs. */
export function formatDate(when: Date): string {
  return new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" }).format(when);
}

/** "5 Apr 2026, 14:03 UTC", for a title attribute. */
export function formatDateTime(when: Date): string {
  const text = new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hour12: false,
    timeZone: "UTC",
  }).format(when);
  return `${text} UTC`;
}

export type LicenseStatus = { kind: "active" } | { kind: "trial"; daysLeft: number } | { kind: "expired" } | { kind: "revoked" };

/** What the badge says. Revoked wins over expired; a trial counts its remaining days, rounded up. */
export function licenseStatus(license: { isActive: boolean; trial: boolean; expiresAt: Date | null }, now = Date.now()): LicenseStatus {
  if (!license.isActive) return { kind: "revoked" };
  if (license.expiresAt && license.expiresAt.getTime() <= now) return { kind: "expired" };
  if (license.trial) {
    const daysLeft = license.expiresAt ? Math.max(1, Math.ceil((license.expiresAt.getTime() - now) / DAY_MS)) : 0;
    return { kind: "trial", daysLeft };
  }
  return { kind: "active" };
}

/**
 * An absolute URL on this deployment as a path, so icons and links follow whichever host name the page was
 * opened under (lib hands out absolute URLs built from BASE_URL). Anything else is returned unchanged.
 */
export function sitePath(url: string): string {
  const base = env().BASE_URL;
  if (url === base) return "/";
  return url.startsWith(`${base}/`) ? url.slice(base.length) : url;
}

/** The first value of a query parameter, stripped of control characters and capped in length. */
export function queryText(value: string | string[] | undefined, max: number): string {
  const first = (Array.isArray(value) ? value[0] : value) ?? "";
  return first.replace(/[\u0000-\u001f\u007f]/g, " ").trim().slice(0, max);
}
