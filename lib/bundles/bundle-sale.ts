import { minimumCharge } from "../coupons/apply-coupon.ts";
import type { Db } from "../db.ts";
import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";
import { saleRefusal } from "../checkout/sale-refusal.ts";
import { BUNDLE_MIN_ITEMS, type BundleQuote } from "./schemas.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** The columns of a bundle's product that selling it reads. */
export interface BundleProduct {
  id: string;
  developerId: string;
  name: string;
  priceCents: number;
  currency: string;
  pricingModel: string;
  isBundle: boolean;
  bundleProrate: boolean;
}

const itemSelect = {
  position: true,
  product: {
    select: {
      id: true,
      name: true,
      developerId: true,
      priceCents: true,
      currency: true,
      pricingModel: true,
      maxMachines: true,
      isBundle: true,
      status: true,
      developer: { select: { suspendedAt: true } },
    },
  },
} as const;

/** An included product as selling it reads it (itemSelect). */
type ItemRow = {
  id: string;
  name: string;
  developerId: string;
  priceCents: number;
  currency: string;
  pricingModel: string;
  maxMachines: number;
  isBundle: boolean;
  status: string;
  developer: { suspendedAt: Date | null };
};

interface BundleSaleItem {
  productId: string;
  name: string;
  priceCents: number;
  maxMachines: number;
  /** The buyer already holds an active license for it: the sale issues none, and a prorated price leaves it out. */
  held: boolean;
}

export interface BundleSale {
  items: BundleSaleItem[];
  /** The bundle's own price for one seat. */
  fullPriceCents: number;
  /** The sum of the items' list prices: the base of the proration. */
  listTotalCents: number;
  /** What one seat of the bundle costs this buyer: the full price, or the prorated one. */
  unitCents: number;
  prorated: boolean;
}

/**
 * Why an included product cannot be sold inside the bundle now, or null: the rule for any sale (saleRefusal), and what
 * made it an item in the first place (the seller's own product, sold once, in the bundle's currency, not a bundle).
 */
function itemRefusal(bundle: BundleProduct, item: ItemRow): string | null {
  const refused = saleRefusal(item);
  if (refused)
    return refused === "product_unlisted" ? "it is not listed" : refused === "product_removed" ? "it was removed" : "its seller is suspended";
  if (item.developerId !== bundle.developerId) return "it is not the bundle seller's";
  if (item.currency !== bundle.currency) return `it is priced in ${item.currency.toUpperCase()}, not ${bundle.currency.toUpperCase()}`;
  if (item.pricingModel !== "one_time") return "it is no longer sold once (subscription or updates plan)";
  if (item.isBundle) return "it is a bundle itself";
  return null;
}

/** A bundle's included products, in their order. */
async function bundleItems(db: Tx | Db, bundleId: string): Promise<ItemRow[]> {
  const rows = await db.bundleItem.findMany({ where: { bundleId }, orderBy: [{ position: "asc" }, { id: "asc" }], select: itemSelect });
  return rows.map((r) => r.product);
}

/**
 * The products of `productIds` the buyer holds an active license for (a purchase or a seller's gift; trials do not
 * count), issued before `before` when given. Refunded, disputed and revoked licenses are not active, so they count
 * as not held.
 */
async function heldProducts(db: Tx | Db, buyerEmail: string, productIds: string[], now: Date, before?: Date): Promise<Set<string>> {
  if (productIds.length === 0) return new Set();
  const rows = await db.license.findMany({
    where: {
      buyerEmail: buyerEmail.trim().toLowerCase(),
      productId: { in: productIds },
      isActive: true,
      trial: false,
      OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
      ...(before ? { issuedAt: { lt: before } } : {}),
    },
    select: { productId: true },
  });
  return new Set(rows.map((r) => r.productId));
}

/**
 * The bundle price × (list prices of the items not held ÷ list prices of all items), rounded half up in minor units
 * with exact integer arithmetic, and never below the currency's smallest card payment (unless the bundle's own price
 * is already under it, a free or nearly free bundle, which then keeps its prorated price).
 */
export function proratedPrice(fullPriceCents: number, notHeldCents: number, listTotalCents: number, currency: string): number {
  if (listTotalCents <= 0 || notHeldCents >= listTotalCents) return fullPriceCents;
  const n = BigInt(fullPriceCents) * BigInt(notHeldCents);
  const d = BigInt(listTotalCents);
  const rounded = Number((2n * n + d) / (2n * d));
  const floor = minimumCharge(currency);
  return fullPriceCents >= floor ? Math.max(floor, rounded) : rounded;
}

