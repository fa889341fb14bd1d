import type { Db } from "../db.ts";
import { AppError } from "../http/errors.ts";
import { formatPrice } from "../pricing.ts";
import type { Coupon } from "../generated/sqlite/client.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * The smallest charge a card payment may be, in minor units. Stripe's own floor is $0.50, €0.50 and £0.30; we hold
 * every supported currency to 50 minor units (stricter for GBP) so one rule is easy to state to sellers: a coupon may
 * not bring a purchase below 0.50 of its currency.
 */
const MINIMUM_CHARGE_MINOR: Readonly<Record<string, number>> = { usd: 50, eur: 50, gbp: 50 };
export const minimumCharge = (currency: string): number => MINIMUM_CHARGE_MINOR[currency.toLowerCase()] ?? 50;

/** The product fields a coupon is checked against. */
export interface CouponTarget {
  id: string;
  developerId: string;
  currency: string;
}

const productIdsOf = (coupon: Pick<Coupon, "productIds">): string[] =>
  Array.isArray(coupon.productIds) ? coupon.productIds.filter((p): p is string => typeof p === "string") : [];

/**
 * The one answer for a code that cannot be used, whatever the reason: unknown, deactivated, another seller's, past its
 * expiry, used up, or not for this product or its currency. One code (404 coupon_not_found), one status and one
 * wording, the code typed being the only variable part, so a refusal tells a guesser nothing about which codes exist
 * (guessing itself is bounded by lib/coupons/try-budget.ts). The seller sees why in the dashboard.
 */
const invalidCode = (code: string) =>
  new AppError(
    "coupon_not_found",
    404,
    `The coupon code "${code.toUpperCase()}" is not a valid code for this purchase (unknown, expired, used up or not for this product).`,
  );

/**
 * Finds the coupon a buyer typed for this product's seller, or refuses it with the one answer of invalidCode: unknown
 * or deactivated, past its expiry, or not for this product or its currency. The redemption limit is checked before
 * pricing (atLimit, answered the same), and enforced by the reservation (reserveRedemption), which holds under races.
 */
export async function findUsableCoupon(db: Tx | Db, code: string, product: CouponTarget, now = new Date()): Promise<Coupon> {
  const upper = code.toUpperCase();
  const coupon = await (db as Db).coupon.findUnique({ where: { developerId_code: { developerId: product.developerId, code: upper } } });
  if (!coupon || !coupon.active) throw invalidCode(upper);
  if (coupon.expiresAt && coupon.expiresAt.getTime() <= now.getTime()) throw invalidCode(upper);
  const scope = productIdsOf(coupon);
  if (scope.length > 0 && !scope.includes(product.id)) throw invalidCode(upper);
  if (coupon.kind === "amount" && coupon.currency?.toLowerCase() !== product.currency.toLowerCase()) throw invalidCode(upper);
  return coupon;
}

/** Whether every redemption is taken (by paid orders and open checkouts). */
export const atLimit = (coupon: Pick<Coupon, "maxRedemptions" | "redemptions">): boolean =>
  coupon.maxRedemptions !== null && coupon.redemptions >= coupon.maxRedemptions;

/** A used-up code (every redemption taken, or lost to a racing checkout): answered as any invalid code. */
export const exhausted = (code: string) => invalidCode(code);

/**
 * What a coupon takes off a subtotal: a percentage rounded half up to the minor unit (integer arithmetic, no float),
 * or a fixed amount; never more than the subtotal.
 */
export function discountFor(coupon: Pick<Coupon, "kind" | "percentOff" | "amountOffMinor">, subtotal: number): number {
  const off = coupon.kind === "percent" ? Math.floor((subtotal * (coupon.percentOff ?? 0) + 50) / 100) : (coupon.amountOffMinor ?? 0);
  return Math.max(0, Math.min(subtotal, off));
}

/** Refuses a discounted amount under the currency's minimum charge (400 amount_below_minimum). */
export function assertAboveMinimum(amount: number, currency: string, code: string): void {
  const min = minimumCharge(currency);
  if (amount < min) {
    throw new AppError(
      "amount_below_minimum",
      400,
      `With the coupon code "${code}" the price would be ${formatPrice(amount, currency)}, below the smallest card payment of ${formatPrice(min, currency)}.`,
    );
  }
}

/**
 * Takes one redemption of the coupon for a checkout, atomically: one conditional update (`redemptions <
 * max_redemptions`), so of many racing checkouts exactly the limit's worth succeed, on SQLite and PostgreSQL alike.
 * Returns false when none is left (or the coupon was deactivated meanwhile).
 */
export async function reserveRedemption(db: Tx | Db, couponId: string): Promise<boolean> {
  const c = (db as Db).coupon;
  const n = await c.updateMany({
    where: { id: couponId, active: true, OR: [{ maxRedemptions: null }, { redemptions: { lt: c.fields.maxRedemptions } }] },
    data: { redemptions: { increment: 1 } },
  });
  return n.count > 0;
}

/** Gives a reserved redemption back (the checkout that held it expired, failed or was cancelled). */
export async function releaseRedemption(db: Tx | Db, couponId: string): Promise<void> {
  await (db as Db).coupon.updateMany({ where: { id: couponId, redemptions: { gt: 0 } }, data: { redemptions: { decrement: 1 } } });
}
