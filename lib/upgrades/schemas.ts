import { z } from "zod";
import { CONTROL_CHARACTER_MESSAGE, singleLineText } from "../http/input.ts";
import { licenseKeySchema } from "../licensing/schemas.ts";
import { emailSchema } from "../licensing/trial-schemas.ts";
import { productIdSchema } from "../marketplace/schemas.ts";

/**
 * How an upgrade is priced: "fixed", a set price per seat in the target's currency; "difference", the target's price
 * less what the buyer paid for the license they upgrade from, per seat (never below zero).
 */
const UPGRADE_PRICINGS = ["fixed", "difference"] as const;

/** A price of one seat of an upgrade, in minor units (the same ceiling as a product's price). */
const upgradePriceSchema = z.int().min(0).max(1_000_000).describe("The price of one seat of the upgrade, in minor units of the target's currency");

/** What a seller sends to offer an upgrade (dashboard form and API share it). */
export const createUpgradeOfferInputSchema = z
  .object({
    from_product_id: productIdSchema.describe("The product (or edition) the buyer owns: one of yours"),
    to_product_id: productIdSchema.describe("The product (or edition) they upgrade to: another of yours, in the same currency"),
    pricing: z.enum(UPGRADE_PRICINGS).describe('"fixed": price_cents per seat; "difference": the target\'s price less what the buyer paid, per seat'),
    price_cents: upgradePriceSchema.optional().describe('For pricing "fixed": the price of one seat, in minor units of the target\'s currency'),
    retire_source: z.boolean().default(true).describe("Whether the license upgraded from stops working once the upgrade is paid (default true)"),
  })
  .superRefine((o, ctx) => {
    if (o.pricing === "fixed" && o.price_cents === undefined) {
      ctx.addIssue({ code: "custom", path: ["price_cents"], message: 'a "fixed" upgrade needs price_cents' });
    }
    if (o.pricing === "difference" && o.price_cents !== undefined) {
      ctx.addIssue({ code: "custom", path: ["price_cents"], message: 'a "difference" upgrade is priced from the products: leave out price_cents' });
    }
  });
export type CreateUpgradeOfferInput = z.infer<typeof createUpgradeOfferInputSchema>;

/** A change to an offer: any of its switch, its fixed price, whether it retires the source. */
export const updateUpgradeOfferInputSchema = z
  .object({
    active: z.boolean().optional().describe("false: buyers no longer see or buy it; checkouts already open keep their price"),
    price_cents: upgradePriceSchema.optional().describe('A new price per seat (a "fixed" offer only)'),
    retire_source: z.boolean().optional(),
  })
  .refine((u) => u.active !== undefined || u.price_cents !== undefined || u.retire_source !== undefined, {
    message: "send at least one of active, price_cents, retire_source",
  });
export type UpdateUpgradeOfferInput = z.infer<typeof updateUpgradeOfferInputSchema>;

export const upgradeOfferParamsSchema = z.object({ id: z.string().regex(/^[a-z0-9]{8,40}$/, "must be an upgrade offer id") });

const productRef = z.object({ id: z.string(), name: z.string(), price_cents: z.int(), currency: z.string() });

export const upgradeOfferSchema = z.object({
  id: z.string(),
  from_product: productRef,
  to_product: productRef,
  pricing: z.enum(UPGRADE_PRICINGS),
  price_cents: z.int().nullable().describe('"fixed": the price of one seat; null for "difference"'),
  retire_source: z.boolean(),
  active: z.boolean(),
  paid_upgrades: z.int().describe("Paid orders of this upgrade"),
  created_at: z.iso.datetime(),
});
export type UpgradeOfferOut = z.infer<typeof upgradeOfferSchema>;

const idText = (what: string) => z.string().trim().min(1).max(64).refine(singleLineText, CONTROL_CHARACTER_MESSAGE).describe(what);

/**
 * Which license is upgraded, to what: the license by its key (whoever holds the key) or by its id (the buyer signed
 * in to My licenses, whose licenses alone it may name), and the offer by its id or by the target product.
 */
const upgradeTarget = z.object({
  license_key: licenseKeySchema.optional().describe("The key of the license to upgrade from (proves ownership)"),
  license_id: idText("The id of one of your licenses (signed in to My licenses)").optional(),
  offer_id: upgradeOfferParamsSchema.shape.id.optional().describe("The upgrade offer"),
  to_product_id: productIdSchema.optional().describe("The product to upgrade to (instead of offer_id)"),
});

/** Exactly one way of naming the license, and exactly one of the offer. */
function oneOfEach(r: z.infer<typeof upgradeTarget>, ctx: z.RefinementCtx): void {
  if ((r.license_key === undefined) === (r.license_id === undefined)) {
    ctx.addIssue({ code: "custom", path: ["license_key"], message: "send exactly one of license_key and license_id" });
  }
  if ((r.offer_id === undefined) === (r.to_product_id === undefined)) {
    ctx.addIssue({ code: "custom", path: ["offer_id"], message: "send exactly one of offer_id and to_product_id" });
  }
}

export const upgradeRequestSchema = upgradeTarget.superRefine(oneOfEach);

export const upgradeCheckoutRequestSchema = upgradeTarget
  .extend({
    buyer_email: emailSchema.optional().describe("Receives the new license key (default: the address of the license upgraded from)"),
    expected_amount_cents: z
      .int()
      .min(0)
      .max(100_000_000)
      .optional()
      .describe("The amount the buyer confirmed (a quote's amount_cents): a different price now is 409 amount_changed, and nothing is opened"),
  })
  .superRefine(oneOfEach);

export const upgradeQuoteSchema = z.object({
  offer_id: z.string(),
  from_license_id: z.string(),
  from_product_id: z.string(),
  to_product_id: z.string(),
  to_product_name: z.string(),
  pricing: z.enum(UPGRADE_PRICINGS),
  currency: z.string(),
  unit_price_cents: z.int().describe("The price of one seat of the upgrade"),
  seats: z.int().describe("The seats of the license upgraded from, which the new license keeps"),
  amount_cents: z.int().describe("What the upgrade charges before tax: unit_price_cents × seats"),
  max_machines: z.int().describe("Machines the new license allows"),
  retire_source: z.boolean().describe("Whether the license upgraded from stops working once the upgrade is paid"),
});
export type UpgradeQuote = z.infer<typeof upgradeQuoteSchema>;
