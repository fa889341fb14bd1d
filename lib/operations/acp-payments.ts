import { z } from "zod";
import { delegatePayment, delegatePaymentRequestSchema, delegatePaymentResponseSchema, MAX_ALLOWANCE_MS } from "../acp/delegate-payment.ts";
import { testCardList } from "../acp/test-cards.ts";
import { requireApiVersion } from "../acp/version.ts";
import { RULES } from "../http/rate-limit.ts";
import type { Operation } from "./define.ts";
import { operation } from "./define.ts";

/** The ACP binding's `meta` (HTTP headers as tool arguments); fields other than these are ignored, as the binding asks. */
const metaSchema = z
  .looseObject({
    api_version: z.string().max(32).describe("The ACP version you speak: 2026-04-17 (REST: the API-Version header)"),
    idempotency_key: z
      .string()
      .regex(/^[\x21-\x7e]{1,255}$/, "must be 1 to 255 printable ASCII characters without spaces")
      // Left out, the operation refuses the call as idempotency_key_required, one of the delegate payment Error codes.
      .optional()
      .describe("Required: a fresh UUID per new token; the same one when retrying (REST: the Idempotency-Key header)"),
    request_id: z.string().max(255).optional(),
  })
  .describe("Protocol metadata, as the ACP MCP binding maps HTTP headers");

/** The MCP tool's arguments become the operation's input: the payload, with the API version the meta carried. */
type ToolInput = z.infer<typeof delegatePaymentRequestSchema> & { meta?: { api_version?: unknown } };

const HOURS = MAX_ALLOWANCE_MS / 3_600_000;

/** The Agentic Commerce Protocol's delegated payments: the built-in test vault (lib/acp/delegate-payment.ts). */
export const ACP_PAYMENTS: Operation[] = [
  operation({
    id: "delegatePayment",
    summary: "Vault a test card for one ACP checkout session (test mode)",
    description: `ACP \`POST /agentic_commerce/delegate_payment\` (version 2026-04-17) for the built-in TEST-MODE payment provider: vaults a card and returns a token (\`vt_…\`) that pays for the one checkout session named in \`allowance\` (yours, still open, in its currency), once, for at most \`allowance.max_amount\` minor units, until \`allowance.expires_at\` (in the future, at most ${HOURS} hours ahead). Complete the checkout session with it as the payment credential. Headers: \`API-Version: 2026-04-17\` and \`Idempotency-Key\` are required; \`Authorization: Bearer <agent platform key>\` unless the operator allows anonymous agents. Only these test card numbers are accepted (any other number is 422 \`invalid_card\`): ${testCardList()}. The number and CVC are never stored (brand, last four digits and expiry are). Refusals are ACP Error objects whose \`code\` is one of the six the delegate payment schema allows: 422 \`invalid_card\` (Luhn, not a test card, expiry); the idempotency codes as they are; 429 \`too_many_requests\` (type \`rate_limit_exceeded\`); every other refusal is \`invalid_card\` too, with \`param\` naming the field to blame and our own code at the end of \`message\`: 422 (invalid_allowance) for an expiry out of range or a currency not the session's (\`$.allowance.expires_at\`, \`$.allowance.currency\`), 404 (checkout_session_not_found) and 409 (checkout_session_not_open) at \`$.allowance.checkout_session_id\`, 422 (payment_blocked) at \`$.risk_signals\` (a risk signal with action blocked), 400 (invalid_body, invalid_json, api_version_required…). On a deployment that takes real payments with Stripe the test vault is off: 400 (test_vault_unavailable) — pay with a Stripe Shared Payment Token (\`spt_…\`) at complete instead.`,
    tag: "Agentic Commerce",
    auth: "agent",
    http: { method: "POST", path: "/api/acp/agentic_commerce/delegate_payment", status: 201, errorFormat: "acp", maxBodyBytes: 16_384 },
    idempotency: "required",
    input: { body: delegatePaymentRequestSchema },
    output: delegatePaymentResponseSchema,
    limits: (_b, c) => [[RULES.checkout, c.client]],
    errors: [401, 404, 409, 422, 429],
    handler: async (input, ctx) => {
      const { meta, ...req } = input as ToolInput;
      requireApiVersion(ctx.transport === "rest" ? ctx.headers : meta);
      return delegatePayment(req, { platformId: ctx.agent.platformId, idempotencyKey: ctx.idempotencyKey });
    },
    tools: [
      {
        name: "delegate_payment",
        title: "Vault a test card (ACP delegate_payment)",
        layer: 4,
        description: `ACP delegate_payment for this deployment's TEST MODE: vault a test card for one checkout session and get a token (vt_…) to pass as the payment credential of complete_checkout_session. Arguments as the ACP MCP binding: meta {api_version: "2026-04-17", idempotency_key: a fresh UUID, the same when retrying} and payload (ACP DelegatePaymentRequest: payment_method {type: card, card_number_type: fpan, number, exp_month, exp_year, display_card_funding_type, metadata: {}}, allowance {reason: one_time, max_amount (minor units, at least the session's total), currency (the session's), checkout_session_id, merchant_id, expires_at (at most ${HOURS} h ahead)}, risk_signals [{type: card_testing, score: 0, action: authorized}], metadata {}). Test cards: 4242424242424242 pays, 4000000000000002 is declined at complete. With Stripe configured this is refused: pay with a Stripe Shared Payment Token instead.`,
        args: z.strictObject({ meta: metaSchema, payload: delegatePaymentRequestSchema }),
        idempotencyKey: (args) => (args.meta as { idempotency_key?: string } | undefined)?.idempotency_key,
        // Only the version travels with the payload: the idempotency key and request id are not part of the request.
        toInput: (args) => ({ ...(args.payload as object), meta: { api_version: (args.meta as { api_version?: unknown }).api_version } }) as never,
        text: (r) =>
          `Vault token ${r.id} created (${r.created}). Pass it as the payment credential's token when completing the checkout session; it pays once, within its allowance.`,
      },
    ],
  }),
];
