import { randomBytes } from "node:crypto";
import { z } from "zod";
import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { newMessageId, SELLER_EVENT_TYPES, TEST_EVENT_TYPE, webhookBody } from "./events.ts";
import { checkWebhookTarget } from "./target.ts";

/**
 * A seller's webhook endpoints and their delivery log. Every lookup is by id AND developer, so another seller's
 * endpoint or delivery is the same 404 as one that does not exist. Secrets are shown once (creation, rotation).
 */

/** Endpoints per seller: enough for production, staging and a few tools; not a way to fan one event out a thousand times. */
export const MAX_ENDPOINTS = 20;

/** A Standard Webhooks secret: "whsec_" + base64 of 32 random bytes, as the standardwebhooks library reads it. */
const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
const newEndpointId = () => `we_${randomBytes(12).toString("base64url")}`;

const eventsSchema = z
  .array(z.enum(SELLER_EVENT_TYPES))
  .max(SELLER_EVENT_TYPES.length)
  .transform((l) => [...new Set(l)])
  .describe("The event types to receive; empty (the default) means every event, including types added later");
// Longer than the 2000 characters allowed, so an overlong URL gets the target check's stable code, not a schema error.
const urlSchema = z
  .string()
  .trim()
  .min(1)
  .max(8192)
  .describe("Where to POST events: https (http only outside production or with WEBHOOK_ALLOW_PRIVATE=on)");
const descriptionSchema = z.string().trim().max(200).describe('A note for you ("CI", "Slack bridge")');

export const createEndpointInputSchema = z.object({
  url: urlSchema,
  description: descriptionSchema.default(""),
  events: eventsSchema.default([]),
});
export const updateEndpointInputSchema = z.object({
  url: urlSchema.optional(),
  description: descriptionSchema.optional(),
  events: eventsSchema.optional(),
  enabled: z.boolean().optional().describe("false pauses deliveries; true re-enables (and resets the failure streak)"),
});
export const endpointParamsSchema = z.object({ id: z.string().regex(/^we_[A-Za-z0-9_-]{8,40}$/, "must be a webhook endpoint id") });
export const deliveryParamsSchema = z.object({ delivery_id: z.string().regex(/^msg_[A-Za-z0-9_-]{8,40}$/, "must be a webhook delivery id") });
export const deliveriesQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25).describe("Deliveries per page (1–100, default 25)"),
  cursor: z
    .string()
    .regex(/^msg_[A-Za-z0-9_-]{8,40}$/)
    .optional()
    .describe("next_cursor of the previous page"),
});

export const endpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  events: z.array(z.string()).describe("Subscribed event types; empty: every event"),
  enabled: z.boolean(),
  disabled_at: z.iso.datetime().nullable(),
  disabled_reason: z.string().nullable(),
  failure_streak: z.int().describe("Deliveries in a row that failed for good; reset by a success"),
  created_at: z.iso.datetime(),
});
export type EndpointView = z.infer<typeof endpointSchema>;

export const deliverySchema = z.object({
  id: z.string().describe("The message id (the webhook-id header)"),
  endpoint_id: z.string(),
  event_type: z.string(),
  status: z.enum(["pending", "sent", "failed"]),
  attempts: z.int(),
  last_status: z.int().nullable().describe("The receiver's last HTTP status; null when it never answered"),
  last_error: z.string().nullable(),
  last_duration_ms: z.int().nullable(),
  created_at: z.iso.datetime(),
  next_attempt_at: z.iso.datetime().nullable().describe("When the next attempt is due, while pending"),
  sent_at: z.iso.datetime().nullable(),
});
export type DeliveryView = z.infer<typeof deliverySchema>;

export const deliveryDetailSchema = deliverySchema.extend({
  payload: z.string().describe("The exact JSON body sent (the signature covers these bytes)"),
  attempt_log: z.array(
    z.object({
      attempt: z.int(),
      at: z.iso.datetime(),
      status: z.int().nullable(),
      duration_ms: z.int(),
      error: z.string().nullable(),
    }),
  ),
});
export type DeliveryDetail = z.infer<typeof deliveryDetailSchema>;

type EndpointRow = {
  id: string;
  url: string;
  description: string;
  events: unknown;
  enabled: boolean;
  disabledAt: Date | null;
  disabledReason: string | null;
  failureStreak: number;
  createdAt: Date;
};

