import { env } from "@/lib/env";
import { licenseStanding, trialDaysRemaining, type StandingFacts } from "@/lib/licensing/evaluate";
import type { LicenseCode } from "@/lib/licensing/codes";

export { formatDay as formatDate, formatMoment as formatDateTime, shortFingerprint } from "../../lib/format";

export type LicenseStatus = { kind: "active" } | { kind: "trial"; daysLeft: number } | { kind: "expired" } | { kind: "revoked" };

export interface StoredLicense {
  isActive: boolean;
  trial: boolean;
  expiresAt: Date | null;
}

/**
 * A stored license judged by lib/licensing's own rule (licenseStanding), for its own product: what the pages show
 * is what /validate answers. The facts are returned too, for the trial days.
 */
export function storedLicenseStanding(license: StoredLicense, now = Date.now()): { code: LicenseCode; facts: StandingFacts } {
  const facts: StandingFacts = { pluginId: "", isActive: license.isActive, trial: license.trial, expiresAt: license.expiresAt?.getTime() ?? null };
  return { code: licenseStanding(facts, facts.pluginId, now), facts };
}

/** What the badge says. Revoked wins over expired; a trial counts its remaining days, rounded up. */
export function licenseStatus(license: StoredLicense, now = Date.now()): LicenseStatus {
  const { code, facts } = storedLicenseStanding(license, now);
  if (code === "REVOKED") return { kind: "revoked" };
  if (code !== "VALID") return { kind: "expired" };
  return license.trial ? { kind: "trial", daysLeft: trialDaysRemaining(facts, now) } : { kind: "active" };
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
  return (
    first
      // eslint-disable-next-line no-control-regex -- stripping control characters is the point
      .replace(/[\u0000-\u001f\u007f]/g, " ")
      .trim()
      .slice(0, max)
  );
}
