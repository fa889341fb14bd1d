import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import type { Admin } from "../admin/access.ts";
import { writeAudit } from "../admin/audit.ts";

/** One webhook delivery as the operator's console shows it (never the secret; the payload only by its event). */
export interface AdminWebhookDelivery {
  id: string;
  platform_id: string;
  platform_name: string | null;
  event_type: string;
  /** The order the event is about (ACP order events). */
  order_id: string | null;
  url: string;
  /** "pending" | "sent" | "failed" */
  status: string;
  attempts: number;
  /** The receiver's last HTTP status; null when it never answered (timeout, refused connection). */
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  /** When the next attempt is due, while pending. */
  next_attempt_at: string | null;
  sent_at: string | null;
}

/** `acp:<orderId>:…` (lib/acp/order-events.ts) → the order id. */
const orderOf = (dedupeKey: string | null) => (dedupeKey ? (/^acp:([^:]+):/.exec(dedupeKey)?.[1] ?? null) : null);

type Row = {
  id: string;
  targetId: string;
  eventType: string;
  dedupeKey: string | null;
  url: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  nextAttemptAt: Date;
  sentAt: Date | null;
};

async function withNames(rows: Row[]): Promise<AdminWebhookDelivery[]> {
  const ids = [...new Set(rows.map((r) => r.targetId))];
  const platforms = ids.length ? await getDb().agentPlatform.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }) : [];
  const names = new Map(platforms.map((p) => [p.id, p.name]));
  return rows.map((r) => ({
    id: r.id,
    platform_id: r.targetId,
    platform_name: names.get(r.targetId) ?? null,
    event_type: r.eventType,
    order_id: orderOf(r.dedupeKey),
    url: r.url,
    status: r.status,
    attempts: r.attempts,
    last_status: r.lastStatus,
    last_error: r.lastError,
    created_at: r.createdAt.toISOString(),
    next_attempt_at: r.status === "pending" ? r.nextAttemptAt.toISOString() : null,
    sent_at: r.sentAt?.toISOString() ?? null,
  }));
}

/** The newest deliveries first, optionally of one platform or in one status. */
export async function listWebhookDeliveries(
  filter: { platform_id?: string; status?: "pending" | "sent" | "failed"; limit?: number } = {},
): Promise<AdminWebhookDelivery[]> {
  const rows = await getDb().webhookDelivery.findMany({
    where: {
      kind: "acp_order",
      ...(filter.platform_id ? { targetId: filter.platform_id } : {}),
      ...(filter.status ? { status: filter.status } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: filter.limit ?? 50,
    omit: { payload: true },
  });
  return withNames(rows);
}

/**
 * Sends a failed delivery again (after the platform fixed its endpoint, or the operator its URL): back to pending,
 * due now, with a fresh set of attempts. Only a failed one, conditionally, so two operators racing queue it once.
 */
export async function retryWebhookDelivery(admin: Admin, id: string, now = new Date()): Promise<AdminWebhookDelivery> {
  const db = getDb();
  await db.$transaction(async (tx) => {
    const row = await tx.webhookDelivery.findUnique({ where: { id }, select: { targetId: true, kind: true } });
    if (!row || row.kind !== "acp_order") throw notFound("webhook_delivery");
    const platform = await tx.agentPlatform.findUnique({ where: { id: row.targetId }, select: { revokedAt: true, webhookUrl: true } });
    if (!platform || platform.revokedAt) throw new AppError("agent_platform_revoked", 409, "This delivery's agent platform is revoked.");
    if (!platform.webhookUrl) throw new AppError("webhook_url_missing", 409, "This delivery's agent platform has no webhook URL.");
    const changed = await tx.webhookDelivery.updateMany({
      where: { id, status: "failed" },
      data: { status: "pending", attempts: 0, nextAttemptAt: now, lockedUntil: null },
    });
    if (changed.count !== 1) throw new AppError("webhook_delivery_not_failed", 409, "Only a failed delivery can be sent again.");
    await writeAudit(tx, admin, {
      action: "agent_platform.retry_delivery",
      targetType: "agent_platform",
      targetId: row.targetId,
      detail: { delivery_id: id },
    });
  });
  const row = await db.webhookDelivery.findUnique({ where: { id }, omit: { payload: true } });
  if (!row) throw notFound("webhook_delivery");
  const [delivery] = await withNames([row]);
  if (!delivery) throw notFound("webhook_delivery");
  return delivery;
}
