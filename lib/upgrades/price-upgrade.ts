import { buyableProduct, type BuyableProduct } from "../checkout/quote-checkout.ts";
import { minimumCharge } from "../coupons/apply-coupon.ts";
import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { formatPrice } from "../pricing.ts";
import type { UpgradeQuote } from "./schemas.ts";

/** How the caller proves it holds the license: its key, or the buyer's session naming one of their licenses by id. */
export type UpgradeSource = { key: string } | { licenseId: string; buyerEmail: string };
/** Which upgrade: the offer by id, or the offer from the license's product to this product. */
export type UpgradeTarget = { offerId: string } | { toProductId: string };

/** Upgrades paid for one after another are followed this far back when crediting what was paid. */
const MAX_CHAIN = 10;

const LICENSE_SELECT = {
  id: true,
  key: true,
  productId: true,
  buyerEmail: true,
  maxMachines: true,
  isActive: true,
  trial: true,
  source: true,
  billing: true,
  expiresAt: true,
  product: { select: { maxMachines: true } },
} as const;

const PAID_SELECT = { amountCents: true, refundedCents: true, quantity: true, currency: true, upgradeFromLicenseId: true } as const;

const licenseNotFound = () => notFound("license", "You hold no license with this key or id.");
const upgradeNotOffered = () => new AppError("upgrade_not_offered", 404, "This license has no upgrade on offer to that product.");

/** The order that paid for a license (none for a license given), with what paidPerSeat reads of it. */
async function paidOrderOf(licenseId: string) {
  const found = await getDb().license.findUnique({ where: { id: licenseId }, select: { order: { select: PAID_SELECT } } });
  return found?.order ?? null;
}

/**
 * What the buyer paid for one seat of the license, in `currency`: its order's price after discount, less what was
 * refunded of it, divided by the seats it bought; for a license that was itself an upgrade, plus what was paid for
 * the license it upgraded from, and so on back. A license given (complimentary) or paid in another currency counts 0.
 */
async function paidPerSeat(licenseId: string, currency: string): Promise<number> {
  let total = 0;
  let next: string | null = licenseId;
  for (let depth = 0; next !== null && depth < MAX_CHAIN; depth++) {
    const order = await paidOrderOf(next);
    if (!order || order.currency !== currency) break;
    const kept = Math.max(0, order.amountCents - order.refundedCents);
    total += Math.floor(kept / Math.max(1, order.quantity));
    next = order.upgradeFromLicenseId;
  }
  return total;
}

/**
 * An upgrade, resolved and priced, or the reason it cannot be bought. The license must be held by the caller (its
 * key, or the signed-in buyer's own id: anything else is 404 license_not_found, whatever exists), there must be an
 * active offer from its product (404 upgrade_not_offered), it must be a bought or given license in force (409
 * license_not_upgradable: revoked, refunded, disputed, retired by an upgrade, expired, a trial, a subscription's),
 * and no paid upgrade may stand on it already (409 license_already_upgraded; one refunded in full does not count).
 * The target must still be for sale (404 product_not_found). The new license keeps the source's seats
 * (maxMachines / the source product's maxMachines); the price of a seat is the offer's fixed price or the target's
 * price less what was paid per seat of the source (never below 0), and the whole is held to checkout's minimum
 * charge (400 amount_below_minimum).
 */
export async function resolveUpgrade(source: UpgradeSource, target: UpgradeTarget, now = new Date()) {
  const db = getDb();
  const license =
    "key" in source
      ? await db.license.findUnique({ where: { key: source.key }, select: LICENSE_SELECT })
      : await db.license.findFirst({ where: { id: source.licenseId, buyerEmail: source.buyerEmail.toLowerCase() }, select: LICENSE_SELECT });
  if (!license) throw licenseNotFound();
  const offer =
    "offerId" in target
      ? await db.upgradeOffer.findUnique({ where: { id: target.offerId } })
      : await db.upgradeOffer.findUnique({
          where: { fromProductId_toProductId: { fromProductId: license.productId, toProductId: target.toProductId } },
        });
  if (!offer || !offer.active || offer.fromProductId !== license.productId) throw upgradeNotOffered();
  const expired = license.expiresAt !== null && license.expiresAt.getTime() <= now.getTime();
  if (!license.isActive || expired || license.trial || license.source === "trial" || license.billing !== null) {
    throw new AppError(
      "license_not_upgradable",
      409,
      "This license cannot be upgraded: it is not in force (revoked, refunded, disputed, already upgraded or expired), or it is a trial or a subscription's.",
    );
  }
  const earlier = await db.order.findMany({
    where: { upgradeFromLicenseId: license.id, status: "paid" },
    select: { amountCents: true, taxCents: true, refundedCents: true },
  });
  if (earlier.some((o) => o.refundedCents < o.amountCents + (o.taxCents ?? 0))) {
    throw new AppError("license_already_upgraded", 409, "This license was already upgraded; the upgrade's license is the one to use.");
  }
  const product: BuyableProduct = await buyableProduct(offer.toProductId);
  if (product.pricingModel === "subscription") {
    throw new AppError(
      "upgrade_subscription_not_supported",
      409,
      "The product upgraded to is now sold by subscription; this upgrade cannot be bought.",
    );
  }
  const from = await db.product.findUniqueOrThrow({ where: { id: license.productId }, select: { currency: true } });
  if (from.currency !== product.currency) {
    throw new AppError("upgrade_currency_mismatch", 409, "The two products are no longer priced in one currency; this upgrade cannot be bought now.");
  }
  const seats = Math.max(1, Math.round(license.maxMachines / Math.max(1, license.product.maxMachines)));
  const unitCents =
    offer.pricing === "fixed" ? (offer.priceCents ?? 0) : Math.max(0, product.priceCents - (await paidPerSeat(license.id, product.currency)));
  const amountCents = unitCents * seats;
  const minimum = minimumCharge(product.currency);
  if (amountCents < minimum) {
    throw new AppError(
      "amount_below_minimum",
      400,
      `This upgrade would cost ${formatPrice(amountCents, product.currency)}, below the smallest card payment of ${formatPrice(minimum, product.currency)}; ask the seller for another way to upgrade.`,
    );
  }
  return { license, offer, product, seats, unitCents, amountCents };
}
export type ResolvedUpgrade = Awaited<ReturnType<typeof resolveUpgrade>>;

/** The upgrade's price to the cent, without opening a checkout. */
export function upgradeQuote(u: ResolvedUpgrade): UpgradeQuote {
  return {
    offer_id: u.offer.id,
    from_license_id: u.license.id,
    from_product_id: u.license.productId,
    to_product_id: u.product.id,
    to_product_name: u.product.name,
    pricing: u.offer.pricing === "fixed" ? "fixed" : "difference",
    currency: u.product.currency,
    unit_price_cents: u.unitCents,
    seats: u.seats,
    amount_cents: u.amountCents,
    max_machines: u.product.maxMachines * u.seats,
    retire_source: u.offer.retireSource,
  };
}

export async function quoteUpgrade(source: UpgradeSource, target: UpgradeTarget, now = new Date()): Promise<UpgradeQuote> {
  return upgradeQuote(await resolveUpgrade(source, target, now));
}
