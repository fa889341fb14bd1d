import { z } from "zod";
import {
  createEndpoint,
  createEndpointInputSchema,
  deleteEndpoint,
  deliveriesQuerySchema,
  deliveryDetailSchema,
  deliveryParamsSchema,
  deliverySchema,
  endpointParamsSchema,
  endpointSchema,
  getDelivery,
  getEndpoint,
  listEndpointDeliveries,
  listEndpoints,
  MAX_ENDPOINTS,
  redeliver,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
  updateEndpointInputSchema,
} from "../seller-webhooks/endpoints.ts";
import { RULES } from "../http/rate-limit.ts";
import { operation, type Operation } from "./define.ts";

const withSecret = endpointSchema.extend({
  secret: z.string().describe("The signing secret (whsec_…), shown only in this answer: store it where your receiver reads it"),
});

const TARGET_RULES =
  "The URL is refused (400 `webhook_target_refused`, naming why) if it carries credentials, is longer than 2000 characters, is not https (http is allowed outside production), or its host is localhost or is, or resolves to, any private, loopback, link-local, unique-local, CGNAT, multicast, documentation or otherwise non-public address — unless the operator set WEBHOOK_ALLOW_PRIVATE=on. The check is repeated at every delivery.";

/**
 * The seller's outgoing webhooks (Standard Webhooks): endpoints with their own secret and event filter, the delivery
 * log with every attempt, a test event, and manual redelivery. Another seller's endpoint or delivery is a 404.
 */
