import { z } from "zod";
import { productIdSchema } from "../marketplace/schemas.ts";
import { SUPPORTED_CURRENCIES } from "../pricing.ts";

/**
 * A coupon code as buyers type it: 3–32 of A–Z, 0–9, "-" and "_", any case. Codes are stored upper case, and a code
 * typed in lower case finds the same coupon.
 */
export const couponCodeSchema = z
  .string()
  .trim()
  .min(3, "must be 3 to 32 characters")
  .max(32, "must be 3 to 32 characters")
  .regex(/^[A-Za-z0-9_-]+$/, "must be letters, digits, - and _ only")
  .transform((c) => c.toUpperCase());

const COUPON_KINDS = ["percent", "amount"] as const;
const COUPON_DURATIONS = ["once", "forever", "repeating"] as const;

/** What a seller sends to create a coupon (dashboard form and API share it). */
export const createCouponInputSchema = z
  .object({
    code: couponCodeSchema.describe("The code buyers enter; stored upper case, unique among your coupons"),
    kind: z.enum(COUPON_KINDS).describe("percent: percent_off of the price; amount: amount_off_cents in currency"),
    percent_off: z.int().min(1).max(100).optional().describe("1–100, for kind percent"),
    amount_off_cents: z.int().min(1).max(1_000_000).optional().describe("Minor units off, for kind amount"),
    currency: z.enum(SUPPORTED_CURRENCIES).optional().describe("The currency of amount_off_cents (kind amount); the product must be priced in it"),
    expires_at: z.iso.datetime({ offset: true }).nullable().optional().describe("After this instant the code is refused"),
    max_redemptions: z.int().min(1).max(1_000_000).nullable().optional().describe("How many paid or open checkouts may use it"),
    product_ids: z
      .array(productIdSchema)
      .max(100)
      .default([])
      .transform((l) => [...new Set(l)])
      .describe("Your products it applies to; empty means all of them"),
    duration: z
      .enum(COUPON_DURATIONS)
      .default("once")
      .describe(
        'Which charges of a subscription it takes off: "once" (the first), "forever", or "repeating" (those of the first duration_in_months months); a one-time sale has one charge',
      ),
    duration_in_months: z.int().min(1).max(36).optional().describe('For duration "repeating": how many months of charges'),
  })
  .superRefine((c, ctx) => {
    if (c.duration === "repeating" && c.duration_in_months === undefined) {
      ctx.addIssue({ code: "custom", path: ["duration_in_months"], message: 'a "repeating" coupon needs duration_in_months (1–36)' });
    }
    if (c.duration !== "repeating" && c.duration_in_months !== undefined) {
      ctx.addIssue({ code: "custom", path: ["duration_in_months"], message: 'duration_in_months applies only with duration "repeating"' });
    }
    if (c.kind === "percent") {
      if (c.percent_off === undefined) ctx.addIssue({ code: "custom", path: ["percent_off"], message: "a percent coupon needs percent_off (1–100)" });
      if (c.amount_off_cents !== undefined || c.currency !== undefined) {
        ctx.addIssue({ code: "custom", path: ["amount_off_cents"], message: "a percent coupon takes no amount_off_cents or currency" });
      }
    } else {
      if (c.amount_off_cents === undefined)
        ctx.addIssue({ code: "custom", path: ["amount_off_cents"], message: "an amount coupon needs amount_off_cents" });
      if (c.currency === undefined) ctx.addIssue({ code: "custom", path: ["currency"], message: "an amount coupon needs its currency" });
      if (c.percent_off !== undefined) ctx.addIssue({ code: "custom", path: ["percent_off"], message: "an amount coupon takes no percent_off" });
    }
  });
export type CreateCouponInput = z.infer<typeof createCouponInputSchema>;

export const couponParamsSchema = z.object({ id: z.string().regex(/^[a-z0-9]{8,40}$/, "must be a coupon id") });

export const couponSchema = z.object({
  id: z.string(),
  code: z.string(),
  kind: z.enum(COUPON_KINDS),
  percent_off: z.int().nullable(),
  amount_off_cents: z.int().nullable(),
  currency: z.string().nullable(),
  expires_at: z.iso.datetime().nullable(),
  max_redemptions: z.int().nullable(),
  redemptions: z.int().describe("Paid orders plus open checkouts holding the code"),
  product_ids: z.array(z.string()).describe("Empty: every product of yours"),
  duration: z.enum(COUPON_DURATIONS),
  duration_in_months: z.int().nullable(),
  active: z.boolean(),
  created_at: z.iso.datetime(),
});
export type CouponOut = z.infer<typeof couponSchema>;
