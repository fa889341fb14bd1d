import { z } from "zod";
import { productIdSchema } from "../marketplace/schemas.ts";

/** A bundle holds this many products: fewer is no bundle (one product sells itself), more is no longer one offer. */
export const BUNDLE_MIN_ITEMS = 2;
export const BUNDLE_MAX_ITEMS = 20;

export const setBundleItemsInputSchema = z.object({
  product_ids: z
    .array(productIdSchema)
    .max(BUNDLE_MAX_ITEMS)
    .refine((ids) => new Set(ids).size === ids.length, "lists a product twice")
    .describe(
      `The products the bundle includes, in the order its page lists them: ${BUNDLE_MIN_ITEMS}–${BUNDLE_MAX_ITEMS} of your listed products, sold once (not by subscription or updates plan), in the bundle's currency, none a bundle itself. An empty list makes the product an ordinary product again.`,
    ),
  prorate: z
    .boolean()
    .default(false)
    .describe(
      "A buyer who already holds active licenses for some included products pays the bundle price less their share (by the items' list prices) and gets licenses only for the others",
    ),
});
export type SetBundleItemsInput = z.infer<typeof setBundleItemsInputSchema>;

const bundleItemSchema = z.object({
  product_id: z.string(),
  name: z.string(),
  status: z.string().describe('The included product\'s listing status; a bundle sells only while every item is "active"'),
  price_cents: z.int().describe("The item's own list price, in the bundle's currency"),
  max_machines: z.int().describe("Machines each license of this item allows per seat bought"),
});

export const bundleSchema = z.object({
  product_id: z.string(),
  is_bundle: z.boolean(),
  prorate: z.boolean(),
  price_cents: z.int().describe("The bundle's price: the product's own price"),
  currency: z.string(),
  list_total_cents: z.int().describe("The sum of the items' list prices"),
  items: z.array(bundleItemSchema),
});
export type Bundle = z.infer<typeof bundleSchema>;

/** What a quote or a checkout says of a bundle's price for this buyer. */
export const bundleQuoteSchema = z
  .object({
    items: z.array(
      z.object({
        product_id: z.string(),
        name: z.string(),
        price_cents: z.int().describe("The item's own list price"),
        held: z.boolean().describe("The buyer already holds an active license for it: no new license, and the price leaves it out"),
      }),
    ),
    list_total_cents: z.int().describe("The sum of the items' list prices"),
    full_price_cents: z.int().describe("The bundle's price for one seat before proration"),
    prorated: z.boolean().describe("The price is reduced for the items the buyer already holds"),
    reduction_cents: z
      .int()
      .describe(
        "Taken off for the items already held, for all seats: bundle price × (held items' list prices ÷ all items' list prices), rounded half up",
      ),
  })
  .describe("A bundle: one license per included product not already held, each with its own machines × the seats bought");
export type BundleQuote = z.infer<typeof bundleQuoteSchema>;
