import type { Db } from "../db.ts";
import { AppError } from "../http/errors.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * A checkout link's uses are held as a coupon's redemptions are (lib/coupons/apply-coupon.ts): a checkout through the
 * link takes one when it opens (one conditional update, so racing checkouts never take more than `max_uses`), gives it
 * back when it closes unpaid (lib/checkout/close-order.ts), and a paid order keeps it. This file imports nothing of
 * checkout's, so checkout can import it.
 */

export const linkNotFound = () => new AppError("checkout_link_not_found", 404, "This checkout link does not exist or was turned off by its seller.");
const linkExpired = () => new AppError("checkout_link_expired", 410, "This checkout link has expired.");
export const linkUsedUp = () => new AppError("checkout_link_used_up", 409, "This checkout link has been used as many times as its seller allowed.");

/** Why a link cannot sell now, or null when it can (its use limit aside: see reserveLinkUse). */
export function linkRefusal(link: { active: boolean; expiresAt: Date | null }, now: Date): AppError | null {
  if (!link.active) return linkNotFound();
  if (link.expiresAt && link.expiresAt.getTime() <= now.getTime()) return linkExpired();
  return null;
}

/** Whether every use is taken (by paid orders and open checkouts). */
export const linkAtLimit = (link: { maxUses: number | null; uses: number }): boolean => link.maxUses !== null && link.uses >= link.maxUses;

/**
 * Takes one use of the link for a checkout and counts the checkout, atomically: the link must still be active, not
 * expired, and under its limit. Returns false when it is not (the caller tells why with linkRefusal).
 */
export async function reserveLinkUse(db: Tx | Db, linkId: string, now: Date): Promise<boolean> {
  const l = (db as Db).checkoutLink;
  const n = await l.updateMany({
    where: {
      id: linkId,
      active: true,
      AND: [{ OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] }, { OR: [{ maxUses: null }, { uses: { lt: l.fields.maxUses } }] }],
    },
    data: { uses: { increment: 1 }, checkouts: { increment: 1 } },
  });
  return n.count > 0;
}

/**
 * Gives a reserved use back: the checkout that held it closed unpaid, or (`uncount`) no order was ever recorded for it,
 * so the checkout it counted was never opened either.
 */
export async function releaseLinkUse(db: Tx | Db, linkId: string, uncount = false): Promise<void> {
  await (db as Db).checkoutLink.updateMany({
    where: { id: linkId, uses: { gt: 0 } },
    data: { uses: { decrement: 1 }, ...(uncount ? { checkouts: { decrement: 1 } } : {}) },
  });
}

/**
 * A payment of an order opened through a link, inside fulfilment's transaction: a sale that stands counts as one of
 * the link's sales, and keeps its use; one that was closed meanwhile (its use given back) takes it again, past the
 * limit if need be, since the money is taken. A refused payment (the product may not be sold any more) is no sale:
 * an open checkout's use goes back as closing it would.
 */
export async function linkOrderPaid(tx: Tx, linkId: string, o: { wasOpen: boolean; refused: boolean }): Promise<void> {
  if (o.refused) {
    if (o.wasOpen) await releaseLinkUse(tx, linkId);
    return;
  }
  await tx.checkoutLink.updateMany({
    where: { id: linkId },
    data: { sales: { increment: 1 }, ...(o.wasOpen ? {} : { uses: { increment: 1 } }) },
  });
}
