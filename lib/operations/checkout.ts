import { z } from "zod";
import { signedInBuyerEmail } from "../auth/sign-in.ts";
import { webhookAckSchema } from "../api/doc-schemas.ts";
import { createCheckout } from "../checkout/create-checkout.ts";
import { getCheckoutStatus } from "../checkout/get-checkout.ts";
import { quoteCheckout } from "../checkout/quote-checkout.ts";
import { cancelTestCheckout, payTestCheckout } from "../checkout/test-payment.ts";
import {
  checkoutQuoteRequestSchema,
  checkoutQuoteSchema,
  checkoutSessionSchema,
  checkoutStatusSchema,
  type CheckoutStatus,
  createCheckoutRequestSchema,
  sessionParamsSchema,
} from "../checkout/schemas.ts";
import { couponTryScope, spendCouponTries } from "../coupons/try-budget.ts";
import { AppError } from "../http/errors.ts";
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

/**
 * The two checkout stories, told the same way in every tool description: a hosted checkout is for a person to pay;
 * an agent that pays by itself uses the Agentic Commerce Protocol's tools.
 */
const PERSON_PAYS = "For a purchase a person pays for, in a browser.";
const AGENT_PAYS =
  "To pay by yourself (no person, no browser), use the Agentic Commerce Protocol tools instead: create_checkout_session, then delegate_payment, then complete_checkout_session, whose order carries the key.";

type StartedCheckout = z.infer<typeof startedCheckoutSchema>;

/** What purchase_license and agent_checkout both answer (they share the operation, so the same facts as data). */
function startedText(s: StartedCheckout): string {
  return [
    `Checkout ${s.session_id} is open until ${s.expires_at}, for ${formatPrice(s.amount_cents, s.currency)} before tax.`,
    `Give the buyer this URL to pay: ${s.url}`,
    `Once they have paid, get_checkout_status with session_id "${s.session_id}" returns the license key (it is also e-mailed to the buyer); REST: GET ${s.status_url}.`,
  ].join("\n");
}

/** What get_checkout_status tells the model, by state. */
function statusText(s: CheckoutStatus): string {
  const amount = formatPrice(s.amount_cents, s.currency);
  if (s.status === "paid" && s.license) {
    const l = s.license;
    return [
      `Checkout ${s.session_id} for ${s.product_name} is paid (${s.paid_at ?? "time unknown"}), ${amount} before tax.`,
      `License key: ${l.license_key} (plugin_id ${l.plugin_id}, up to ${l.max_machines} machine(s)); e-mailed to ${l.delivered_to} (${l.email_status}).`,
      `Next: activate_license on each machine; get_receipt for a signed receipt.`,
    ].join("\n");
  }
  if (s.status === "paid" && s.bundle_licenses?.length) {
    return [
      `Checkout ${s.session_id} for the bundle ${s.product_name} is paid (${s.paid_at ?? "time unknown"}), ${amount} before tax; one license per included product, e-mailed to ${s.buyer_email}:`,
      ...s.bundle_licenses.map((l) => `- ${l.license_key} (plugin_id ${l.plugin_id}, up to ${l.max_machines} machine(s))`),
      `Next: activate_license with each key on its own product's machines.`,
    ].join("\n");
  }
  if (s.status === "paid") return `Checkout ${s.session_id} for ${s.product_name} is paid; its license is being issued. Ask again in a few seconds.`;
  if (s.status === "open") {
    return s.url
      ? `Checkout ${s.session_id} for ${s.product_name} is open until ${s.expires_at}, waiting for the buyer to pay ${amount} (before tax) at ${s.url}.`
      : `Checkout ${s.session_id} for ${s.product_name} is open but can no longer be paid here; start a new checkout.`;
  }
  return `Checkout ${s.session_id} for ${s.product_name} is ${s.status}; nothing was charged. Start a new checkout to buy.`;
}