const endpointView = (e: EndpointRow): EndpointView => ({
  id: e.id,
  url: e.url,
  description: e.description,
  events: Array.isArray(e.events) ? e.events.filter((x): x is string => typeof x === "string") : [],
  enabled: e.enabled,
  disabled_at: e.disabledAt?.toISOString() ?? null,
  disabled_reason: e.disabledReason,
  failure_streak: e.failureStreak,
  created_at: e.createdAt.toISOString(),
});

type DeliveryRow = {
  id: string;
  targetId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  createdAt: Date;
  nextAttemptAt: Date;
  sentAt: Date | null;
};

const deliveryView = (r: DeliveryRow): DeliveryView => ({
  id: r.id,
  endpoint_id: r.targetId,
  event_type: r.eventType,
  status: r.status === "sent" || r.status === "failed" ? r.status : "pending",
  attempts: r.attempts,
  last_status: r.lastStatus,
  last_error: r.lastError,
  last_duration_ms: r.lastDurationMs,
  created_at: r.createdAt.toISOString(),
  next_attempt_at: r.status === "pending" ? r.nextAttemptAt.toISOString() : null,
  sent_at: r.sentAt?.toISOString() ?? null,
});

async function ownEndpoint(developerId: string, id: string): Promise<EndpointRow & { secret: string }> {
  const row = await getDb().sellerWebhookEndpoint.findFirst({ where: { id, developerId } });
  if (!row) throw notFound("webhook_endpoint");
  return row;
}

async function ownDelivery(developerId: string, deliveryId: string) {
  const row = await getDb().webhookDelivery.findUnique({ where: { id: deliveryId }, omit: { payload: true } });
  if (!row || row.kind !== "seller") throw notFound("webhook_delivery");
  const endpoint = await getDb().sellerWebhookEndpoint.findFirst({ where: { id: row.targetId, developerId }, select: { id: true, enabled: true } });
  if (!endpoint) throw notFound("webhook_delivery");
  return { row, endpoint };
}

