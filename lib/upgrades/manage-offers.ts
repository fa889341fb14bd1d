import { getDb, type Db } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import type { CreateUpgradeOfferInput, UpdateUpgradeOfferInput, UpgradeOfferOut } from "./schemas.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

const isUniqueViolation = (e: unknown) => (e as { code?: string } | null)?.code === "P2002";

const PRODUCT = { select: { id: true, name: true, priceCents: true, currency: true } } as const;
const OFFER_INCLUDE = {
  fromProduct: PRODUCT,
  toProduct: PRODUCT,
  _count: { select: { orders: { where: { status: "paid" } } } },
} as const;

type OfferRow = {
  id: string;
  pricing: string;
  priceCents: number | null;
  retireSource: boolean;
  active: boolean;
  createdAt: Date;
  fromProduct: { id: string; name: string; priceCents: number; currency: string };
  toProduct: { id: string; name: string; priceCents: number; currency: string };
  _count: { orders: number };
};

const productOut = (p: OfferRow["fromProduct"]) => ({ id: p.id, name: p.name, price_cents: p.priceCents, currency: p.currency });

function toUpgradeOfferOut(o: OfferRow): UpgradeOfferOut {
  return {
    id: o.id,
    from_product: productOut(o.fromProduct),
    to_product: productOut(o.toProduct),
    pricing: o.pricing === "fixed" ? "fixed" : "difference",
    price_cents: o.pricing === "fixed" ? o.priceCents : null,
    retire_source: o.retireSource,
    active: o.active,
    paid_upgrades: o._count.orders,
    created_at: o.createdAt.toISOString(),
  };
}

/**
 * A product that can take part in an upgrade: one-time and updates-plan products. A subscription already moves
 * between plans and seats by itself (lib/subscriptions/change-plan.ts); upgrading into or out of one is not offered.
 * A bundle is a set of licenses, not one license to retire or keep.
 */
function refuseKind(p: { pricingModel: string; isBundle: boolean }, side: "from" | "to"): void {
  const field = side === "from" ? "from_product_id" : "to_product_id";
  if (p.pricingModel === "subscription") {
    throw new AppError(
      "upgrade_subscription_not_supported",
      400,
      "Subscription products cannot be upgraded from or to: their buyers change plans and seats on the subscription itself.",
      { errors: [{ in: "body", name: field, message: "is a subscription product" }] },
    );
  }
  if (p.isBundle) {
    throw new AppError(
      "upgrade_bundle_not_supported",
      400,
      "Bundles cannot be upgraded from or to: offer the upgrade on the products they include.",
      {
        errors: [{ in: "body", name: field, message: "is a bundle" }],
      },
    );
  }
}

/**
 * The target's product page lists its upgrade paths, and the storefront's pages are cached for as long as the content
 * version is unchanged (lib/cache/content-version.ts, moved by triggers on the product's row): touching the row moves it.
 */
async function touchTarget(tx: Tx, productId: string): Promise<void> {
  await tx.product.update({ where: { id: productId }, data: { updatedAt: new Date() } });
}

/** The seller's upgrade offers, newest first, with how many paid upgrades each has sold. */
export async function listUpgradeOffers(developerId: string): Promise<UpgradeOfferOut[]> {
  const rows = await getDb().upgradeOffer.findMany({
    where: { developerId },
    include: OFFER_INCLUDE,
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: 500,
  });
  return rows.map(toUpgradeOfferOut);
}

/**
 * Offers an upgrade from one of the seller's products to another: both must be theirs (anyone else's, or an unknown
 * id, is 404 product_not_found, which says nothing about other sellers' products), different, in one currency
 * (400 upgrade_currency_mismatch: the credit for what was paid is in the source's currency), neither a subscription
 * nor a bundle; one offer per pair (409 upgrade_offer_exists, also under two racing requests: the pair is unique).
 */
export async function createUpgradeOffer(developerId: string, input: CreateUpgradeOfferInput): Promise<UpgradeOfferOut> {
  const db = getDb();
  if (input.from_product_id === input.to_product_id) {
    throw new AppError("upgrade_same_product", 400, "An upgrade goes from one product to another: choose two different products.", {
      errors: [{ in: "body", name: "to_product_id", message: "must differ from from_product_id" }],
    });
  }
  const select = { id: true, developerId: true, status: true, currency: true, pricingModel: true, isBundle: true } as const;
  const [from, to] = await Promise.all([
    db.product.findUnique({ where: { id: input.from_product_id }, select }),
    db.product.findUnique({ where: { id: input.to_product_id }, select }),
  ]);
  if (!from || from.developerId !== developerId || from.status === "removed")
    throw notFound("product", `You have no product "${input.from_product_id}".`);
  if (!to || to.developerId !== developerId || to.status === "removed") throw notFound("product", `You have no product "${input.to_product_id}".`);
  refuseKind(from, "from");
  refuseKind(to, "to");
  if (from.currency !== to.currency) {
    throw new AppError(
      "upgrade_currency_mismatch",
      400,
      `Both products must be priced in one currency: ${from.currency.toUpperCase()} and ${to.currency.toUpperCase()} differ.`,
    );
  }
  try {
    const row = await db.$transaction(async (tx) => {
      const created = await tx.upgradeOffer.create({
        data: {
          developerId,
          fromProductId: input.from_product_id,
          toProductId: input.to_product_id,
          pricing: input.pricing,
          priceCents: input.pricing === "fixed" ? (input.price_cents ?? null) : null,
          retireSource: input.retire_source,
        },
        include: OFFER_INCLUDE,
      });
      await touchTarget(tx, created.toProduct.id);
      return created;
    });
    return toUpgradeOfferOut(row);
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError("upgrade_offer_exists", 409, "You already offer this upgrade: change the existing offer instead.");
    }
    throw error;
  }
}

/**
 * Changes one of the seller's offers (another seller's is 404): switches it on or off, sets a "fixed" offer's price
 * (a "difference" offer has none: 400 upgrade_price_not_fixed), or whether it retires the source. Checkouts already
 * open keep the price they were opened with.
 */
export async function updateUpgradeOffer(developerId: string, offerId: string, input: UpdateUpgradeOfferInput): Promise<UpgradeOfferOut> {
  const db = getDb();
  const found = await db.upgradeOffer.findFirst({ where: { id: offerId, developerId }, select: { id: true, pricing: true } });
  if (!found) throw notFound("upgrade_offer", "You have no upgrade offer with this id.");
  if (input.price_cents !== undefined && found.pricing !== "fixed") {
    throw new AppError("upgrade_price_not_fixed", 400, "This upgrade is priced as the difference between the products; it takes no price_cents.", {
      errors: [{ in: "body", name: "price_cents", message: 'applies to "fixed" offers only' }],
    });
  }
  const row = await db.$transaction(async (tx) => {
    const updated = await tx.upgradeOffer.update({
      where: { id: found.id },
      data: {
        ...(input.active !== undefined ? { active: input.active } : {}),
        ...(input.price_cents !== undefined ? { priceCents: input.price_cents } : {}),
        ...(input.retire_source !== undefined ? { retireSource: input.retire_source } : {}),
      },
      include: OFFER_INCLUDE,
    });
    await touchTarget(tx, updated.toProduct.id);
    return updated;
  });
  return toUpgradeOfferOut(row);
}
