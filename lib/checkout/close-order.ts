import { getDb, type Db } from "../db.ts";
import { releaseRedemption } from "../coupons/apply-coupon.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * Closes an open checkout (expired, failed or cancelled) and gives back the coupon redemption it reserved. The
 * conditional status update is the one gate: whichever path closes the order first (a provider event, the test-mode
 * cancel link, the expiry sweep) releases the redemption, every later one finds the order no longer open and changes
 * nothing, so a redemption is returned exactly once. A paid order is never closed.
 */
export async function closeOrder(tx: Tx, orderId: string, to: "expired" | "failed" | "cancelled"): Promise<boolean> {
  const n = await tx.order.updateMany({ where: { id: orderId, status: "open" }, data: { status: to } });
  if (n.count === 0) return false;
  const order = await tx.order.findUnique({ where: { id: orderId }, select: { couponId: true } });
  if (order?.couponId) await releaseRedemption(tx, order.couponId);
  return true;
}

/** closeOrder in its own transaction, for callers outside one. */
export function closeOrderNow(orderId: string, to: "expired" | "failed" | "cancelled"): Promise<boolean> {
  return getDb().$transaction((tx) => closeOrder(tx, orderId, to));
}

/**
 * Marks open checkouts past their expiry as expired, releasing their coupon redemptions. Stripe's sessions expire at
 * the same instant (it sends checkout.session.expired, which then finds them closed); test-mode sessions have no one
 * else to expire them. Limited to some coupons (the ones a caller is about to count) and a batch size, so it stays cheap.
 */
export async function sweepExpiredCheckouts(couponIds: string[], now = new Date(), limit = 200): Promise<number> {
  if (couponIds.length === 0) return 0;
  const stale = await getDb().order.findMany({
    where: { couponId: { in: couponIds }, status: "open", expiresAt: { lte: now } },
    select: { id: true },
    take: limit,
  });
  let closed = 0;
  for (const o of stale) if (await closeOrderNow(o.id, "expired")) closed++;
  return closed;
}
