import { randomBytes } from "node:crypto";
import type { Db } from "../db.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** The events a seller's webhook endpoint can subscribe to (Standard Webhooks `type`). */
export const SELLER_EVENT_TYPES = [
  "order.paid",
  "order.refunded",
  "license.created",
  "license.activated",
  "license.deactivated",
  "license.revoked",
  "license.reinstated",
  "license.transferred",
  "release.published",
  "release.yanked",
  "dispute.opened",
  "dispute.closed",
  "subscription.created",
  "subscription.renewed",
  "subscription.past_due",
  "subscription.recovered",
  "subscription.canceled",
  "subscription.resumed",
  "subscription.updated",
  "subscription.expired",
] as const;
export type SellerEventType = (typeof SELLER_EVENT_TYPES)[number];

/** Sent by "Send test event"; never emitted by a real fact and not subscribable. */
export const TEST_EVENT_TYPE = "webhook.test";

/** A message id as Standard Webhooks' `webhook-id`: the same on every retry of one event to one endpoint. */
export const newMessageId = (): string => `msg_${randomBytes(16).toString("base64url")}`;

/** The body every seller webhook carries (Standard Webhooks' recommended shape). */
export function webhookBody(type: string, data: Record<string, unknown>, at: Date): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/** Whether an endpoint's filter (a JSON array; empty: every event) lets this type through. */
export function subscribed(events: unknown, type: string): boolean {
  return !Array.isArray(events) || events.length === 0 || events.includes(type);
}

/**
 * Queues one event for every enabled endpoint of the seller that subscribes to it, inside the transaction of the fact
 * it reports, so an event is queued exactly when the fact commits (and never twice when two instances race on the
 * same fact: only one transaction makes the change). `subject` (a license, order or release id) orders deliveries:
 * an endpoint never hears of a license's revocation before its creation. Call kickWebhooks() after the commit.
 */
export async function emitSellerEvent(
  tx: Tx,
  developerId: string,
  type: SellerEventType,
  data: Record<string, unknown>,
  subject: string,
  at = new Date(),
): Promise<number> {
  const endpoints = await tx.sellerWebhookEndpoint.findMany({ where: { developerId, enabled: true }, select: { id: true, url: true, events: true } });
  let queued = 0;
  for (const endpoint of endpoints) {
    if (!subscribed(endpoint.events, type)) continue;
    const id = newMessageId();
    await tx.webhookDelivery.create({
      data: {
        id,
        kind: "seller",
        targetId: endpoint.id,
        url: endpoint.url,
        eventType: type,
        payload: webhookBody(type, data, at),
        dedupeKey: `sw:${subject.replace(/:/g, "_")}:${id}`,
        createdAt: at,
      },
    });
    queued++;
  }
  return queued;
}
