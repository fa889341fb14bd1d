/** Dates and identifiers as pages show them: the same text wherever the server runs (UTC, en-GB day-month). */

/** "5 Apr 2026". */
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

/** "abcd1234…wxyz": enough of a machine fingerprint to tell machines apart; the full one goes in a title. */
export function shortFingerprint(fingerprint: string): string {
  return fingerprint.length <= 14 ? fingerprint : `${fingerprint.slice(0, 8)}…${fingerprint.slice(-4)}`;
}

/**
 * A file size as people read it: "812 bytes", "1.4 KB", "23.5 MB", "1.2 GB" (decimal units, as operating systems'
 * download dialogs show them). One formatter for the product page, the dashboard and the buyer's downloads.
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "—";
  if (bytes < 1000) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 999.95 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

const counted = (n: number, word: string) => `${n} ${n === 1 ? word : `${word}s`}`;

/** "2 seats · 4 machines": the seats bought and the machines they allow at once (never the machines called seats). */
export function seatsAndMachines(seats: number, machines: number): string {
  return `${counted(seats, "seat")} · ${counted(machines, "machine")}`;
}

/**
 * A machine as its app described it, in this order: "Studio Mac · macOS 15.1 · version 2.3.1", or what of it was sent;
 * "" when the app sent none of it (the fingerprint then names the machine).
 */
export function machineTitle(m: { name?: string | null; platform?: string | null; appVersion?: string | null }): string {
  const version = m.appVersion?.trim();
  return [m.name?.trim(), m.platform?.trim(), version ? `version ${version.replace(/^v(?=\d)/i, "")}` : null].filter(Boolean).join(" · ");
}
