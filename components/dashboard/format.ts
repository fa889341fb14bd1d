import { storedLicenseStanding, type StoredLicense } from "../licenses/format";

export { formatDay, formatMoment } from "../../lib/format";

/** "5 Apr": a day on a chart axis. */
export function formatShortDay(isoDay: string): string {
  return new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" }).format(new Date(`${isoDay}T00:00:00Z`));
}

export { formatPrice as formatCents } from "@/lib/pricing";

export type LicenseStatus = "active" | "revoked" | "expired" | "trial";

/** One word for where a license stands (lib/licensing's licenseStanding): revoked beats expired beats trial. */
export function licenseStatus(l: StoredLicense, now = Date.now()): LicenseStatus {
  const { code } = storedLicenseStanding(l, now);
  if (code === "REVOKED") return "revoked";
  if (code !== "VALID") return "expired";
  return l.trial ? "trial" : "active";
}

export const SOURCE_LABELS: Record<string, string> = {
  purchase: "Purchase",
  trial: "Free trial",
  complimentary: "Complimentary",
};

/** Query parameters as plain strings. */
export function param(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? "";
}
