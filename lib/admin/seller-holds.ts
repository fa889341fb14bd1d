import { getDb } from "../db.ts";

export interface OperatorHolds {
  /** The seller's suspension, if any, with the operator's reason. */
  suspension: { at: Date; reason: string | null } | null;
  /** Listings the operator removed, each with its reason. */
  removed: { id: string; name: string; reason: string | null }[];
}

/** What the operator holds against a seller, for their dashboard: a suspension and removed listings, with reasons. */
export async function operatorHolds(developerId: string): Promise<OperatorHolds> {
  const db = getDb();
  const [developer, removed] = await Promise.all([
    db.developer.findUnique({ where: { id: developerId }, select: { suspendedAt: true, suspendedReason: true } }),
    db.product.findMany({
      where: { developerId, status: "removed" },
      orderBy: { updatedAt: "desc" },
      select: { id: true, name: true, moderationReason: true },
    }),
  ]);
  return {
    suspension: developer?.suspendedAt ? { at: developer.suspendedAt, reason: developer.suspendedReason } : null,
    removed: removed.map((p) => ({ id: p.id, name: p.name, reason: p.moderationReason })),
  };
}
