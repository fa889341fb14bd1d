import { randomBytes } from "node:crypto";
import type { Db } from "../db.ts";
import { acpOrderObject } from "./order-object.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** The ACP order webhooks' event types (openapi.agentic_checkout_webhook.yaml). */
export const ACP_ORDER_EVENT_TYPES = ["order_create", "order_update"] as const;
type AcpOrderEventType = (typeof ACP_ORDER_EVENT_TYPES)[number];

/**
 * Queues an ACP order event for the agent platform whose checkout session made the order: a WebhookDelivery row
 * written in the caller's transaction (the outbox), so the event exists exactly when the fact it reports does, and
 * lib/webhooks/deliver.ts POSTs it afterwards with retries. The body is the ACP `WebhookEvent` — `{type, data}` with
 * the full Order as it stands now (the spec wants full objects, not deltas).
 *
 * A no-op for orders that did not come from an ACP session, for anonymous agents, and for platforms that are revoked
 * or have no webhook URL. "order_create" is queued at most once per order. `cause` (e.g. "refund:<id>") makes a
 * repeated "order_update" for the same fact a no-op; without it every call queues a new update.
 *
 * Call kickWebhooks() (lib/webhooks/deliver.ts) after the transaction commits to send it without waiting for the
 * next poll.
 */
export async function recordAcpOrderEvent(tx: Tx, orderId: string, type: AcpOrderEventType, cause?: string): Promise<void> {
  const session = await tx.acpCheckoutSession.findUnique({
    where: { orderId },
    select: { platform: { select: { id: true, webhookUrl: true, revokedAt: true } } },
  });
  const platform = session?.platform;
  if (!platform?.webhookUrl || platform.revokedAt) return;

  const dedupeKey = orderEventKey(orderId, type, type === "order_create" ? undefined : (cause ?? randomBytes(9).toString("base64url")));
  // Checked before inserting: on PostgreSQL a unique violation would abort the caller's whole transaction.
  if (await tx.webhookDelivery.findUnique({ where: { dedupeKey }, select: { id: true } })) return;

  const payload = JSON.stringify({ type, data: await acpOrderObject(tx, orderId) });
  await tx.webhookDelivery.create({
    data: { kind: "acp_order", targetId: platform.id, url: platform.webhookUrl, eventType: type, payload, dedupeKey },
  });
}

/**
 * `acp:<orderId>:<type>[:<cause>]`: every event of one order shares the subject `acp:<orderId>:`, and the deliverer
 * holds a later event back while an earlier one of the same subject is still pending (lib/webhooks/deliver.ts), so a
 * platform never hears of a refund before it heard of the order.
 */
function orderEventKey(orderId: string, type: AcpOrderEventType, cause: string | undefined): string {
  return cause === undefined ? `acp:${orderId}:${type}` : `acp:${orderId}:${type}:${cause}`;
}
