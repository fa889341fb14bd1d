import { getDb, type Db } from "../db.ts";
import { releaseRedemption } from "../coupons/apply-coupon.ts";
import { releaseLinkUse } from "../links/link-uses.ts";
import { expireStripeSession } from "../payments/stripe-provider.ts";

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
  const order = await tx.order.findUnique({ where: { id: orderId }, select: { couponId: true, checkoutLinkId: true, subscriptionId: true } });
  // A subscription's renewal charge reserved nothing: its coupon was counted once, by the checkout that started it.
  if (order?.couponId && !order.subscriptionId) await releaseRedemption(tx, order.couponId);
  // A checkout opened through a checkout link holds one of its uses, given back the same way.
  if (order?.checkoutLinkId && !order.subscriptionId) await releaseLinkUse(tx, order.checkoutLinkId);
  return true;
}

/** closeOrder in its own transaction, for callers outside one. */
export function closeOrderNow(orderId: string, to: "expired" | "failed" | "cancelled"): Promise<boolean> {
  return getDb().$transaction((tx) => closeOrder(tx, orderId, to));
}

/** A checkout closeOpenCheckouts closed: its provider's session, if any, is expired once the transaction commits. */
export interface ClosedCheckout {
  id: string;
  provider: string;
  providerSessionId: string | null;
}

/**
 * Closes the open checkouts (orders not paid yet) of what the operator is hiding, a seller's or one product's, inside
 * the caller's transaction: each through closeOrder, so its coupon redemption comes back once; those already past
 * their expiry become "expired", the rest "cancelled". Run before the listings' own rows change, so it takes the
 * order rows first, as a payment's fulfilment does (order, then product): the two wait for each other instead of
 * deadlocking, and whichever commits first wins cleanly. A payment that arrives anyway (a Stripe session paid just
 * now, a checkout opened while this commits) is refused by fulfilOrder and refunded.
 */
export async function closeOpenCheckouts(tx: Tx, of: { developerId: string } | { productId: string }, now = new Date()): Promise<ClosedCheckout[]> {
  const open = await tx.order.findMany({
    // Checkouts only: a subscription's open renewal charge is its subscription's business (lib/subscriptions).
    where: {
      status: "open",
      subscriptionId: null,
      ...("productId" in of ? { productId: of.productId } : { product: { developerId: of.developerId } }),
    },
    select: { id: true, provider: true, providerSessionId: true, expiresAt: true },
    orderBy: { id: "asc" },
  });
  const closed: ClosedCheckout[] = [];
  for (const o of open) {
    if (await closeOrder(tx, o.id, o.expiresAt <= now ? "expired" : "cancelled")) {
      closed.push({ id: o.id, provider: o.provider, providerSessionId: o.providerSessionId });
    }
  }
  return closed;
}

/**
 * After the commit: expires the closed checkouts' Stripe Checkout Sessions, so their pages stop taking payments.
 * Best-effort (expireStripeSession logs what fails), ten at a time; test-mode checkouts have no session elsewhere.
 */
export async function expireClosedSessions(closed: ClosedCheckout[]): Promise<void> {
  const sessions = closed.flatMap((o) => (o.provider === "stripe" && o.providerSessionId ? [o.providerSessionId] : []));
  for (let i = 0; i < sessions.length; i += 10) await Promise.all(sessions.slice(i, i + 10).map(expireStripeSession));
}

/**
 * Marks open checkouts past their expiry as expired, releasing their coupon redemptions. Stripe's sessions expire at
 * the same instant (it sends checkout.session.expired, which then finds them closed); test-mode sessions have no one
 * else to expire them. Limited to some coupons (the ones a caller is about to count) and a batch size, so it stays cheap.
 */
export async function sweepExpiredCheckouts(couponIds: string[], now = new Date(), limit = 200): Promise<number> {
  if (couponIds.length === 0) return 0;
  return sweep({ couponId: { in: couponIds } }, now, limit);
}

/** The same for the checkouts opened through some checkout links, which hold the links' uses. */
export async function sweepExpiredLinkCheckouts(linkIds: string[], now = new Date(), limit = 200): Promise<number> {
  if (linkIds.length === 0) return 0;
  return sweep({ checkoutLinkId: { in: linkIds } }, now, limit);
}

async function sweep(of: { couponId: { in: string[] } } | { checkoutLinkId: { in: string[] } }, now: Date, limit: number): Promise<number> {
  const stale = await getDb().order.findMany({
    where: { ...of, status: "open", subscriptionId: null, expiresAt: { lte: now } },
    select: { id: true },
    take: limit,
  });
  let closed = 0;
  for (const o of stale) if (await closeOrderNow(o.id, "expired")) closed++;
  return closed;
}