/** Buying a license: hosted checkout sessions, their outcome, and the payment provider's events. */
export const CHECKOUT = [
  operation({
    id: "createCheckout",
    summary: "Create a checkout session",
    description:
      "Send an `Idempotency-Key` header (a fresh UUID per purchase) so a retry returns the first session instead of opening another; the same key with a different body is 422 `idempotency_conflict`, and while the first request is still running, 409 `idempotency_in_flight`. Open `url` to pay. On successful payment a key is generated and e-mailed to `buyer_email`; `status_url` reports the outcome. Optional `quantity` (seats, per-seat and per-user products only, else 400 `quantity_not_allowed`) and `coupon_code` (the seller's discount code; refusals: 404 `coupon_not_found` for any code that cannot be used, whether unknown, expired, used up or not for this product or currency, one answer that reveals nothing more; 400 `amount_below_minimum` when the discounted price would be under 0.50 of the currency). Every code tried counts against one budget shared with the quote and the ACP checkout sessions, per client (`RATE_LIMIT_COUPON_TRY_PER_MIN`, 30 a minute): beyond it 429 `rate_limited` with `Retry-After`, and no code is looked up. `amount_cents` is what is charged before tax. A deployment with no payment provider set up answers 503 `checkout_not_configured`.",
    tag: "Checkout",
    auth: "public",
    http: { method: "POST", path: "/api/checkout/create" },
    idempotency: "optional",
    input: { body: createCheckoutRequestSchema },
    output: startedCheckoutSchema,
    limits: (_b, c) => [[RULES.checkout, c.client]],
    errors: [404, 409, 429, 502, 503],
    handler: async (b, c) => {
      spendCouponTries(b.coupon_code ? [b.coupon_code] : [], [couponTryScope(c)]);
      const session = await createCheckout(b, undefined, { signedInBuyer: await signedInBuyerEmail(c.headers.get("cookie")) });
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
        title: "Purchase a license (a person pays)",
        layer: 2,
        description: `${PERSON_PAYS} Starts a hosted checkout for a product: returns a payment URL for the buyer (a person) to open; once they pay, the license key is generated and e-mailed to buyer_email, and get_checkout_status returns it. Optional coupon_code (the seller's discount code) and quantity (seats, for per-seat and per-user products). ${AGENT_PAYS}`,
        args: createCheckoutRequestSchema.omit({ agent_id: true }),
        text: startedText,
      },
      {
        name: "agent_checkout",
        title: "Agent checkout (a person pays)",
        layer: 4,
        description: `${PERSON_PAYS} The same hosted checkout as purchase_license, attributed to your agent_id. Optional coupon_code applies the seller's discount code (case-insensitive; any code that cannot be used is refused as coupon_not_found, and codes tried are limited to 30 a minute per client, shared with quotes and ACP); optional quantity buys that many seats of a per-seat or per-user product (1–100; the license allows max_machines × quantity machines). amount_cents is what the buyer pays before tax. Give the returned url to the buyer; call get_checkout_status with the session_id to learn when it is paid and read the key. ${AGENT_PAYS}`,
        text: startedText,
      },
    ],
  }),
  operation({
    id: "quoteCheckout",
    summary: "Price a purchase",
    description:
      "What a purchase would cost, with the same rules as createCheckout (quantity, coupon, minimum charge) and the same refusals, without opening a checkout or holding the coupon: subtotal, discount, amount before tax, the platform's 5 % fee on it, and the license's max_machines. A coupon code tried here counts against the same per-client budget as checkout and ACP (`RATE_LIMIT_COUPON_TRY_PER_MIN`, 30 a minute; 429 `rate_limited` beyond it).",
    tag: "Checkout",
    auth: "public",
    readOnly: true,
    http: { method: "POST", path: "/api/checkout/quote" },
    input: { body: checkoutQuoteRequestSchema },
    output: checkoutQuoteSchema,
    limits: (_b, c) => [[RULES.checkout, c.client]],
    errors: [404, 409, 429],
    handler: async (b, c) => {
      spendCouponTries(b.coupon_code ? [b.coupon_code] : [], [couponTryScope(c)]);
      const { coupon_refusal, ...request } = b;
      const buyer = await signedInBuyerEmail(c.headers.get("cookie"));
      try {
        return await quoteCheckout(request, undefined, buyer);
      } catch (error) {
        // The product page's live check: a mistyped code is an answer to show, not a failed request.
        if (coupon_refusal !== "inline" || !request.coupon_code || !(error instanceof AppError) || error.code !== "coupon_not_found") throw error;
        const { coupon_code: _refused, ...withoutCoupon } = request;
        return {
          ...(await quoteCheckout(withoutCoupon, undefined, buyer)),
          coupon_refused: { code: "coupon_not_found" as const, detail: error.message },
        };
      }
    },
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
    tools: [
      {
        name: "get_checkout_status",
        title: "Get a checkout's status and license key",
        layer: 4,
        description:
          "The state of a checkout started with purchase_license or agent_checkout: open (waiting for the buyer, with the payment URL), paid (with the license key, its plugin_id and seats, where it was e-mailed and the receipt link), expired, cancelled or failed. Call it after the buyer says they paid; the key is here once the payment is confirmed.",
        args: z.object({ session_id: sessionParamsSchema.shape.session_id.describe("The session_id purchase_license or agent_checkout returned") }),
        text: statusText,
      },
    ],
  }),
  operation({
    id: "stripeWebhook",
    summary: "Stripe webhook",
    description: "Stripe's event deliveries, verified on the raw body with the `Stripe-Signature` header; each event is applied once.",
    tag: "Checkout",
    auth: "public",
    idempotencyExempt: "Stripe signs each event and sends no Idempotency-Key; an event is applied once by its id.",
    // The signature covers the exact bytes Stripe sent, so the body reaches the handler unparsed.
    http: { method: "POST", path: "/api/webhooks/stripe", rawBody: true, maxBodyBytes: 512 * 1024 },
    input: { body: z.looseObject({ id: z.string(), type: z.string() }) },
    output: webhookAckSchema,
    errors: [404],
    handler: (_b, c) => handleStripeWebhook(c.rawBody ?? "", c.headers.get("stripe-signature")),
  }),
  operation({
    id: "payTestCheckout",
    summary: "Pay a checkout in test mode",
    description:
      "Test mode's Pay button on the hosted checkout page: reports the payment as the built-in provider's event, through the path a Stripe webhook takes. Pressing it twice pays once. 409 `checkout_expired`, `checkout_cancelled` or `checkout_failed` for a session that can no longer be paid; refused unless test mode is this deployment's provider.",
    tag: "Checkout",
    auth: "public",
    readOnly: false,
    idempotencyExempt: "the payment event's id is the order's, so a second press records nothing more",
    input: { params: sessionParamsSchema },
    output: z.object({ paid: z.literal(true) }),
    errors: [404, 409, 429],
    handler: async (p) => {
      await payTestCheckout(p.session_id);
      return { paid: true as const };
    },
  }),
  operation({
    id: "cancelTestCheckout",
    summary: "Cancel a checkout in test mode",
    description: "Test mode's cancel link: an open session becomes cancelled and its coupon redemption is given back; a paid one stays paid.",
    tag: "Checkout",
    auth: "public",
    readOnly: false,
    idempotencyExempt: "cancelling a cancelled or paid session changes nothing",
    input: { params: sessionParamsSchema },
    output: z.object({ cancelled: z.literal(true) }),
    errors: [404, 429],
    handler: async (p) => {
      await cancelTestCheckout(p.session_id);
      return { cancelled: true as const };
    },
  }),
];
