/** Values of rows read without the client (direct statements on the client's connection or pool). */

/** A SQLite or PostgreSQL boolean as read without the client. */
export const flag = (v: boolean | number) => v === true || v === 1;

/**
 * A date as read without the client, in epoch ms: a number (epoch ms), or text. Text without a zone (SQLite's
 * CURRENT_TIMESTAMP writes "YYYY-MM-DD HH:MM:SS") is UTC, as the client reads it, not the server's local time.
 */
export function epochMs(v: string | number | null): number | null {
  if (v === null) return null;
  if (typeof v === "number") return v;
  return Date.parse(/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(v) ? `${v.replace(" ", "T")}Z` : v);
}