export const SELLER_WEBHOOKS: Operation[] = [
  operation({
    id: "listWebhookEndpoints",
    summary: "Your webhook endpoints",
    description: "Every webhook endpoint of yours, newest first, without secrets.",
    tag: "Webhooks",
    auth: "seller",
    sellerScope: "webhooks",
    http: { method: "GET", path: "/api/v1/webhooks" },
    output: z.object({ endpoints: z.array(endpointSchema) }),
    errors: [401, 403],
    handler: async (_i, c) => ({ endpoints: await listEndpoints(c.seller.developer.id) }),
  }),
  operation({
    id: "createWebhookEndpoint",
    summary: "Add a webhook endpoint",
    description: `Events are POSTed to the URL signed as Standard Webhooks specifies (headers webhook-id, webhook-timestamp, webhook-signature; verify with the standardwebhooks library and the secret in this answer, shown once). \`events\` filters the types; empty means all. At most ${MAX_ENDPOINTS} endpoints (409 \`webhook_endpoint_limit\`). ${TARGET_RULES}`,
    tag: "Webhooks",
    auth: "seller",
    sellerScope: "webhooks",
    http: { method: "POST", path: "/api/v1/webhooks", status: 201 },
    input: { body: createEndpointInputSchema },
    output: z.object({ endpoint: withSecret }),
    errors: [401, 403, 409],
    handler: async (b, c) => ({ endpoint: await createEndpoint(c.seller.developer.id, b) }),
  }),
  operation({
    id: "getWebhookEndpoint",
    summary: "A webhook endpoint",
    tag: "Webhooks",
    auth: "seller",
    sellerScope: "webhooks",
    http: { method: "GET", path: "/api/v1/webhooks/{id}" },
    input: { params: endpointParamsSchema },
    output: z.object({ endpoint: endpointSchema }),
    errors: [401, 403, 404],
    handler: async (p, c) => ({ endpoint: await getEndpoint(c.seller.developer.id, p.id) }),
  }),
  operation({
    id: "updateWebhookEndpoint",
    summary: "Change a webhook endpoint",
    description: `Any of url, description, events, enabled. \`enabled: false\` pauses it (events are not queued for it meanwhile; deliveries still pending settle as failed, not sent); \`enabled: true\` re-enables it and resets its failure streak. A new URL is checked: ${TARGET_RULES}`,
    tag: "Webhooks",
    auth: "seller",
    sellerScope: "webhooks",
    http: { method: "PATCH", path: "/api/v1/webhooks/{id}" },
    input: { params: endpointParamsSchema, body: updateEndpointInputSchema },
    output: z.object({ endpoint: endpointSchema }),
    errors: [401, 403, 404],
    handler: async (i, c) => {
      const { id, ...changes } = i;
      return { endpoint: await updateEndpoint(c.seller.developer.id, id, changes) };
    },
  }),
  operation({
    id: "deleteWebhookEndpoint",
    summary: "Delete a webhook endpoint",
    description: "Deliveries still pending for it are settled as failed (not sent).",
    tag: "Webhooks",
    auth: "seller",
    sellerScope: "webhooks",
    http: { method: "DELETE", path: "/api/v1/webhooks/{id}" },
    input: { params: endpointParamsSchema },
    output: z.object({ deleted: z.literal(true) }),
    errors: [401, 403, 404],
    handler: async (p, c) => {
      await deleteEndpoint(c.seller.developer.id, p.id);
      return { deleted: true as const };
    },
  }),
  operation({
    id: "rotateWebhookSecret",
    summary: "Rotate an endpoint's secret",
    description:
      "A new signing secret, shown once in this answer. Every delivery from now on, retries included, is signed with it; the old secret stops verifying at once.",
    tag: "Webhooks",
    auth: "seller",
    sellerScope: "webhooks",
    http: { method: "POST", path: "/api/v1/webhooks/{id}/rotate-secret" },
    input: { params: endpointParamsSchema },
    output: z.object({ endpoint: withSecret }),
    errors: [401, 403, 404],
    handler: async (p, c) => ({ endpoint: await rotateEndpointSecret(c.seller.developer.id, p.id) }),
  }),
  operation({
    id: "sendWebhookTestEvent",
    summary: "Send a test event",
    description:
      "Queues a `webhook.test` event to this endpoint only (whatever its filter); it appears in the delivery log. 409 `webhook_endpoint_disabled` while the endpoint is disabled. Test events and redeliveries together are limited per seller (RATE_LIMIT_WEBHOOK_SEND_PER_MIN, 10 a minute by default): 429 `rate_limited` with Retry-After beyond it.",
    tag: "Webhooks",
    auth: "seller",
    sellerScope: "webhooks",
    http: { method: "POST", path: "/api/v1/webhooks/{id}/test", status: 202 },
    callerLimits: (_p, c) => [[RULES.webhookSend, c.seller.developer.id]],
    input: { params: endpointParamsSchema },
    output: z.object({ delivery: deliverySchema }),
    errors: [401, 403, 404, 409, 429],
    handler: async (p, c) => ({ delivery: await sendTestEvent(c.seller.developer.id, p.id) }),
  }),
  operation({
    id: "listEndpointDeliveries",
    summary: "An endpoint's deliveries",
    description:
      "Its delivery log, newest first: event type, status, attempts, the last HTTP status, response time and error, and when the next attempt is due. Page with `cursor` = the previous page's `next_cursor`.",
    tag: "Webhooks",
    auth: "seller",
    sellerScope: "webhooks",
    http: { method: "GET", path: "/api/v1/webhooks/{id}/deliveries" },
    input: { params: endpointParamsSchema, query: deliveriesQuerySchema },
    output: z.object({ deliveries: z.array(deliverySchema), next_cursor: z.string().nullable() }),
    errors: [401, 403, 404],
    handler: async (i, c) => listEndpointDeliveries(c.seller.developer.id, i.id, { limit: i.limit, ...(i.cursor ? { cursor: i.cursor } : {}) }),
  }),
  operation({
    id: "getWebhookDelivery",
    summary: "A delivery with its attempts",
    description: "One delivery: its exact payload and every attempt (when, HTTP status or null, duration in ms, error).",
    tag: "Webhooks",
    auth: "seller",
    sellerScope: "webhooks",
    http: { method: "GET", path: "/api/v1/webhooks/deliveries/{delivery_id}" },
    input: { params: deliveryParamsSchema },
    output: z.object({ delivery: deliveryDetailSchema }),
    errors: [401, 403, 404],
    handler: async (p, c) => ({ delivery: await getDelivery(c.seller.developer.id, p.delivery_id) }),
  }),
  operation({
    id: "redeliverWebhook",
    summary: "Redeliver",
    description:
      "Queues the same message again (same webhook-id and body, a fresh signature and timestamp, a fresh set of retries; the attempt log keeps the earlier attempts). Only a sent or failed delivery: while it is pending, 409 `webhook_delivery_pending` (a double click sends once). 409 `webhook_endpoint_disabled` while the endpoint is disabled. Limited with test events, per seller (429 beyond RATE_LIMIT_WEBHOOK_SEND_PER_MIN).",
    tag: "Webhooks",
    auth: "seller",
    sellerScope: "webhooks",
    http: { method: "POST", path: "/api/v1/webhooks/deliveries/{delivery_id}/redeliver", status: 202 },
    callerLimits: (_p, c) => [[RULES.webhookSend, c.seller.developer.id]],
    input: { params: deliveryParamsSchema },
    output: z.object({ delivery: deliverySchema }),
    errors: [401, 403, 404, 409, 429],
    handler: async (p, c) => ({ delivery: await redeliver(c.seller.developer.id, p.delivery_id) }),
  }),
];
