import { z } from "zod";
import { MAX_QUANTITY, checkoutQuoteSchema } from "../checkout/schemas.ts";
import { couponCodeSchema } from "../coupons/schemas.ts";
import { emailSchema } from "../licensing/trial-schemas.ts";
import { productIdSchema } from "../marketplace/schemas.ts";
import { INTERVALS } from "../subscriptions/plans.ts";

/** The end of a link's address: lower-case letters, digits and dashes, as a seller would type it into a URL. */
const linkSlugSchema = z
  .string()
  .trim()
  .min(1, "must be 1 to 64 characters")
  .max(64, "must be 1 to 64 characters")
  .regex(/^[a-z0-9-]+$/, "must be lower-case letters, digits and dashes only")
  .describe("The end of the link's address; lower-case letters, digits and dashes, unique among your links");

const linkNameSchema = z.string().trim().min(1, "must be 1 to 100 characters").max(100, "must be 1 to 100 characters");

/** Ids the database made (cuid): anything else is refused before a lookup. */
const generatedIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "must be an id");

const expiresAtSchema = z.iso
  .datetime({ offset: true })
  .nullable()
  .optional()
  .describe("After this instant the link answers checkout_link_expired (410); null: never");
const maxUsesSchema = z
  .int()
  .min(1)
  .max(1_000_000)
  .nullable()
  .optional()
  .describe("How many purchases the link may make (an open checkout holds one until it closes); null: unlimited");

/** What a seller sends to make a link (dashboard form, seller API and MCP share it). */
export const createCheckoutLinkInputSchema = z.object({
  product_id: productIdSchema.describe("One of your products, listed or unlisted (an unlisted one cannot be bought until you list it)"),
  name: linkNameSchema.describe("Your own name for the link (never shown to buyers), e.g. “Newsletter, March”"),
  slug: linkSlugSchema,
  quantity: z
    .int()
    .min(1)
    .max(MAX_QUANTITY)
    .default(1)
    .describe(`Seats the link sells (per-seat and per-user products only, 1–${MAX_QUANTITY}; every other product only 1)`),
  coupon_code: couponCodeSchema
    .nullable()
    .optional()
    .describe("One of your active coupon codes that applies to this product, applied to every purchase through the link"),
  interval: z.enum(INTERVALS).nullable().optional().describe("Subscription products only: billed each month or year (default: the product's first)"),
  expires_at: expiresAtSchema,
  max_uses: maxUsesSchema,
});
export type CreateCheckoutLinkInput = z.infer<typeof createCheckoutLinkInputSchema>;

/** What a seller may change on a link; the presets that set its price stay as made (make another link instead). */
export const updateCheckoutLinkInputSchema = z.object({
  name: linkNameSchema.optional().describe("Your own name for the link"),
  expires_at: expiresAtSchema,
  max_uses: maxUsesSchema,
  active: z.boolean().optional().describe("false: the link answers checkout_link_not_found (404) to buyers; true: it works again"),
});
export type UpdateCheckoutLinkInput = z.infer<typeof updateCheckoutLinkInputSchema>;

export const checkoutLinkParamsSchema = z.object({ id: generatedIdSchema.describe("The link's id") });

/** A link's public address: the seller's id and the slug. */
export const publicLinkParamsSchema = z.object({
  developer_id: generatedIdSchema.describe("The seller's id"),
  slug: linkSlugSchema,
});
export type PublicLinkParams = z.infer<typeof publicLinkParamsSchema>;

export const startCheckoutLinkBodySchema = z.object({ buyer_email: emailSchema.describe("Receives the license key") });

export const checkoutLinkSchema = z.object({
  id: z.string(),
  product_id: z.string(),
  product_name: z.string(),
  name: z.string(),
  slug: z.string(),
  url: z.url().describe("The link's address, to share"),
  quantity: z.int(),
  coupon_code: z.string().nullable(),
  interval: z.enum(INTERVALS).nullable(),
  currency: z.string().describe("The product's currency (a product has one, so a link needs no currency of its own)"),
  expires_at: z.iso.datetime().nullable(),
  max_uses: z.int().nullable(),
  uses: z.int().describe("Paid orders plus open checkouts holding a use"),
  visits: z.int().describe("Views of the link's page"),
  checkouts: z.int().describe("Checkouts opened through the link"),
  sales: z.int().describe("Paid orders through the link"),
  active: z.boolean(),
  created_at: z.iso.datetime(),
});
export type CheckoutLinkOut = z.infer<typeof checkoutLinkSchema>;

/** What a buyer sees of a link: the product, the seller and the price it sells at, to the cent. */
export const publicCheckoutLinkSchema = z.object({
  developer_id: z.string(),
  developer_name: z.string(),
  slug: z.string(),
  product: z.object({ id: z.string(), name: z.string(), tagline: z.string(), icon_url: z.string() }),
  expires_at: z.iso.datetime().nullable(),
  quote: checkoutQuoteSchema.describe("The price of one purchase through the link, as createCheckout would charge it"),
  checkout_url: z.url().describe("POST buyer_email here to open the checkout"),
});
export type PublicCheckoutLink = z.infer<typeof publicCheckoutLinkSchema>;
