import { recordAcpOrderEvent } from "../acp/order-events.ts";
import type { Db } from "../db.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { refundEmail } from "../email/money-templates.ts";
import { recordEntries, type LedgerEntryInput } from "../ledger/ledger.ts";
import type { Actor } from "../licensing/license-events.ts";
import { changeBundleLicenses, changeOrderLicense } from "../licensing/set-license-status.ts";
import { endSubscription } from "../subscriptions/lifecycle.ts";
import { emitSellerEvent } from "../seller-webhooks/events.ts";
import { orderPayload, refundPayload } from "../seller-webhooks/payloads.ts";
import { undoUpgrade } from "../upgrades/apply-upgrade.ts";

export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * Takes the order's row lock (an update), so refunds and disputes of one order are applied one after another on
 * PostgreSQL too; what is read afterwards in the transaction includes every earlier one's effect.
 */
export async function lockOrder(tx: Tx, orderId: string): Promise<void> {
  await tx.order.update({ where: { id: orderId }, data: { updatedAt: new Date() } });
}

/** An order's total as charged: the price after discount plus the tax on top. */
export const orderTotal = (o: { amountCents: number; taxCents: number | null }) => o.amountCents + (o.taxCents ?? 0);

/**
 * How a refund of `amount` splits, given what succeeded refunds have already returned: price and tax in proportion
 * to the order's, and the platform fee in proportion to the price returned. Computed on running totals, so the
 * rounding never drifts: the refund that makes the total whole returns exactly the rest of the price, tax and fee.
 */
export function refundSplit(
  order: { amountCents: number; taxCents: number | null; feeCents: number },
  before: { refunded: number; price: number; fee: number },
  amount: number,
): { price: number; tax: number; fee: number; full: boolean } {
  const total = orderTotal(order);
  const after = Math.min(total, before.refunded + amount);
  const priceAfter = total === 0 ? 0 : Math.round((after * order.amountCents) / total);
  const feeAfter = order.amountCents === 0 ? 0 : Math.round((priceAfter * order.feeCents) / order.amountCents);
  const price = priceAfter - before.price;
  return { price, tax: amount - price, fee: feeAfter - before.fee, full: after >= total };
}

/** Who a refund's effect on the license is logged as: whoever asked for it, or the provider (its own dashboard). */
function refundActor(refund: { initiatedBy: string; actorEmail: string | null }, provider: string): Actor {
  if (refund.initiatedBy === "seller") return { type: "seller", name: refund.actorEmail };
  if (refund.initiatedBy === "operator") return { type: "operator", name: refund.actorEmail };
  if (refund.initiatedBy === "buyer") return { type: "buyer", name: refund.actorEmail };
  return { type: "payment", name: provider };
}

/**
 * A pending refund becomes succeeded, with its effects in the same transaction: the ledger (refund and tax_refund
 * out of the seller's side, fee_refund back in; keys "<kind>:<refund id>"), on a full refund the license revoked
 * ("refunded", logged and announced as license.revoked), the seller's order.refunded webhook (partial refunds too),
 * the buyer's e-mail, and an ACP order_update for the agent platform if one made the order. Claimed by a conditional update, so whoever settles it first (our own call
 * returning, or Stripe's echo of it) applies the effects and the other changes nothing. Returns the license key to
 * invalidate in the cache once the transaction has committed.
 */
export async function settleRefund(
  tx: Tx,
  refundId: string,
  providerRefundId: string | null,
  now = new Date(),
): Promise<{ settled: boolean; full: boolean; licenseKey: string | null; bundleKeys: string[] }> {
  const refund = await tx.refund.findUniqueOrThrow({ where: { id: refundId } });
  await lockOrder(tx, refund.orderId);
  const claimed = await tx.refund.updateMany({
    where: { id: refundId, status: "pending" },
    data: { status: "succeeded", ...(providerRefundId ? { providerRefundId } : {}) },
  });
  if (claimed.count === 0) return { settled: false, full: false, licenseKey: null, bundleKeys: [] };
  const order = await tx.order.findUniqueOrThrow({
    where: { id: refund.orderId },
    include: { product: { select: { name: true, developerId: true, developer: { select: { name: true } } } } },
  });
  const prior = await tx.ledgerEntry.groupBy({
    by: ["kind"],
    where: { orderId: order.id, kind: { in: ["refund", "tax_refund", "fee_refund"] } },
    _sum: { amountMinor: true },
  });
  const sum = (kind: string) => prior.find((g) => g.kind === kind)?._sum.amountMinor ?? 0;
  const before = { refunded: -sum("refund") - sum("tax_refund"), price: -sum("refund"), fee: sum("fee_refund") };
  const split = refundSplit(order, before, refund.amountCents);
  const common = {
    developerId: order.product.developerId,
    orderId: order.id,
    currency: order.currency,
    createdAt: now,
    memo: refund.reason.slice(0, 200),
  };
  const entries: LedgerEntryInput[] = [
    { ...common, key: `refund:${refund.id}`, kind: "refund", amountMinor: -split.price },
    ...(split.tax ? [{ ...common, key: `tax_refund:${refund.id}`, kind: "tax_refund" as const, amountMinor: -split.tax }] : []),
    ...(split.fee ? [{ ...common, key: `fee_refund:${refund.id}`, kind: "fee_refund" as const, amountMinor: split.fee }] : []),
  ];
  await recordEntries(tx, entries);
  const licenseKey = split.full
    ? await changeOrderLicense(
        tx,
        order.id,
        "refunded",
        [null, "seller", "disputed", "dispute_lost"],
        `Refunded: ${refund.reason}`,
        now,
        refundActor(refund, order.provider),
      )
    : null;
  // A bundle's order refunded in full ends every license it issued, one per included product.
  const bundleKeys = split.full
    ? await changeBundleLicenses(
        tx,
        order.id,
        "refunded",
        [null, "seller", "disputed", "dispute_lost"],
        `Refunded: ${refund.reason}`,
        now,
        refundActor(refund, order.provider),
      )
    : [];
  // An upgrade refunded in full gives the buyer back the license it upgraded from (lib/upgrades).
  if (split.full && order.upgradeFromLicenseId) await undoUpgrade(tx, order.id, now, refundActor(refund, order.provider));
  // A subscription whose current charge went back in full ends now: nothing more is charged.
  if (split.full && licenseKey && order.subscriptionId) {
    await endSubscription(tx, order.subscriptionId, "refunded", now, refundActor(refund, order.provider));
  }
  await emitSellerEvent(
    tx,
    order.product.developerId,
    "order.refunded",
    { order: orderPayload(order), refund: refundPayload(refund, split.full) },
    order.id,
    now,
  );
  const licensed =
    order.subscriptionId !== null || (await tx.license.count({ where: { OR: [{ orderId: order.id }, { bundleOrderId: order.id }] } })) > 0;
  const mail = refundEmail({
    productName: order.product.name,
    developerName: order.product.developer.name,
    orderId: order.id,
    amountCents: refund.amountCents,
    currency: order.currency,
    full: split.full,
    reason: refund.reason,
    unlicensed: !licensed,
  });
  await enqueueEmail(tx, { to: order.buyerEmail, ...mail, kind: "refund", dedupeKey: `refund:${refund.id}` });
  // An order an agent platform bought through ACP: the platform hears of the refund (order_update webhook).
  await recordAcpOrderEvent(tx, order.id, "order_update", `refund:${refund.id}`);
  return { settled: true, full: split.full, licenseKey, bundleKeys };
}
