import { z } from "zod";
import { cancelSession, codesOf, completeSession, createSession, getSession, updateSession, type Agent } from "../acp/checkout-sessions.ts";
import { acpDiscovery, acpDiscoverySchema } from "../acp/discovery.ts";
import {
  acpMetaSchema,
  cancelSessionSchema,
  checkoutSessionSchema,
  completeSessionSchema,
  createSessionSchema,
  sessionIdSchema,
  sessionParamsSchema,
  updateSessionSchema,
  type AcpCheckoutSessionObject,
} from "../acp/schemas.ts";
import { requireApiVersion } from "../acp/version.ts";
import { acpSessionScope, couponTryScope, spendCouponTries } from "../coupons/try-budget.ts";
import { RULES } from "../http/rate-limit.ts";
import { formatPrice } from "../pricing.ts";
import type { HandlerContext, ToolSpec } from "./define.ts";
import { operation } from "./define.ts";

/**
 * The Agentic Commerce Protocol's checkout sessions (version 2026-04-17) under /api/acp, each also an MCP tool as the
 * ACP MCP binding names it (`{meta, id, payload}`), and the discovery document /.well-known/acp.json. The logic is in
 * lib/acp/checkout-sessions.ts; this file only wires transports: the API version from the `API-Version` header (REST)
 * or `meta.api_version` (MCP), Request-Id echoed, the caller's agent platform.
 */

/** What an MCP call adds to the operation's input: the version its meta carried (REST reads the header instead). */
type WithMeta = { meta?: { api_version?: unknown } };

function agentOf(ctx: HandlerContext): Agent {
  return ctx.agent ?? { platformId: null, name: "anonymous agent" };
}

/** The version check every ACP endpoint does before anything else: the header on REST, the tool's meta otherwise (MCP, A2A). */
function protocol(input: WithMeta, ctx: HandlerContext): void {
  requireApiVersion(ctx.transport === "rest" ? ctx.headers : input.meta);
}

/** What the model reads of a session: where it stands and the next step. */
function sessionText(s: AcpCheckoutSessionObject): string {
  const total = s.totals.find((t) => t.type === "total")?.amount ?? 0;
  const item = s.line_items[0];
  const lines = [
    `Checkout session ${s.id}: ${s.status}, ${item ? `${item.quantity} × ${typeof item.name === "string" ? item.name : item.item.id}, ` : ""}total ${formatPrice(total, s.currency)} (no tax added; the platform fee is the seller's).`,
  ];
  const order = s.order as
    { id: string; fulfillments?: Array<{ digital_delivery?: { license_key?: string; activation_instructions?: string } }> } | undefined;
  const delivery = order?.fulfillments?.[0]?.digital_delivery;
  if (s.status === "completed" && order) {
    lines.push(`Order ${order.id}.${delivery?.license_key ? ` License key: ${delivery.license_key}.` : ""}`);
    if (delivery?.activation_instructions) lines.push(delivery.activation_instructions);
  } else if (s.status === "not_ready_for_payment")
    lines.push("Next: update_checkout_session with payload.buyer.email (the key and receipt are e-mailed there).");
  else if (s.status === "ready_for_payment")
    lines.push(
      "Next: get a delegated payment token (test mode: delegate_payment with this session id), then complete_checkout_session with payload.payment_data {handler_id, instrument {type: card, credential {type, token}}}.",
    );
  for (const m of s.messages) if (m.type !== "info") lines.push(`${m.type}${m.code ? ` ${m.code}` : ""}: ${m.content}`);
  return lines.join("\n");
}

/**
 * The binding's `meta` for every tool: api_version required; idempotency_key optional, as the ACP MCP binding has it
 * (REST's Idempotency-Key stays required); unknown fields ignored.
 */
const meta = acpMetaSchema;
/**
 * Why a POST tool may go without meta.idempotency_key (the binding makes it optional; REST requires the header): a call
 * without one is not replay-protected, and nothing it does is harmful twice. Every call still counts against the same
 * limits. create: a second session is an unpaid cart that expires; update: it sets the same state again; cancel: a
 * second is refused (checkout_session_not_cancelable); complete: a session completes once (the claim is one
 * conditional update, the vault token pays once), so a retry is refused (checkout_session_completed, the order in a GET),
 * never a second charge.
 */
const KEY_OPTIONAL =
  "ACP MCP binding: meta.idempotency_key is optional; without it a retry is not replayed, but a session completes (and a token pays) once";
