/**
 * Spellings to look for with `contains`: PostgreSQL compares case-sensitively and SQLite's Prisma client has no
 * `mode: "insensitive"`, so a term is tried as typed, lower-cased and with capitalised words (addresses and the
 * products' search text are stored lower-cased already).
 */
export function spellings(q: string): string[] {
  const lower = q.toLowerCase();
  const title = lower.replace(/(^|\s)(\p{L})/gu, (_m, s: string, c: string) => s + c.toUpperCase());
  return [...new Set([q, lower, title, q.toUpperCase()])];
}

export const DEFAULT_LIMIT = 50;
