import { z } from "zod";
import { emailSchema } from "../licensing/trial-schemas.ts";
import { couponCodeSchema } from "../coupons/schemas.ts";
import { productIdSchema } from "../marketplace/schemas.ts";
import { INTERVALS } from "../subscriptions/plans.ts";
import { licenseKeySchema } from "../licensing/schemas.ts";
import { bundleQuoteSchema } from "../bundles/schemas.ts";

const ORDER_STATUSES = ["open", "paid", "expired", "cancelled", "failed"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

const agentIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:@/+-]+$/, "must be a plain identifier (letters, digits and . _ : @ / + -)")
  .describe("Identifier of the agent placing the order, for attribution");

/**
 * Seats in one purchase, on every path (the Buy form, REST, MCP, ACP): per-seat and per-user products take 1–100;
 * every other product only 1.
 */
export const MAX_QUANTITY = 100;
const quantitySchema = z
  .int()
  .min(1)
  .max(MAX_QUANTITY)
  .describe("Seats to buy (per-seat and per-user products only, 1–100; the license allows max_machines × quantity machines)");
const couponFieldSchema = couponCodeSchema.describe("A discount code of the product's seller (case-insensitive)");
const intervalSchema = z
  .enum(INTERVALS)
  .describe(
    "Subscription products only: billed each month or each year (default: monthly when the product offers it); refused for a product sold once",
  );

export const createCheckoutRequestSchema = z.object({
  product_id: productIdSchema.describe("Product id from the marketplace"),
  buyer_email: emailSchema.describe("Receives the license key"),
  agent_id: agentIdSchema.optional(),
  coupon_code: couponFieldSchema.optional(),
  quantity: quantitySchema.optional(),
  interval: intervalSchema.optional(),
  renew_license_key: licenseKeySchema
    .optional()
    .describe('An "updates_plan" product: renew the updates of this license for another year at the renewal price (no new license is issued)'),
});
export type CreateCheckoutRequest = z.infer<typeof createCheckoutRequestSchema>;

export const checkoutQuoteRequestSchema = z.object({
  product_id: productIdSchema.describe("Product id from the marketplace"),
  coupon_code: couponFieldSchema.optional(),
  quantity: quantitySchema.optional(),
  interval: intervalSchema.optional(),
  buyer_email: emailSchema
    .optional()
    .describe(
      "A bundle that prorates: the buyer, whose active licenses of included products lower the price (as the checkout with this address would). Counted only when the request carries that buyer's My licenses session: an address alone never reveals what it holds",
    ),
  coupon_refusal: z
    .enum(["problem", "inline"])
    .optional()
    .describe(
      '"problem" (the default): a coupon code that cannot be used is 404 coupon_not_found. "inline": the answer is the price without it, with `coupon_refused` saying why (a live price check as the buyer types, which is not an error)',
    ),
});
export type CheckoutQuoteRequest = z.infer<typeof checkoutQuoteRequestSchema>;

export const checkoutQuoteSchema = z.object({
  product_id: z.string(),
  currency: z.string().describe("Lower-case ISO 4217; every amount is in its minor units"),
  unit_price_cents: z.int(),
  quantity: z.int(),
  subtotal_cents: z.int().describe("unit_price_cents × quantity"),
  coupon_code: z.string().nullable(),
  discount_cents: z.int(),
  amount_cents: z.int().describe("What the buyer pays before tax: subtotal_cents − discount_cents"),
  fee_cents: z.int().describe("The platform's 5 % fee on amount_cents (the payment processor's own fees are apart)"),
  max_machines: z.int().describe("Machines the license will allow: the product's max_machines × quantity"),
  tax: z.enum(["calculated_at_checkout", "not_calculated"]).describe("Whether the payment provider adds tax on top at checkout"),
  interval: z.enum(INTERVALS).nullable().describe("A subscription: amount_cents is charged each month or year; null: charged once"),
  trial_days: z.int().describe("A subscription's free days before its first charge (amount_cents is then charged at their end); 0: none"),
  bundle: bundleQuoteSchema.optional(),
  coupon_refused: z
    .object({ code: z.literal("coupon_not_found"), detail: z.string() })
    .optional()
    .describe('With coupon_refusal "inline": the coupon code given cannot be used, and the price is without it'),
});
export type CheckoutQuote = z.infer<typeof checkoutQuoteSchema>;

export const checkoutSessionSchema = z.object({
  url: z.url().describe("Open this URL to pay"),
  session_id: z.string(),
});

export const sessionIdSchema = z.string().regex(/^cs_[A-Za-z0-9]{24}$/, "must be a checkout session id (cs_ followed by 24 letters and digits)");
export const sessionParamsSchema = z.object({ session_id: sessionIdSchema });

export const checkoutStatusSchema = z.object({
  session_id: z.string(),
  status: z.enum(ORDER_STATUSES),
  url: z.url().nullable().describe("Where to pay while the session is open"),
  provider: z.enum(["test", "stripe"]),
  product_id: z.string(),
  product_name: z.string(),
  amount_cents: z.int().describe("What the buyer pays before tax: subtotal_cents − discount_cents"),
  fee_cents: z.int().describe("The platform's 5 % fee, on amount_cents"),
  currency: z.string(),
  quantity: z.int().describe("Seats bought"),
  subtotal_cents: z.int().describe("Unit price × quantity, before the coupon"),
  discount_cents: z.int().describe("Taken off by the coupon"),
  coupon_code: z.string().nullable(),
  tax_cents: z.int().nullable().describe("Tax charged on top of amount_cents; null when not calculated (test mode, tax off, or not paid yet)"),
  buyer_email: z.string(),
  agent_id: z.string().nullable(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  paid_at: z.iso.datetime().nullable(),
  license: z
    .object({
      license_key: z.string(),
      plugin_id: z.string(),
      max_machines: z.int().describe("The product's max_machines × quantity"),
      delivered_to: z.string().describe("The address the key was e-mailed to"),
      email_status: z.enum(["queued", "sent"]),
      receipt_url: z.url(),
    })
    .nullable()
    .describe("Present once the order is paid"),
  success_page: z.url(),
  bundle_licenses: z
    .array(
      z.object({
        product_id: z.string(),
        license_key: z.string(),
        plugin_id: z.string(),
        max_machines: z.int().describe("The included product's max_machines × quantity"),
        receipt_url: z.url(),
      }),
    )
    .optional()
    .describe("A bundle, once paid: one license per included product (license stays null), all e-mailed to buyer_email together"),
});
export type CheckoutStatus = z.infer<typeof checkoutStatusSchema>;
