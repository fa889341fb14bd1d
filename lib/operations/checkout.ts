import { z } from "zod";
import { webhookAckSchema } from "../api/doc-schemas.ts";
import { createCheckout } from "../checkout/create-checkout.ts";
import { getCheckoutStatus } from "../checkout/get-checkout.ts";
import { quoteCheckout } from "../checkout/quote-checkout.ts";
import {
  checkoutQuoteRequestSchema,
  checkoutQuoteSchema,
  checkoutSessionSchema,
  checkoutStatusSchema,
  createCheckoutRequestSchema,
  sessionParamsSchema,
} from "../checkout/schemas.ts";
import { RULES } from "../http/rate-limit.ts";
import { handleStripeWebhook } from "../payments/stripe-webhook.ts";
import { formatPrice } from "../pricing.ts";
import { absoluteUrl } from "../urls.ts";
import { operation } from "./define.ts";

const startedCheckoutSchema = checkoutSessionSchema.extend({
  status_url: z.url().describe("GET it to learn whether the buyer paid and where the key was sent"),
  expires_at: z.iso.datetime(),
  amount_cents: z.int(),
  currency: z.string(),
});

/** Buying a license: hosted checkout sessions, their outcome, and the payment provider's events. */
export const CHECKOUT = [
  operation({
    id: "createCheckout",
    summary: "Create a checkout session",
    description:
      "Send an `Idempotency-Key` header (a fresh UUID per purchase) so a retry returns the first session instead of opening another; the same key with a different body is 422 `idempotency_conflict`, and while the first request is still running, 409 `idempotency_in_flight`. Open `url` to pay. On successful payment a key is generated and e-mailed to `buyer_email`; `status_url` reports the outcome. Optional `quantity` (seats, per-seat and per-user products only, else 400 `quantity_not_allowed`) and `coupon_code` (the seller's discount code; refusals: 404 `coupon_not_found`, 409 `coupon_expired`, 409 `coupon_exhausted`, 400 `coupon_not_applicable`, 400 `amount_below_minimum` when the discounted price would be under 0.50 of the currency). `amount_cents` is what is charged before tax. A deployment with no payment provider set up answers 503 `checkout_not_configured`.",
    tag: "Checkout",
    auth: "public",
    http: { method: "POST", path: "/api/checkout/create" },
    idempotency: "optional",
    input: { body: createCheckoutRequestSchema },
    output: startedCheckoutSchema,
    limits: (_b, c) => [[RULES.checkout, c.client]],
    errors: [404, 409, 429, 502, 503],
    handler: async (b) => {
      const session = await createCheckout(b);
      const status = await getCheckoutStatus(session.session_id);
      return {
        ...session,
        status_url: absoluteUrl(`/api/checkout/${session.session_id}`),
        expires_at: status.expires_at,
        amount_cents: status.amount_cents,
        currency: status.currency,
      };
    },
    tools: [
      {
        name: "purchase_license",
        title: "Purchase a license",
        layer: 2,
        description:
          "Start buying a license for a product. Returns a payment URL for the buyer to open; when payment succeeds, the license key is generated and e-mailed to buyer_email. Optional coupon_code (the seller's discount code) and quantity (seats, for per-seat and per-user products).",
        args: createCheckoutRequestSchema.omit({ agent_id: true }),
        text: (s) => `Open this URL to pay: ${s.url}\nThe license key is e-mailed to the buyer once payment succeeds; follow up at ${s.status_url}.`,
        readOnly: false,
      },
      {
        name: "agent_checkout",
        title: "Agent checkout",
        layer: 4,
        description:
          "Create a checkout session on behalf of a buyer, attributed to your agent_id. Optional coupon_code applies the seller's discount code (case-insensitive; a refusal says why: unknown, expired, used up, not for this product or currency); optional quantity buys that many seats of a per-seat or per-user product (1–100; the license allows max_machines × quantity machines). amount_cents is what the buyer pays before tax. Give the returned url to the buyer to pay; poll status_url to learn when it is paid and where the key was sent.",
        text: (s) =>
          `Checkout ${s.session_id} is open until ${s.expires_at}, for ${formatPrice(s.amount_cents, s.currency)} before tax. The buyer pays at: ${s.url}\nFollow up at ${s.status_url}.`,
        readOnly: false,
      },
    ],
  }),
  operation({
    id: "quoteCheckout",
    summary: "Price a purchase",
    description:
      "What a purchase would cost, with the same rules as createCheckout (quantity, coupon, minimum charge) and the same refusals, without opening a checkout or holding the coupon: subtotal, discount, amount before tax, the platform's 5 % fee on it, and the license's max_machines.",
    tag: "Checkout",
    auth: "public",
    http: { method: "POST", path: "/api/checkout/quote" },
    input: { body: checkoutQuoteRequestSchema },
    output: checkoutQuoteSchema,
    limits: (_b, c) => [[RULES.checkout, c.client]],
    errors: [404, 409, 429],
    handler: (b) => quoteCheckout(b),
  }),
  operation({
    id: "getCheckoutStatus",
    summary: "Checkout session status",
    description: "For the agent or app that created a checkout: its status and, once paid, the key and where it was e-mailed.",
    tag: "Checkout",
    auth: "public",
    http: { method: "GET", path: "/api/checkout/{session_id}" },
    input: { params: sessionParamsSchema },
    output: checkoutStatusSchema,
    errors: [404],
    handler: (p) => getCheckoutStatus(p.session_id),
  }),
  operation({
    id: "stripeWebhook",
    summary: "Stripe webhook",
    description: "Stripe's event deliveries, verified on the raw body with the `Stripe-Signature` header; each event is applied once.",
    tag: "Checkout",
    auth: "public",
    // The signature covers the exact bytes Stripe sent, so the body reaches the handler unparsed.
    http: { method: "POST", path: "/api/webhooks/stripe", rawBody: true, maxBodyBytes: 512 * 1024 },
    input: { body: z.looseObject({ id: z.string(), type: z.string() }) },
    output: webhookAckSchema,
    errors: [404],
    handler: (_b, c) => handleStripeWebhook(c.rawBody ?? "", c.headers.get("stripe-signature")),
  }),
];
