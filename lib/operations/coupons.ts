import { z } from "zod";
import { createCoupon, deactivateCoupon, listCoupons } from "../coupons/manage-coupons.ts";
import { couponParamsSchema, couponSchema, createCouponInputSchema } from "../coupons/schemas.ts";
import { operation, type Operation } from "./define.ts";

/**
 * The seller's discount codes, with the dashboard's session cookie: list, create, deactivate. Buyers apply a code at
 * checkout (createCheckout's coupon_code); another seller's coupon is a 404.
 */
export const COUPONS: Operation[] = [
  operation({
    id: "listCoupons",
    summary: "Your coupons",
    description: "Your discount codes, newest first, with how many paid orders and open checkouts hold each.",
    tag: "Coupons",
    auth: "seller",
    sellerScope: "products",
    http: { method: "GET", path: "/api/v1/coupons" },
    output: z.object({ coupons: z.array(couponSchema) }),
    errors: [401, 403],
    handler: async (_i, c) => ({ coupons: await listCoupons(c.seller.developer.id) }),
  }),
  operation({
    id: "createCoupon",
    summary: "Create a coupon",
    description:
      "A percent (1–100) or amount (minor units in the product's currency) discount, optionally expiring, limited to a number of redemptions, and scoped to some of your products (empty: all). Codes are case-insensitive and stored upper case; a code you already have is 409 `coupon_code_taken`.",
    tag: "Coupons",
    auth: "seller",
    sellerScope: "products",
    http: { method: "POST", path: "/api/v1/coupons", status: 201 },
    input: { body: createCouponInputSchema },
    output: z.object({ coupon: couponSchema }),
    errors: [401, 403, 409],
    handler: async (b, c) => ({ coupon: await createCoupon(c.seller.developer.id, b) }),
    tools: [
      {
        name: "seller_create_coupon",
        title: "Create a coupon",
        layer: 6,
        description:
          "Creates a discount code for your products: kind percent with percent_off (1–100), or kind amount with amount_off_cents and currency. Optional: expires_at (ISO 8601), max_redemptions, product_ids (empty: all your products). Codes are case-insensitive; a code you already have is the error coupon_code_taken. Buyers enter the code at checkout.",
        // The body's own schema, refinements included (percent needs percent_off, amount needs amount and currency).
        args: createCouponInputSchema,
        text: ({ coupon: k }) =>
          `Created coupon ${k.code} (${k.id}): ${k.kind === "percent" ? `${k.percent_off} % off` : `${k.amount_off_cents} minor units of ${k.currency?.toUpperCase()} off`}${k.product_ids.length ? ` on ${k.product_ids.join(", ")}` : " on all your products"}${k.expires_at ? `, until ${k.expires_at}` : ""}${k.max_redemptions ? `, at most ${k.max_redemptions} uses` : ""}.`,
      },
    ],
  }),
  operation({
    id: "deactivateCoupon",
    summary: "Deactivate a coupon",
    description: "Buyers can no longer apply it; checkouts already holding it keep their price. Idempotent.",
    tag: "Coupons",
    auth: "seller",
    sellerScope: "products",
    http: { method: "POST", path: "/api/v1/coupons/{id}/deactivate" },
    input: { params: couponParamsSchema },
    output: z.object({ coupon: couponSchema }),
    errors: [401, 403, 404],
    handler: async (p, c) => ({ coupon: await deactivateCoupon(c.seller.developer.id, p.id) }),
  }),
];
