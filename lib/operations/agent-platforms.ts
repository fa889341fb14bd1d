import { z } from "zod";
import {
  getOwnWebhook,
  listAgentPlatforms,
  ownPlatform,
  platformNameSchema,
  registerAgentPlatform,
  revokeAgentPlatform,
  rotateAgentPlatformSecret,
  rotateOwnWebhookSecret,
  setAgentPlatformWebhook,
  setOwnWebhook,
  webhookUrlSchema,
} from "../acp/platforms.ts";
import { requireApiVersion } from "../acp/version.ts";
import { CONTROL_CHARACTER_MESSAGE, singleLineText } from "../http/input.ts";
import { idParamsSchema, reasonBodySchema } from "../admin/schemas.ts";
import { RULES } from "../http/rate-limit.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { listWebhookDeliveries, retryWebhookDelivery } from "../webhooks/deliveries.ts";
import { operation, type HandlerContext, type Operation } from "./define.ts";

const platformSchema = z.object({
  id: z.string(),
  name: z.string(),
  key_prefix: z.string(),
  webhook_url: z.string().nullable(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  deliveries: z.object({ pending: z.int(), sent: z.int(), failed: z.int(), last_sent_at: z.string().nullable() }),
});
const deliverySchema = z.object({
  id: z.string(),
  platform_id: z.string(),
  platform_name: z.string().nullable(),
  event_type: z.string(),
  order_id: z.string().nullable(),
  url: z.string(),
  status: z.enum(["pending", "sent", "failed"]),
  attempts: z.int(),
  last_status: z.int().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  next_attempt_at: z.string().nullable(),
  sent_at: z.string().nullable(),
});
const webhookSecret = z.string().describe("The HMAC-SHA256 secret of the Merchant-Signature header; shown only in this answer");
/** Delivery ids are cuids: letters and digits. */
const deliveryParams = z.object({ id: z.string().regex(/^[a-z0-9]{10,40}$/, "must be a delivery id") });

const ownWebhookSchema = z.object({
  platform: z.object({ id: z.string(), name: z.string() }),
  webhook_url: z.string().nullable().describe("Where the platform's ACP order events are POSTed; null: none are sent"),
  events: z.array(z.enum(["order_create", "order_update"])).describe("The ACP order events sent there, signed with Merchant-Signature"),
  deliveries: platformSchema.shape.deliveries.describe("This platform's webhook deliveries by status, and when one last got through"),
});

/** The platform's own calls: a registered platform's key (an anonymous agent has no settings), the ACP version first. */
function platformOf(ctx: HandlerContext & { agent: { platformId: string | null } }): string {
  const id = ownPlatform(ctx.agent);
  requireApiVersion(ctx.headers);
  return id;
}

const OWN_WEBHOOK_RULES =
  "The URL is under the seller webhooks' rules: https (http only outside production or with WEBHOOK_ALLOW_PRIVATE=on), no user name or password, and a host that is not, and does not resolve to, a private, loopback, link-local or otherwise non-public address unless the operator set WEBHOOK_ALLOW_PRIVATE=on (outside production a receiver on this machine, http://localhost or 127.0.0.1, is accepted too); anything else is 400 `webhook_target_refused` naming why. Each delivery checks the address again and connects to the address it checked.";

/**
 * An agent platform's own webhook, with its own key (`Authorization: Bearer acpk_…`): where its ACP order events go
 * and the secret that signs them. Not part of the ACP specification: ACP's error objects and `API-Version` header as
 * the ACP endpoints beside them. Limited per platform (the default per caller). Not MCP tools.
 */
const OWN_WEBHOOK: Operation[] = [
  operation({
    id: "getOwnAgentPlatformWebhook",
    summary: "Your platform's webhook",
    description:
      "An agent platform reads where its ACP order events (`order_create`, `order_update`) are POSTed and how its deliveries fare; never the secret. Needs the platform's key and `API-Version`.",
    tag: "Agentic Commerce",
    auth: "agent",
    http: { method: "GET", path: "/api/acp/platform/webhook", errorFormat: "acp" },
    output: ownWebhookSchema,
    errors: [400, 401],
    handler: (_i, c) => getOwnWebhook(platformOf(c)),
  }),
  operation({
    id: "setOwnAgentPlatformWebhook",
    summary: "Set or clear your platform's webhook URL",
    description: `An agent platform sets where its ACP order events are POSTed, signed with \`Merchant-Signature\` (HMAC-SHA256 with its webhook secret); \`null\` stops sending. Deliveries still pending go to the new URL. ${OWN_WEBHOOK_RULES}`,
    tag: "Agentic Commerce",
    auth: "agent",
    http: { method: "PUT", path: "/api/acp/platform/webhook", errorFormat: "acp" },
    input: {
      body: z
        .object({
          webhook_url: z
            .string()
            .trim()
            .min(1)
            .max(8192)
            .refine(singleLineText, CONTROL_CHARACTER_MESSAGE)
            .nullable()
            .describe("The https URL to POST order events to; null to stop"),
        })
        .strict(),
    },
    output: ownWebhookSchema,
    // Each new URL is resolved and checked: per platform, as tight as a seller's webhook test events.
    callerLimits: (_i, c) => [[RULES.webhookSend, `agent:${c.agent.platformId ?? c.client}`]],
    errors: [401, 409],
    handler: (i, c) => setOwnWebhook(platformOf(c), i.webhook_url),
  }),
  operation({
    id: "rotateOwnAgentPlatformWebhookSecret",
    summary: "Rotate your platform's webhook secret",
    description:
      "A new signing secret (`webhook_secret`), in this answer only: every delivery from now on (retries of older events too) is signed with it, so accept both secrets while switching over. A retry with the same `Idempotency-Key` gets this same answer for 24 h; a new key rotates again.",
    tag: "Agentic Commerce",
    auth: "agent",
    http: { method: "POST", path: "/api/acp/platform/webhook/rotate", errorFormat: "acp" },
    output: ownWebhookSchema.extend({ webhook_secret: webhookSecret }),
    errors: [400, 401, 409],
    handler: (_i, c) => rotateOwnWebhookSecret(platformOf(c)),
  }),
];

/**
 * The operator's agent platforms (ADMIN_EMAILS only; anyone else gets a 404): the Bearer keys agents call the Agentic
 * Commerce Protocol endpoints with, and the webhook each platform's order events go to. Keys and webhook secrets
 * are returned by the call that makes them and never listed; a call that carried an Idempotency-Key (the console's
 * register form does) keeps that answer for its retries, in the idempotency table, for 24 h. Every write records an
 * audit entry in its own transaction. Not MCP tools.
 */
export const AGENT_PLATFORMS: Operation[] = [
  operation({
    id: "listAgentPlatforms",
    summary: "Agent platforms",
    description: "Every registered platform, newest first, with its key's prefix, webhook URL and webhook delivery counts; never a key or secret.",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/agent-platforms" },
    output: z.object({ platforms: z.array(platformSchema) }),
    errors: [404],
    handler: async () => ({ platforms: await listAgentPlatforms() }),
  }),
  operation({
    id: "registerAgentPlatform",
    summary: "Register an agent platform",
    description:
      "Issues the platform's Bearer key (`api_key`) and its webhook signing secret (`webhook_secret`). Both are in this answer only: keep them now. Order events of its checkouts are POSTed to `webhook_url` when one is set.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/agent-platforms", status: 201 },
    input: { body: z.object({ name: platformNameSchema, webhook_url: webhookUrlSchema.nullable().optional() }).strict() },
    output: z.object({
      platform: platformSchema,
      api_key: z.string().describe("The platform's Bearer key for the ACP endpoints; shown only in this answer"),
      webhook_secret: webhookSecret,
    }),
    errors: [403, 404],
    handler: (i, c) => registerAgentPlatform(c.admin, i),
  }),
  operation({
    id: "updateAgentPlatform",
    summary: "Set or clear an agent platform's webhook URL",
    description: "Deliveries still pending go to the new URL; `null` stops sending (pending ones then fail).",
    tag: "Admin",
    auth: "admin",
    http: { method: "PATCH", path: "/api/admin/agent-platforms/{id}" },
    input: { params: idParamsSchema, body: z.object({ webhook_url: webhookUrlSchema.nullable() }).strict() },
    output: z.object({ platform: platformSchema }),
    errors: [403, 404, 409],
    handler: async (i, c) => ({ platform: await setAgentPlatformWebhook(c.admin, i.id, i.webhook_url) }),
  }),
  operation({
    id: "rotateAgentPlatformWebhookSecret",
    summary: "Rotate an agent platform's webhook secret",
    description:
      "A new signing secret, in this answer only; every delivery from now on (retries too) is signed with it, so the platform should accept both while it switches.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/agent-platforms/{id}/rotate-secret" },
    input: { params: idParamsSchema },
    output: z.object({ platform: platformSchema, webhook_secret: webhookSecret }),
    errors: [403, 404, 409],
    handler: (i, c) => rotateAgentPlatformSecret(c.admin, i.id),
  }),
  operation({
    id: "revokeAgentPlatform",
    summary: "Revoke an agent platform",
    description:
      "Its key is refused from now on and its pending webhook deliveries are dropped; orders it made stay valid. Final: register the platform again to give it a new key.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/agent-platforms/{id}/revoke" },
    input: { params: idParamsSchema, body: reasonBodySchema.strict() },
    output: z.object({ platform: platformSchema }),
    errors: [403, 404, 409],
    handler: async (i, c) => ({ platform: await revokeAgentPlatform(c.admin, i.id, i.reason) }),
  }),
  operation({
    id: "listWebhookDeliveries",
    summary: "Webhook deliveries to agent platforms",
    description: "Newest first: each order event, where it went, its status, attempts and the last error.",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/agent-platforms/deliveries" },
    input: {
      query: z.object({
        platform_id: idParamsSchema.shape.id.optional(),
        status: z.enum(["pending", "sent", "failed"]).optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50).describe("At most this many rows, newest first (1-200, default 50)"),
      }),
    },
    output: z.object({ deliveries: z.array(deliverySchema) }),
    errors: [404],
    handler: async (q) => ({ deliveries: await listWebhookDeliveries(q) }),
  }),
  operation({
    id: "retryWebhookDelivery",
    summary: "Send a failed webhook delivery again",
    description: "Back to pending with a fresh set of attempts, signed with the platform's current secret and sent to its current URL.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/agent-platforms/deliveries/{id}/retry" },
    input: { params: deliveryParams },
    output: z.object({ delivery: deliverySchema }),
    errors: [403, 404, 409],
    handler: async (i, c) => {
      const delivery = await retryWebhookDelivery(c.admin, i.id);
      kickWebhooks();
      return { delivery };
    },
  }),
  ...OWN_WEBHOOK,
];
