import { env } from "@/lib/env";

const DAY_MS = 86_400_000;

export { formatDay as formatDate, formatMoment as formatDateTime, shortFingerprint } from "../ui/format";

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
