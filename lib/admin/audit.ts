import { getDb, type Db } from "../db.ts";
import type { Admin } from "./access.ts";

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

export const AUDIT_ACTIONS = [
  "seller.suspend",
  "seller.reinstate",
  "product.remove",
  "product.restore",
  "product.feature",
  "product.unfeature",
  "order.refund",
  "order.test_dispute",
  "agent_platform.register",
  "agent_platform.update",
  "agent_platform.rotate_secret",
  "agent_platform.revoke",
  "agent_platform.retry_delivery",
  "review.hide",
  "review.unhide",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Records one operator action; call it inside the transaction that performs the action, so neither exists alone. */
export async function writeAudit(
  tx: Tx,
  admin: Admin,
  entry: {
    action: AuditAction;
    targetType: "developer" | "product" | "order" | "agent_platform" | "review";
    targetId: string;
    detail: Record<string, string | number | boolean | null>;
  },
): Promise<void> {
  await tx.auditEntry.create({
    data: { actorEmail: admin.email, action: entry.action, targetType: entry.targetType, targetId: entry.targetId, detail: entry.detail },
  });
}

export interface AuditRow {
  id: string;
  actor_email: string;
  action: string;
  target_type: string;
  target_id: string;
  detail: Record<string, unknown>;
  created_at: string;
}

/** The newest audit entries first, optionally for one action or one target. */
export async function listAudit(filter: { action?: string; target_id?: string; limit?: number } = {}): Promise<AuditRow[]> {
  const rows = await getDb().auditEntry.findMany({
    where: { ...(filter.action ? { action: filter.action } : {}), ...(filter.target_id ? { targetId: filter.target_id } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: filter.limit ?? 50,
  });
  return rows.map((r) => ({
    id: r.id,
    actor_email: r.actorEmail,
    action: r.action,
    target_type: r.targetType,
    target_id: r.targetId,
    detail: r.detail !== null && typeof r.detail === "object" && !Array.isArray(r.detail) ? (r.detail as Record<string, unknown>) : {},
    created_at: r.createdAt.toISOString(),
  }));
}