/**
 * What a bundle costs this buyer now, and which items the sale would license, for the quote and the checkout (the
 * same computation, so they agree). Every item must still be sellable: an item removed, unlisted, suspended or no
 * longer fit for a bundle is 409 `bundle_item_unavailable`, naming it, before anything is created. With proration
 * allowed and a buyer address, items the buyer already holds are left out of the price and of the licenses; a buyer
 * who holds them all is 409 `bundle_already_owned`.
 */
export async function priceBundleSale(bundle: BundleProduct, buyerEmail: string | null | undefined, now = new Date()): Promise<BundleSale> {
  if (bundle.pricingModel !== "one_time") {
    throw new AppError(
      "bundle_pricing_not_supported",
      409,
      "A bundle is sold once at its own price; this one is priced by subscription or updates plan.",
    );
  }
  const items = await bundleItems(getDb(), bundle.id);
  if (items.length < BUNDLE_MIN_ITEMS) {
    throw new AppError("bundle_item_unavailable", 409, "This bundle has fewer than two included products and cannot be sold.");
  }
  for (const item of items) {
    const why = itemRefusal(bundle, item);
    if (why) {
      throw new AppError("bundle_item_unavailable", 409, `This bundle includes "${item.name}" (${item.id}), which cannot be sold now: ${why}.`, {
        members: { product_id: item.id },
      });
    }
  }
  const held =
    bundle.bundleProrate && buyerEmail
      ? await heldProducts(
          getDb(),
          buyerEmail,
          items.map((i) => i.id),
          now,
        )
      : new Set<string>();
  if (held.size === items.length) {
    throw new AppError("bundle_already_owned", 409, "You already hold a license for every product in this bundle.");
  }
  const listTotalCents = items.reduce((sum, i) => sum + i.priceCents, 0);
  const notHeldCents = items.filter((i) => !held.has(i.id)).reduce((sum, i) => sum + i.priceCents, 0);
  const unitCents = held.size > 0 ? proratedPrice(bundle.priceCents, notHeldCents, listTotalCents, bundle.currency) : bundle.priceCents;
  return {
    items: items.map((i) => ({ productId: i.id, name: i.name, priceCents: i.priceCents, maxMachines: i.maxMachines, held: held.has(i.id) })),
    fullPriceCents: bundle.priceCents,
    listTotalCents,
    unitCents,
    prorated: held.size > 0,
  };
}

/**
 * When the payment arrives: an item that can no longer be sold (removed, unlisted, its seller suspended) refuses the
 * whole sale as a refused product would (fulfilOrder records it and the payment is refunded), so a bundle never
 * sells part of itself.
 */
export async function bundleSaleRefusal(tx: Tx, bundleId: string) {
  for (const item of await bundleItems(tx, bundleId)) {
    const refused = saleRefusal(item);
    if (refused) return refused;
  }
  return null;
}

/** What fulfilment reads: the items and which of them the buyer held when the checkout opened. */
export async function itemsToLicense(
  tx: Tx,
  bundle: { id: string; bundleProrate: boolean },
  order: { buyerEmail: string; createdAt: Date },
  now: Date,
): Promise<Array<ItemRow & { held: boolean }>> {
  const items = await bundleItems(tx, bundle.id);
  // The checkout priced the items the buyer held when it opened; a license bought since then was paid for apart.
  const held = bundle.bundleProrate
    ? await heldProducts(
        tx,
        order.buyerEmail,
        items.map((i) => i.id),
        now,
        order.createdAt,
      )
    : new Set<string>();
  return items.map((i) => ({ ...i, held: held.has(i.id) }));
}

/** A bundle sale as the quote states it. */
export function bundleQuote(sale: BundleSale, quantity: number): BundleQuote {
  return {
    items: sale.items.map((i) => ({ product_id: i.productId, name: i.name, price_cents: i.priceCents, held: i.held })),
    list_total_cents: sale.listTotalCents,
    full_price_cents: sale.fullPriceCents,
    prorated: sale.prorated,
    reduction_cents: (sale.fullPriceCents - sale.unitCents) * quantity,
  };
}
