/** "in 23 hours", "in 5 minutes": how long until a moment, for a server-rendered page. */
export function timeUntil(when: Date, now = Date.now()): string {
  const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  const minutes = Math.max(0, Math.round((when.getTime() - now) / 60_000));
  if (minutes < 1) return "in less than a minute";
  if (minutes < 90) return rtf.format(minutes, "minute");
  return rtf.format(Math.round(minutes / 60), "hour");
}

export { formatMoment as formatUtc } from "../../lib/format";
