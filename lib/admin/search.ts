import { dbEngine } from "../db.ts";

/**
 * A case-insensitive `contains` on both engines: SQLite's LIKE already ignores ASCII case, and PostgreSQL gets
 * Prisma's `mode: "insensitive"` (ILIKE), which the SQLite client's types do not know, hence the cast.
 */
export function containsText(q: string): { contains: string } {
  return dbEngine() === "postgresql" ? ({ contains: q, mode: "insensitive" } as { contains: string }) : { contains: q };
}

export const DEFAULT_LIMIT = 50;
