import { PRICING } from "@/lib/pricing";

/** "5 Apr 2026": a day that reads the same wherever the server runs. */
export function formatDay(when: Date | string): string {
  return new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" }).format(new Date(when));
}

/** "5 Apr 2026, 14:03 UTC". */
export function formatMoment(when: Date | string): string {
  const text = new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hour12: false,
    timeZone: "UTC",
  }).format(new Date(when));
  return `${text} UTC`;
}

/** "5 Apr": a day on a chart axis. */
export function formatShortDay(isoDay: string): string {
  return new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" }).format(new Date(`${isoDay}T00:00:00Z`));
}

export function formatCents(cents: number, currency: string = PRICING.currency): string {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(cents / 100);
}

/** "abcd…wxyz": long machine fingerprints, shortened for tables (the full value goes in a title). */
export function shortFingerprint(fp: string): string {
  return fp.length <= 12 ? fp : `${fp.slice(0, 4)}…${fp.slice(-4)}`;
}

export type LicenseStatus = "active" | "revoked" | "expired" | "trial";

/** One word for where a license stands: revoked beats expired beats trial. */
export function licenseStatus(l: { isActive: boolean; expiresAt: Date | null; trial: boolean }, now = Date.now()): LicenseStatus {
  if (!l.isActive) return "revoked";
  if (l.expiresAt && l.expiresAt.getTime() <= now) return "expired";
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
