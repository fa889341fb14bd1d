import type { Engine } from "./engine.ts";

/**
 * Substring search through Prisma's `contains`, with the searched text taken literally.
 *
 * Prisma 7 sends `contains` as `LIKE` with the text between two `%` and no ESCAPE clause, on both engines, and does
 * not escape the text (tests/integration/like-search.test.ts reads the SQL it sends). So `%` and `_` in what a person
 * typed would be wildcards: `_` matches any one character, `%` any run of them.
 * - PostgreSQL: LIKE's escape character is the backslash unless a query names another, so `\`, `%` and `_` are
 *   escaped with one and the match is exact.
 * - SQLite: LIKE has no escape character without an ESCAPE clause (a backslash is an ordinary character), so `%` and
 *   `_` cannot be escaped through Prisma. The filter then finds a superset of the literal matches (`exact` false), and
 *   the caller keeps the rows whose value holds the text (literalIncludes). Text without `%` or `_` is exact there.
 */
export function containsLiterally(text: string, engine: Engine): { filter: { contains: string }; exact: boolean } {
  if (engine === "postgresql") return { filter: { contains: text.replace(/[\\%_]/g, (c) => `\\${c}`) }, exact: true };
  return { filter: { contains: text }, exact: !/[%_]/.test(text) };
}

/**
 * Whether `value` holds `text`, as the engine's LIKE compares once the wildcards are out of the way: SQLite's LIKE
 * ignores the case of ASCII letters (and only theirs); PostgreSQL's does not ignore case.
 */
export function literalIncludes(value: string, text: string, engine: Engine): boolean {
  if (engine === "postgresql") return value.includes(text);
  const ascii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return ascii(value).includes(ascii(text));
}
