import { getDb } from "../db.ts";
import type { Coupon } from "../generated/sqlite/client.ts";
import { AppError, notFound } from "../http/errors.ts";
import { sweepExpiredCheckouts } from "../checkout/close-order.ts";
import type { CouponOut, CreateCouponInput } from "./schemas.ts";

const isUniqueViolation = (e: unknown) => (e as { code?: string } | null)?.code === "P2002";

function toCouponOut(c: Coupon): CouponOut {
  return {
    id: c.id,
    code: c.code,
    kind: c.kind === "amount" ? "amount" : "percent",
    percent_off: c.percentOff,
    amount_off_cents: c.amountOffMinor,
    currency: c.currency,
    expires_at: c.expiresAt?.toISOString() ?? null,
    max_redemptions: c.maxRedemptions,
    redemptions: c.redemptions,
    product_ids: Array.isArray(c.productIds) ? c.productIds.filter((p): p is string => typeof p === "string") : [],
    duration: c.duration === "forever" ? "forever" : c.duration === "repeating" ? "repeating" : "once",
    duration_in_months: c.durationMonths,
    active: c.active,
    created_at: c.createdAt.toISOString(),
  };
}

/**
 * The seller's coupons, newest first. Checkouts of theirs that expired unpaid are closed first, so the redemption
 * counts shown are what is really held.
 */
export async function listCoupons(developerId: string): Promise<CouponOut[]> {
  const db = getDb();
  const ids = (await db.coupon.findMany({ where: { developerId, active: true }, select: { id: true } })).map((c) => c.id);
  await sweepExpiredCheckouts(ids);
  const coupons = await db.coupon.findMany({ where: { developerId }, orderBy: [{ createdAt: "desc" }, { id: "asc" }], take: 500 });
  return coupons.map(toCouponOut);
}

/**
 * Creates a coupon for the seller. Scoped product ids must all be the seller's own (anyone else's, or an unknown id,
 * is 400 invalid_product_ids: we do not say which exist); a code the seller already has is 409 coupon_code_taken.
 */
export async function createCoupon(developerId: string, input: CreateCouponInput, now = new Date()): Promise<CouponOut> {
  const db = getDb();
  if (input.expires_at && new Date(input.expires_at).getTime() <= now.getTime()) {
    throw new AppError("invalid_body", 400, 'Invalid field "expires_at": must be in the future', {
      errors: [{ in: "body", name: "expires_at", message: "must be in the future" }],
    });
  }
  if (input.product_ids.length > 0) {
    const owned = await db.product.count({ where: { developerId, id: { in: input.product_ids } } });
    if (owned !== input.product_ids.length) {
      throw new AppError("invalid_product_ids", 400, "Every product a coupon applies to must be one of your own products.");
    }
  }
  try {
    const coupon = await db.coupon.create({
      data: {
        developerId,
        code: input.code,
        kind: input.kind,
        percentOff: input.kind === "percent" ? (input.percent_off ?? null) : null,
        amountOffMinor: input.kind === "amount" ? (input.amount_off_cents ?? null) : null,
        currency: input.kind === "amount" ? (input.currency ?? null) : null,
        productIds: input.product_ids,
        expiresAt: input.expires_at ? new Date(input.expires_at) : null,
        maxRedemptions: input.max_redemptions ?? null,
        duration: input.duration,
        durationMonths: input.duration === "repeating" ? (input.duration_in_months ?? null) : null,
      },
    });
    return toCouponOut(coupon);
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("coupon_code_taken", 409, `You already have a coupon with the code "${input.code}".`);
    throw error;
  }
}

/**
 * Deactivates one of the seller's coupons: buyers can no longer apply it; checkouts already holding it keep their
 * price. Idempotent. Another seller's coupon (or an unknown id) is 404, the same answer, so ids reveal nothing.
 */
export async function deactivateCoupon(developerId: string, couponId: string): Promise<CouponOut> {
  const db = getDb();
  const n = await db.coupon.updateMany({ where: { id: couponId, developerId }, data: { active: false } });
  if (n.count === 0) throw notFound("coupon", "You have no coupon with this id.");
  return toCouponOut(await db.coupon.findUniqueOrThrow({ where: { id: couponId } }));
}
