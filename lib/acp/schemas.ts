import { z } from "zod";
import { MAX_QUANTITY } from "../checkout/schemas.ts";
import { ACP_API_VERSION } from "./version.ts";

/**
 * Input and output schemas of the ACP checkout session endpoints (openapi.agentic_checkout.yaml, version 2026-04-17).
 * Requests follow the official JSON Schemas: the fields we act on are checked closely (items, buyer, discount codes,
 * payment data); the ones the protocol lets an agent send that a seller of licenses has no use for (fulfilment
 * addresses, attribution, risk signals, consents) are accepted as objects, bounded in size, and kept or ignored. The
 * tool schemas MCP publishes are these, inlined (no `$ref`), as the ACP MCP binding asks.
 */

const text = (max: number) => z.string().trim().max(max);
/** A free-form object the protocol defines and we only keep or ignore. */
const opaque = (what: string) => z.record(z.string().max(100), z.unknown()).describe(what);

export const sessionIdSchema = z
  .string()
  .regex(/^acs_[A-Za-z0-9]{24}$/, "must be a checkout session id (acs_ and 24 letters or digits)")
  .describe("The checkout session id (acs_…) from create");

export const sessionParamsSchema = z.object({ checkout_session_id: sessionIdSchema });

/** The ACP binding's `meta` (the HTTP headers as tool arguments); unknown fields are allowed and ignored, as the binding says. */
export const acpMetaSchema = z
  .looseObject({
    api_version: z.string().max(32).describe(`The ACP version you speak: "${ACP_API_VERSION}" (REST: the API-Version header)`),
    idempotency_key: z
      .string()
      .regex(/^[\x21-\x7e]{1,255}$/, "must be 1 to 255 printable ASCII characters without spaces")
      .optional()
      .describe("A fresh UUID per new request, the same one when retrying (REST: Idempotency-Key)"),
    request_id: z.string().max(255).optional().describe("Your correlation id (REST: Request-Id)"),
  })
  .describe("Protocol metadata, as the ACP MCP binding maps HTTP headers");

const itemSchema = z
  .strictObject({
    id: z.string().trim().min(1).max(64).describe("The product id, as browse_marketplace and the catalog list it"),
    name: text(200).optional().describe("Ignored: the product's own name is used"),
    unit_amount: z.int().optional().describe("Ignored: the listed price is authoritative"),
    quantity: z
      .int()
      .min(1)
      .max(MAX_QUANTITY)
      .optional()
      .describe(
        `Seats (default 1; more than 1, up to ${MAX_QUANTITY} in all, only for per-seat and per-user products). Repeating the same id adds up.`,
      ),
  })
  .describe("ACP Item: one product");

const buyerSchema = z
  .looseObject({
    email: z.email().max(254).describe("Where the license key and the receipt are sent; required before payment"),
    first_name: text(100).optional(),
    last_name: text(100).optional(),
    full_name: text(200).optional(),
    phone_number: text(40).optional(),
  })
  .describe("ACP Buyer");

const discountsSchema = z
  .strictObject({
    codes: z.array(z.string().trim().min(1).max(64)).max(10).describe("Discount codes (the seller's coupons); the first usable one applies"),
  })
  .describe("ACP discount extension: the codes to apply (replaces the ones sent before)");

const itemsSchema = z.array(itemSchema).min(1).max(50);

export const createSessionSchema = z
  .strictObject({
    line_items: itemsSchema.describe("The product to buy: one product per session (repeat its id or give a quantity for more seats)"),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, "must be an ISO 4217 code")
      .transform((s) => s.toLowerCase())
      .describe("ISO 4217; must be the product's currency (see the catalog)"),
    capabilities: opaque("ACP Capabilities the agent supports (interventions, extensions)").optional(),
    buyer: buyerSchema.optional(),
    discounts: discountsSchema.optional(),
    coupons: z.array(z.string().trim().min(1).max(64)).max(10).optional().describe("Older name for discounts.codes"),
    fulfillment_details: opaque("Ignored: the license is delivered by e-mail to the buyer and in the order").optional(),
    fulfillment_groups: z.array(opaque("Ignored")).max(10).optional(),
    affiliate_attribution: opaque("Kept with the session (attribution)").optional(),
    locale: text(35).optional(),
    timezone: text(64).optional(),
    quote_id: text(128).optional(),
    metadata: opaque("Kept with the session").optional(),
    order_notes: text(5000).optional(),
  })
  .describe("ACP CheckoutSessionCreateRequest");
export type CreateSessionRequest = z.infer<typeof createSessionSchema>;