export async function listEndpoints(developerId: string): Promise<EndpointView[]> {
  const rows = await getDb().sellerWebhookEndpoint.findMany({ where: { developerId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  return rows.map(endpointView);
}

export async function getEndpoint(developerId: string, id: string): Promise<EndpointView> {
  return endpointView(await ownEndpoint(developerId, id));
}

/** Creates an endpoint (URL checked, see target.ts); the answer carries its secret, shown this once. */
export async function createEndpoint(
  developerId: string,
  input: z.output<typeof createEndpointInputSchema>,
): Promise<EndpointView & { secret: string }> {
  const url = await checkWebhookTarget(input.url);
  const db = getDb();
  const row = await db.$transaction(async (tx) => {
    const count = await tx.sellerWebhookEndpoint.count({ where: { developerId } });
    if (count >= MAX_ENDPOINTS)
      throw new AppError("webhook_endpoint_limit", 409, `You have ${MAX_ENDPOINTS} webhook endpoints, the most allowed; delete one first.`);
    return tx.sellerWebhookEndpoint.create({
      data: { id: newEndpointId(), developerId, url, description: input.description, events: input.events, secret: newSecret() },
    });
  });
  return { ...endpointView(row), secret: row.secret };
}

/**
 * Changes an endpoint. A new URL is checked like a new endpoint's. Disabling records when and why; re-enabling
 * clears that and the failure streak (the seller says the receiver is fixed).
 */
export async function updateEndpoint(
  developerId: string,
  id: string,
  input: z.output<typeof updateEndpointInputSchema>,
  now = new Date(),
): Promise<EndpointView> {
  const current = await ownEndpoint(developerId, id);
  const url = input.url !== undefined ? await checkWebhookTarget(input.url) : undefined;
  const enabling = input.enabled === true && !current.enabled;
  const disabling = input.enabled === false && current.enabled;
  const row = await getDb().sellerWebhookEndpoint.update({
    where: { id: current.id },
    data: {
      ...(url !== undefined ? { url } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.events !== undefined ? { events: input.events } : {}),
      ...(enabling ? { enabled: true, disabledAt: null, disabledReason: null, failureStreak: 0 } : {}),
      ...(disabling ? { enabled: false, disabledAt: now, disabledReason: "Disabled by you." } : {}),
    },
  });
  return endpointView(row);
}

/** Deletes an endpoint; deliveries still pending for it are settled "failed" (never sent). */
export async function deleteEndpoint(developerId: string, id: string): Promise<void> {
  const current = await ownEndpoint(developerId, id);
  await getDb().$transaction(async (tx) => {
    await tx.webhookDelivery.updateMany({
      where: { kind: "seller", targetId: current.id, status: "pending" },
      data: { status: "failed", lastError: "not sent: the endpoint was deleted", lockedUntil: null },
    });
    await tx.sellerWebhookEndpoint.deleteMany({ where: { id: current.id, developerId } });
  });
}

/** A new secret, shown once; deliveries from now on (retries included) are signed with it, the old one stops at once. */
export async function rotateEndpointSecret(developerId: string, id: string): Promise<EndpointView & { secret: string }> {
  const current = await ownEndpoint(developerId, id);
  const row = await getDb().sellerWebhookEndpoint.update({ where: { id: current.id }, data: { secret: newSecret() } });
  return { ...endpointView(row), secret: row.secret };
}

const endpointDisabled = () =>
  new AppError("webhook_endpoint_disabled", 409, "This endpoint is disabled: enable it first (that also resets its failure streak).");

/** Queues a `webhook.test` event to this endpoint only (whatever its event filter). */
export async function sendTestEvent(developerId: string, id: string, now = new Date()): Promise<DeliveryView> {
  const endpoint = await ownEndpoint(developerId, id);
  if (!endpoint.enabled) throw endpointDisabled();
  const msgId = newMessageId();
  const row = await getDb().webhookDelivery.create({
    data: {
      id: msgId,
      kind: "seller",
      targetId: endpoint.id,
      url: endpoint.url,
      eventType: TEST_EVENT_TYPE,
      payload: webhookBody(TEST_EVENT_TYPE, { endpoint_id: endpoint.id, message: "A test event sent from your dashboard or the API." }, now),
      // Its own subject: test events are not held back behind one another.
      dedupeKey: `sw:test_${msgId}:${msgId}`,
      createdAt: now,
      nextAttemptAt: now,
    },
    omit: { payload: true },
  });
  kickWebhooks();
  return deliveryView(row);
}

/** One endpoint's deliveries, newest first, a page at a time (`next_cursor` is null on the last page). */
export async function listEndpointDeliveries(
  developerId: string,
  id: string,
  query: { limit: number; cursor?: string },
): Promise<{ deliveries: DeliveryView[]; next_cursor: string | null }> {
  const endpoint = await ownEndpoint(developerId, id);
  const rows = await getDb().webhookDelivery.findMany({
    where: { kind: "seller", targetId: endpoint.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: query.limit + 1,
    ...(query.cursor ? { cursor: { id: query.cursor }, skip: 1 } : {}),
    omit: { payload: true },
  });
  const page = rows.slice(0, query.limit);
  return { deliveries: page.map(deliveryView), next_cursor: rows.length > query.limit ? (page.at(-1)?.id ?? null) : null };
}

export async function getDelivery(developerId: string, deliveryId: string): Promise<DeliveryDetail> {
  const { row } = await ownDelivery(developerId, deliveryId);
  const [full, attempts] = await Promise.all([
    getDb().webhookDelivery.findUniqueOrThrow({ where: { id: row.id }, select: { payload: true } }),
    getDb().webhookAttempt.findMany({ where: { deliveryId: row.id }, orderBy: [{ at: "asc" }, { id: "asc" }] }),
  ]);
  return {
    ...deliveryView(row),
    payload: full.payload,
    attempt_log: attempts.map((a) => ({ attempt: a.attempt, at: a.at.toISOString(), status: a.status, duration_ms: a.durationMs, error: a.error })),
  };
}

/**
 * Sends a delivery again: the same message (same webhook-id and body, freshly signed) is queued again, due now, with
 * a fresh set of attempts; its attempt log keeps the earlier attempts. Only a settled delivery (sent or failed), by a
 * conditional update, so a double click queues it once: while it is pending, 409 `webhook_delivery_pending`.
 */
export async function redeliver(developerId: string, deliveryId: string, now = new Date()): Promise<DeliveryView> {
  const { row, endpoint } = await ownDelivery(developerId, deliveryId);
  if (!endpoint.enabled) throw endpointDisabled();
  const changed = await getDb().webhookDelivery.updateMany({
    where: { id: row.id, status: { in: ["sent", "failed"] } },
    data: { status: "pending", attempts: 0, nextAttemptAt: now, lockedUntil: null, sentAt: null },
  });
  if (changed.count !== 1) throw new AppError("webhook_delivery_pending", 409, "This delivery is already queued; wait for it to be sent or to fail.");
  kickWebhooks();
  return deliveryView(await getDb().webhookDelivery.findUniqueOrThrow({ where: { id: row.id }, omit: { payload: true } }));
}
