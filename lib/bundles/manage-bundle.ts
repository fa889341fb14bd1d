import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { saleRefusal } from "../checkout/sale-refusal.ts";
import { BUNDLE_MAX_ITEMS, BUNDLE_MIN_ITEMS, type Bundle, type SetBundleItemsInput } from "./schemas.ts";

async function ownProduct(developerId: string, productId: string) {
  const product = await getDb().product.findFirst({
    where: { id: productId, developerId },
    select: {
      id: true,
      developerId: true,
      priceCents: true,
      currency: true,
      pricingModel: true,
      isBundle: true,
      bundleProrate: true,
      bundleItems: {
        orderBy: [{ position: "asc" }, { id: "asc" }],
        select: { product: { select: { id: true, name: true, status: true, priceCents: true, maxMachines: true } } },
      },
    },
  });
  if (!product) throw notFound("product", "You have no product with this id.");
  return product;
}

function toBundle(p: Awaited<ReturnType<typeof ownProduct>>): Bundle {
  const items = p.bundleItems.map(({ product: i }) => ({
    product_id: i.id,
    name: i.name,
    status: i.status,
    price_cents: i.priceCents,
    max_machines: i.maxMachines,
  }));
  return {
    product_id: p.id,
    is_bundle: p.isBundle,
    prorate: p.bundleProrate,
    price_cents: p.priceCents,
    currency: p.currency,
    list_total_cents: items.reduce((sum, i) => sum + i.price_cents, 0),
    items,
  };
}

/** One of the seller's products as a bundle: its items in order (none for an ordinary product). */
export async function getBundle(developerId: string, productId: string): Promise<Bundle> {
  return toBundle(await ownProduct(developerId, productId));
}

const refuse = (code: string, status: number, detail: string, productId?: string) =>
  new AppError(code, status, detail, productId ? { members: { product_id: productId } } : {});

/**
 * Makes one of the seller's products a bundle of these products, in this order, at the product's own price, or (no
 * products) an ordinary product again. The whole list is replaced at once, so calling it twice with the same list
 * changes nothing more. Refusals, each before anything changes: 404 `product_not_found` (the bundle),
 * 404 `bundle_item_not_found` (not a product of this seller), 409 `bundle_item_unavailable` (not listed),
 * 400 `bundle_too_small` (one item), `bundle_includes_itself`, `bundle_nested` (an item is a bundle, or the product is
 * itself included in a bundle), `bundle_currency_mismatch`, `bundle_item_not_one_time` and
 * `bundle_pricing_not_supported` (subscriptions and updates plans are not bundled, on either side).
 */
export async function setBundleItems(developerId: string, productId: string, input: SetBundleItemsInput): Promise<Bundle> {
  const db = getDb();
  const bundle = await ownProduct(developerId, productId);
  const ids = input.product_ids;
  if (ids.length > 0) {
    if (ids.length < BUNDLE_MIN_ITEMS) {
      throw refuse("bundle_too_small", 400, `A bundle includes ${BUNDLE_MIN_ITEMS} to ${BUNDLE_MAX_ITEMS} products; one product is sold on its own.`);
    }
    if (ids.includes(productId)) throw refuse("bundle_includes_itself", 400, "A bundle cannot include itself.", productId);
    if (bundle.pricingModel !== "one_time") {
      throw refuse(
        "bundle_pricing_not_supported",
        400,
        "Only a product sold once can be a bundle: this one is priced by subscription or updates plan. Change its pricing first.",
      );
    }
    const inBundle = await db.bundleItem.findFirst({ where: { productId }, select: { bundle: { select: { id: true, name: true } } } });
    if (inBundle) {
      throw refuse(
        "bundle_nested",
        400,
        `This product is included in the bundle "${inBundle.bundle.name}" (${inBundle.bundle.id}); a bundle cannot be inside a bundle.`,
      );
    }
    const found = await db.product.findMany({
      where: { id: { in: ids }, developerId },
      select: {
        id: true,
        name: true,
        status: true,
        currency: true,
        pricingModel: true,
        isBundle: true,
        developer: { select: { suspendedAt: true } },
      },
    });
    const byId = new Map(found.map((p) => [p.id, p]));
    for (const id of ids) {
      const item = byId.get(id);
      // Another seller's product is as unknown as a missing one: nothing about it is revealed.
      if (!item) throw refuse("bundle_item_not_found", 404, `You have no product with the id "${id}".`, id);
      if (item.isBundle) throw refuse("bundle_nested", 400, `"${item.name}" (${id}) is a bundle itself; a bundle cannot be inside a bundle.`, id);
      if (item.pricingModel !== "one_time") {
        throw refuse(
          "bundle_item_not_one_time",
          400,
          `"${item.name}" (${id}) is sold by subscription or updates plan; a bundle includes only products sold once.`,
          id,
        );
      }
      if (item.currency !== bundle.currency) {
        throw refuse(
          "bundle_currency_mismatch",
          400,
          `"${item.name}" (${id}) is priced in ${item.currency.toUpperCase()}, the bundle in ${bundle.currency.toUpperCase()}; every item must be in the bundle's currency.`,
          id,
        );
      }
      if (saleRefusal(item))
        throw refuse("bundle_item_unavailable", 409, `"${item.name}" (${id}) is not listed, so it cannot be sold in a bundle.`, id);
    }
  }
  await db.$transaction(async (tx) => {
    // The product's row first: two changes of one bundle take turns (PostgreSQL's row lock; SQLite writes one at a time).
    await tx.product.update({ where: { id: productId }, data: { isBundle: ids.length > 0, bundleProrate: ids.length > 0 && input.prorate } });
    // Made a bundle meanwhile by another change (its items were checked above): still no bundle inside a bundle.
    if (ids.length > 0 && (await tx.product.count({ where: { id: { in: ids }, isBundle: true } })) > 0) {
      throw refuse("bundle_nested", 400, "One of these products became a bundle meanwhile; a bundle cannot be inside a bundle.");
    }
    await tx.bundleItem.deleteMany({ where: { bundleId: productId } });
    if (ids.length > 0) await tx.bundleItem.createMany({ data: ids.map((id, position) => ({ bundleId: productId, productId: id, position })) });
  });
  return getBundle(developerId, productId);
}

/**
 * The seller's products a bundle may include, for the dashboard's Bundle section: listed, sold once, in the bundle's
 * currency, not bundles, not the product itself; name order. The checks are setBundleItems's; this only offers.
 */
export async function bundleCandidates(developerId: string, productId: string, currency: string) {
  return getDb().product.findMany({
    where: { developerId, id: { not: productId }, status: "active", pricingModel: "one_time", currency, isBundle: false },
    orderBy: [{ name: "asc" }, { id: "asc" }],
    select: { id: true, name: true, priceCents: true, currency: true, maxMachines: true },
  });
}