export const updateSessionSchema = z
  .strictObject({
    buyer: buyerSchema.optional(),
    line_items: itemsSchema.optional().describe("Replaces the product and seats"),
    discounts: discountsSchema.optional(),
    coupons: z.array(z.string().trim().min(1).max(64)).max(10).optional().describe("Older name for discounts.codes"),
    fulfillment_details: opaque("Ignored: digital delivery").optional(),
    fulfillment_groups: z.array(opaque("Ignored")).max(10).optional(),
    selected_fulfillment_options: z
      .array(z.looseObject({ type: z.string().max(32), option_id: z.string().max(64).optional() }))
      .max(10)
      .optional()
      // The ACP MCP binding's own example nests the option ({type: "shipping", shipping: {option_id, item_ids}}), unlike
      // the JSON Schema; either is accepted, and neither changes anything.
      .describe("Ignored: only the digital option exists, and it is always selected"),
    order_notes: text(5000).optional(),
  })
  .describe("ACP CheckoutSessionUpdateRequest");
export type UpdateSessionRequest = z.infer<typeof updateSessionSchema>;

const paymentDataSchema = z
  .looseObject({
    handler_id: z.string().max(64).optional().describe("The id of one of the session's capabilities.payment.handlers"),
    instrument: z
      .looseObject({
        type: z.string().max(64).describe('"card"'),
        credential: z
          .looseObject({
            type: z.string().max(64).describe('"spt" (a Stripe Shared Payment Token) or "vt" (a test vault token)'),
            token: z.string().min(1).max(255).describe("The delegated payment token: vt_… from delegate_payment (test mode) or spt_… (Stripe)"),
          })
          .describe("The delegated credential"),
      })
      .optional(),
    billing_address: opaque("ACP Address").optional(),
    purchase_order_number: z.string().max(128).optional().describe("Not accepted: pay with a delegated token"),
  })
  .describe("ACP PaymentData");

export const completeSessionSchema = z
  .strictObject({
    payment_data: paymentDataSchema,
    buyer: buyerSchema.optional(),
    authentication_result: opaque("Not used: no 3-D Secure step is required").optional(),
    affiliate_attribution: opaque("Kept with the order's session").optional(),
    risk_signals: opaque("ACP RiskSignals").optional(),
    marketing_consents: z.array(opaque("ACP MarketingConsent")).max(10).optional(),
    order_notes: text(5000).optional(),
  })
  .describe("ACP CheckoutSessionCompleteRequest");
export type CompleteSessionRequest = z.infer<typeof completeSessionSchema>;

export const cancelSessionSchema = z
  .strictObject({
    intent_trace: z
      .looseObject({
        reason_code: z.string().max(64),
        trace_summary: z.string().max(500).optional(),
        metadata: z.record(z.string().max(100), z.union([z.string().max(500), z.number(), z.boolean()])).optional(),
      })
      .optional()
      .describe("ACP IntentTrace: why the buyer stopped (kept with the session)"),
  })
  .describe("ACP CancelSessionRequest");

const total = z.object({ type: z.string(), display_text: z.string(), amount: z.int() });
const message = z.looseObject({
  type: z.enum(["info", "warning", "error"]),
  content_type: z.enum(["plain", "markdown"]),
  content: z.string(),
  code: z.string().optional(),
  param: z.string().optional(),
});

/**
 * ACP `CheckoutSession` / `CheckoutSessionWithOrder`, as far as this service fills it in. The official JSON Schema
 * (schema.agentic_checkout.json) is the full definition; the tests check every answer against it.
 */
export const checkoutSessionSchema = z
  .looseObject({
    id: z.string(),
    protocol: z.object({ version: z.string() }),
    capabilities: z.looseObject({}),
    status: z.enum(["not_ready_for_payment", "ready_for_payment", "in_progress", "completed", "canceled", "expired"]),
    currency: z.string(),
    buyer: z.looseObject({ email: z.string() }).optional(),
    line_items: z.array(z.looseObject({ id: z.string(), item: z.looseObject({ id: z.string() }), quantity: z.int(), totals: z.array(total) })),
    fulfillment_options: z.array(z.looseObject({ type: z.literal("digital"), id: z.string(), title: z.string(), totals: z.array(total) })),
    selected_fulfillment_options: z.array(z.looseObject({})),
    totals: z.array(total),
    messages: z.array(message),
    links: z.array(z.looseObject({ type: z.string(), url: z.string() })),
    discounts: z.looseObject({}).optional(),
    expires_at: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    order: z
      .looseObject({ id: z.string(), checkout_session_id: z.string(), permalink_url: z.string() })
      .optional()
      .describe("Once completed: the ACP Order, its digital fulfilment carrying the license key"),
  })
  .describe("ACP CheckoutSession (with `order` once completed)");
export type AcpCheckoutSessionObject = z.infer<typeof checkoutSessionSchema>;