const id = sessionIdSchema.describe("The checkout session id (acs_…)");
const keyOfMeta = (a: Record<string, unknown>) => (a.meta as { idempotency_key?: string } | undefined)?.idempotency_key;
const versionOf = (a: Record<string, unknown>) => ({ api_version: (a.meta as { api_version?: unknown }).api_version });

const ERRORS_COMMON =
  "Errors are ACP Error objects {type, code, message, param}: 400 api_version_required / unsupported_api_version, 400 idempotency_key_required, 422 idempotency_conflict (the key was used with another body), 409 idempotency_in_flight, 401 unauthorized (agent platform key), 404 checkout_session_not_found (also another platform's session).";
const CODES =
  "Discount codes: a code that cannot be used (unknown, expired, used up, or not for this product or currency) is rejected as discount_code_invalid whatever the reason. Every distinct code sent counts against one budget shared with the quote and the hosted checkout, per agent platform (per client address for an anonymous agent) and per session: 30 a minute (RATE_LIMIT_COUPON_TRY_PER_MIN); beyond it 429 rate_limited with Retry-After, and no code is looked up.";
const HEADERS =
  "Headers: API-Version: 2026-04-17 (required), Idempotency-Key on every POST (required), Authorization: Bearer <agent platform key> unless the operator allows anonymous agents, Request-Id (echoed).";

function tool<I>(
  spec: Omit<ToolSpec<I, AcpCheckoutSessionObject>, "layer" | "text" | "idempotencyKey"> & { key?: boolean },
): ToolSpec<I, AcpCheckoutSessionObject> {
  const { key = true, ...rest } = spec;
  return { layer: 4, text: sessionText, ...(key ? { idempotencyKey: keyOfMeta, idempotencyKeyOptional: KEY_OPTIONAL } : {}), ...rest };
}

export const ACP = [
  operation({
    id: "createAcpCheckoutSession",
    summary: "Create an ACP checkout session",
    description: `ACP \`POST /checkout_sessions\`: one product (line_items[].id = the product id; repeat it, or give quantity, for more seats on per-seat products; a second product is 400 multiple_items_not_supported, param $.line_items), in the product's currency, with the buyer (email required before payment) and discount codes (discounts.codes: our sellers' coupons; one applies, the others are listed in discounts.rejected with the extension's reasons). Seats: 1–100, more than 1 only for per-seat and per-user products. Answers 201 with the session: status not_ready_for_payment until the buyer's e-mail is known, then ready_for_payment; totals items_base_amount, discount, subtotal, tax (not calculated: 0), total. The marketplace's 5 % fee is the seller's cost, never added to the total. capabilities.payment.handlers lists what pays here (test mode: test_card with a delegate_payment token; Stripe: stripe_spt with a Shared Payment Token). ${CODES} ${HEADERS} ${ERRORS_COMMON} Also 400 invalid_item_id, quantity_not_allowed, quantity_too_large, currency_mismatch; 503 checkout_not_configured.`,
    tag: "Agentic Commerce",
    auth: "agent",
    http: { method: "POST", path: "/api/acp/checkout_sessions", status: 201, errorFormat: "acp", maxBodyBytes: 32_768 },
    idempotency: "required",
    input: { body: createSessionSchema },
    output: checkoutSessionSchema,
    limits: (_b, c) => [[RULES.checkout, c.client]],
    errors: [401, 404, 409, 422, 429],
    handler: async (input, ctx) => {
      const { meta: m, ...req } = input as typeof input & WithMeta;
      protocol({ meta: m }, ctx);
      spendCouponTries(codesOf(req), [couponTryScope(ctx)]);
      return createSession(req, agentOf(ctx));
    },
    tools: [
      tool({
        name: "create_checkout_session",
        title: "Create a checkout session (ACP)",
        description:
          'ACP create_checkout_session: start buying a product by yourself. Arguments: meta {api_version: "2026-04-17", idempotency_key?: a fresh UUID, the same when retrying (recommended: a retry then returns the first answer)}, payload (ACP CheckoutSessionCreateRequest): line_items [{id: product id from browse_marketplace, quantity?: seats}], currency (the product\'s, e.g. "usd"), buyer {email} (the key is e-mailed there), discounts {codes: [coupon]}?, capabilities {interventions: {supported: []}} (required by the ACP schema: what you can handle). Returns the ACP CheckoutSession; next: delegate_payment (test mode) and complete_checkout_session. A refusal of any ACP tool is a JSON-RPC error -32000 whose data is the ACP Error {type, code, message, param}.',
        args: z.strictObject({ meta, payload: createSessionSchema }),
        toInput: (a) => ({ ...(a.payload as object), meta: versionOf(a) }) as never,
      }),
    ],
  }),
  operation({
    id: "getAcpCheckoutSession",
    summary: "Get an ACP checkout session",
    description: `ACP \`GET /checkout_sessions/{id}\`: the session as it stands, priced now; once completed, with its order (the license key, activation instructions, receipt and credential links in fulfillments[0].digital_delivery). An open session past expires_at shows status expired. Headers: API-Version: 2026-04-17 (required). ${ERRORS_COMMON}`,
    tag: "Agentic Commerce",
    auth: "agent",
    http: { method: "GET", path: "/api/acp/checkout_sessions/{checkout_session_id}", errorFormat: "acp" },
    input: { params: sessionParamsSchema },
    output: checkoutSessionSchema,
    errors: [401, 404, 429],
    handler: async (input, ctx) => {
      protocol(input as WithMeta, ctx);
      return getSession(input.checkout_session_id, agentOf(ctx));
    },
    tools: [
      tool({
        name: "get_checkout_session",
        title: "Get a checkout session (ACP)",
        description:
          'ACP get_checkout_session: the session\'s state, totals and messages; once completed, its order with the license key. Arguments: meta {api_version: "2026-04-17"}, id (acs_…).',
        args: z.strictObject({ meta, id }),
        toInput: (a) => ({ checkout_session_id: a.id, meta: versionOf(a) }) as never,
        key: false,
      }),
    ],
  }),
  operation({
    id: "updateAcpCheckoutSession",
    summary: "Update an ACP checkout session",
    description: `ACP \`POST /checkout_sessions/{id}\`: set the buyer (email), change the seats or the product (line_items), or the discount codes (discounts.codes replaces the previous codes). Only while not_ready_for_payment or ready_for_payment: a completed session is 409 checkout_session_completed, a canceled one 409 checkout_session_canceled, an expired one 409 checkout_session_expired, one being completed 409 checkout_session_in_progress; nothing changes. ${CODES} ${HEADERS} ${ERRORS_COMMON}`,
    tag: "Agentic Commerce",
    auth: "agent",
    http: { method: "POST", path: "/api/acp/checkout_sessions/{checkout_session_id}", errorFormat: "acp", maxBodyBytes: 32_768 },
    idempotency: "required",
    input: { params: sessionParamsSchema, body: updateSessionSchema },
    output: checkoutSessionSchema,
    errors: [401, 404, 409, 422, 429],
    handler: async (input, ctx) => {
      const { meta: m, checkout_session_id, ...req } = input as typeof input & WithMeta;
      protocol({ meta: m }, ctx);
      spendCouponTries(codesOf(req), [couponTryScope(ctx), acpSessionScope(checkout_session_id)]);
      return updateSession(checkout_session_id, req, agentOf(ctx));
    },
    tools: [
      tool({
        name: "update_checkout_session",
        title: "Update a checkout session (ACP)",
        description:
          'ACP update_checkout_session: give the buyer\'s e-mail, change seats or discount codes. Arguments: meta {api_version: "2026-04-17", idempotency_key?}, id (acs_…), payload (ACP CheckoutSessionUpdateRequest): buyer {email}?, line_items?, discounts {codes}?. Send discount codes only when the buyer gave them: each one counts against 30 codes a minute (429 rate_limited beyond), and a code that cannot be used is rejected as discount_code_invalid whatever the reason.',
        args: z.strictObject({ meta, id, payload: updateSessionSchema }),
        toInput: (a) => ({ ...(a.payload as object), checkout_session_id: a.id, meta: versionOf(a) }) as never,
      }),
    ],
  }),
  operation({
    id: "completeAcpCheckoutSession",
    summary: "Complete an ACP checkout session (pay; the order carries the license key)",
    description: `ACP \`POST /checkout_sessions/{id}/complete\`: pays with a delegated token — payment_data {handler_id (test_card in test mode, stripe_spt with Stripe), instrument {type: card, credential {type: vt|spt, token}}} — and returns the session completed with its order: fulfillments[0].digital_delivery has the license_key, activation_instructions, receipt_url and credential_url. The buyer (email) may be given here if not before. Racing completes make exactly one order: the others get 409 checkout_session_in_progress (retry the GET) or checkout_session_completed. A canceled session is 409 checkout_session_canceled; a failed payment leaves the session ready_for_payment. Only the total last shown is charged: when the total would differ from the one the last create, update or GET returned (a coupon used up meanwhile, a price change), 409 checkout_session_total_changed, nothing is charged, and the session stays ready_for_payment: GET it (or update it) to see and confirm the new total, then complete again. Payment refusals: 400 payment_handler_unsupported, payment_provider_mismatch, payment_token_invalid; 409 payment_token_used; 422 payment_token_expired, payment_token_wrong_session, payment_token_over_allowance; 402 payment_declined; 502 payment_provider_unavailable. ${HEADERS} ${ERRORS_COMMON}`,
    tag: "Agentic Commerce",
    auth: "agent",
    http: { method: "POST", path: "/api/acp/checkout_sessions/{checkout_session_id}/complete", errorFormat: "acp", maxBodyBytes: 32_768 },
    idempotency: "required",
    input: { params: sessionParamsSchema, body: completeSessionSchema },
    output: checkoutSessionSchema,
    limits: (_b, c) => [[RULES.checkout, c.client]],
    errors: [401, 402, 404, 409, 422, 429, 502],
    handler: async (input, ctx) => {
      const { meta: m, checkout_session_id, ...req } = input as typeof input & WithMeta;
      protocol({ meta: m }, ctx);
      return completeSession(checkout_session_id, req, agentOf(ctx));
    },
    tools: [
      tool({
        name: "complete_checkout_session",
        title: "Pay and complete a checkout session (ACP)",
        description:
          'ACP complete_checkout_session: pay with a delegated token and get the order, whose fulfillments[0].digital_delivery carries the license key and activation instructions. Arguments: meta {api_version: "2026-04-17", idempotency_key?}, id (acs_…), payload (ACP CheckoutSessionCompleteRequest): payment_data {handler_id: from the session\'s capabilities.payment.handlers (test mode: "test_card"), instrument {type: "card", credential {type: "vt", token: the vt_… token from delegate_payment}}}, buyer {email}? if not given before.',
        args: z.strictObject({ meta, id, payload: completeSessionSchema }),
        toInput: (a) => ({ ...(a.payload as object), checkout_session_id: a.id, meta: versionOf(a) }) as never,
      }),
    ],
  }),
  operation({
    id: "cancelAcpCheckoutSession",
    summary: "Cancel an ACP checkout session",
    description: `ACP \`POST /checkout_sessions/{id}/cancel\`: the session becomes canceled (an optional intent_trace says why). A completed or already canceled session is 405 checkout_session_not_cancelable, one being completed 409 checkout_session_in_progress; nothing changes. ${HEADERS} ${ERRORS_COMMON}`,
    tag: "Agentic Commerce",
    auth: "agent",
    http: { method: "POST", path: "/api/acp/checkout_sessions/{checkout_session_id}/cancel", errorFormat: "acp", maxBodyBytes: 16_384 },
    idempotency: "required",
    input: { params: sessionParamsSchema, body: cancelSessionSchema },
    output: checkoutSessionSchema,
    errors: [401, 404, 405, 409, 422, 429],
    handler: async (input, ctx) => {
      const { meta: m, checkout_session_id, intent_trace } = input as typeof input & WithMeta;
      protocol({ meta: m }, ctx);
      return cancelSession(checkout_session_id, intent_trace, agentOf(ctx));
    },
    tools: [
      tool({
        name: "cancel_checkout_session",
        title: "Cancel a checkout session (ACP)",
        description:
          'ACP cancel_checkout_session: give up a session that is not completed. Arguments: meta {api_version: "2026-04-17", idempotency_key?}, id (acs_…), payload? (ACP CancelSessionRequest: intent_trace {reason_code, trace_summary?}).',
        args: z.strictObject({ meta, id, payload: cancelSessionSchema.optional() }),
        toInput: (a) => ({ ...((a.payload as object | undefined) ?? {}), checkout_session_id: a.id, meta: versionOf(a) }) as never,
      }),
    ],
  }),
  operation({
    id: "getAcpDiscovery",
    summary: "ACP discovery document",
    description:
      "`/.well-known/acp.json` (ACP discovery): the protocol version (2026-04-17), the REST base URL (<BASE_URL>/api/acp), the transports (rest, and mcp: the checkout tools on /api/mcp), the services (checkout, orders, and delegate_payment in test mode) and currencies. Public, cached for an hour.",
    tag: "Agentic Commerce",
    auth: "public",
    http: { method: "GET", path: "/.well-known/acp.json", cache: "public, max-age=3600" },
    output: acpDiscoverySchema,
    handler: () => acpDiscovery(),
  }),
];
