import { releaseRedemption } from "../coupons/apply-coupon.ts";
import type { Db } from "../db.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { licenseEmail } from "../email/templates.ts";
import { bundleSaleRefusal } from "../bundles/bundle-sale.ts";
import { issueBundleLicenses } from "../bundles/fulfil-bundle.ts";
import { recordEntries, saleEntries } from "../ledger/ledger.ts";
import { issueLicense } from "../licensing/issue-license.ts";
import { issueInvoice } from "../invoices/number-invoice.ts";
import { linkOrderPaid } from "../links/link-uses.ts";
import { downloadPath } from "../marketplace/get-download.ts";
import { formatPrice, orderCharges } from "../pricing.ts";
import { emitSellerEvent } from "../seller-webhooks/events.ts";
import { AppError } from "../http/errors.ts";
import { applyPlanChange, applyRenewal, renewUpdates, startSubscription, type StripeSubscriptionFacts } from "../subscriptions/lifecycle.ts";
import { addMonths, UPDATES_PLAN_MONTHS, type Interval } from "../subscriptions/plans.ts";
import { orderPayload } from "../seller-webhooks/payloads.ts";
import { completeUpgrade, upgradeSaleRefusal } from "../upgrades/apply-upgrade.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { queueSaleEmail } from "../seller-mail/sale-emails.ts";
import { mailDownloads } from "../updates/mail-downloads.ts";
import { saleRefusal, type SaleRefusal } from "./quote-checkout.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** What a paid event tells about the payment beyond its amount; fulfilment stores it on the order. */
export interface PaidFacts {
  providerPaymentId?: string | null;
  /** Tax charged on top of the order's amount, in minor units; null when not calculated. */
  taxCents?: number | null;
  /** A subscription Stripe bills: its ids and the period (or trial) its first invoice paid, as Stripe states them. */
  subscription?: StripeSubscriptionFacts | null;
}

/** What fulfilment did: a license issued, nothing (the order was already paid), or a payment refused with why. */
interface Fulfilment {
  fulfilled: boolean;
  licenseKey?: string;
  /**
   * The payment arrived for a product that may not be sold any more (saleRefusal: removed, its seller suspended,
   * unlisted): the order is recorded paid, its sale is in the ledger, no license was issued, and the caller must give
   * the money back (applyPaymentEvent refunds it; an ACP completion aborts its payment).
   */
  refused?: SaleRefusal;
  /** An upgrade retired the license it upgraded from: the caller drops its key from the license cache after the commit. */
  retiredLicenseKey?: string;
}

/**
 * Paid order → its sale, discount, platform fee and tax in the ledger → license for the product with its
 * max_machines × the seats bought (a full license, also for products with trials) → the key's e-mail in the outbox.
 * Runs inside the payment event's transaction, so all of it happens or none; the conditional status update (and the
 * ledger's unique keys) make a replay or a race of two completions record one sale, issue one license and send one
 * e-mail. The seller's webhooks (order.paid, then license.created) are queued in it too; the caller kicks the webhook
 * outbox after the commit.
 *
 * Whether the product may still be sold is checked again here (saleRefusal), after the update has taken the order's
 * row: a suspension or removal that committed first is seen (it closed the order, or it hid the product), and one
 * still committing waits for this order's row and then finds it paid, a sale made before it. A refused payment gets
 * no license and its checkout's coupon redemption back; the caller refunds it.
 */
export async function fulfilOrder(tx: Tx, orderId: string, paidAt: Date, paid: PaidFacts = {}): Promise<Fulfilment> {
  const data = { status: "paid", paidAt, providerPaymentId: paid.providerPaymentId ?? null, taxCents: paid.taxCents ?? null };
  // An open order still holds its coupon redemption. One already closed (expired by the sweep, say, while the
  // buyer's payment was in flight) gave it back, so the paid order takes it again, past the limit if need be: the
  // money is taken and the count must say so.
  const fromOpen = await tx.order.updateMany({ where: { id: orderId, status: "open" }, data });
  const fromClosed = fromOpen.count > 0 ? fromOpen : await tx.order.updateMany({ where: { id: orderId, status: { notIn: ["open", "paid"] } }, data });
  if (fromClosed.count === 0) return { fulfilled: false };
  const order = await tx.order.findUniqueOrThrow({
    where: { id: orderId },
    include: { product: { include: { developer: { select: { name: true, suspendedAt: true } } } } },
  });
  // A renewal of a running subscription is not a new sale: the job loop stops renewing a removed listing or a
  // suspended seller's subscriptions before it charges them (lib/subscriptions/renewals.ts).
  const { subscriptionId, periodStart, periodEnd } = order;
  const renewal = subscriptionId !== null && periodStart !== null && periodEnd !== null ? { subscriptionId, periodStart, periodEnd } : null;
  // A charge of a running subscription outside its periods (Stripe's invoice of a plan change) is a sale in the
  // ledger and nothing more: the subscription and its license already exist.
  const adjustment = subscriptionId !== null && renewal === null ? subscriptionId : null;
  // A bundle sells whole or not at all: an included product that may no longer be sold refuses the payment too; an
  // upgrade whose source license was already upgraded by another payment (two checkouts opened at once) is refused.
  const refused =
    renewal || adjustment !== null
      ? null
      : (saleRefusal(order.product) ??
        (order.product.isBundle ? await bundleSaleRefusal(tx, order.productId) : null) ??
        (order.upgradeFromLicenseId ? await upgradeSaleRefusal(tx, { id: order.id, upgradeFromLicenseId: order.upgradeFromLicenseId }) : null));
  if (refused) {
    // Not a sale that stands: an open checkout's redemption goes back as closing it would; a closed one's stays back.
    if (fromOpen.count > 0 && order.couponId) await releaseRedemption(tx, order.couponId);
  } else if (fromOpen.count === 0 && order.couponId) {
    await tx.coupon.updateMany({ where: { id: order.couponId }, data: { redemptions: { increment: 1 } } });
  }
  // A checkout link's use is kept, taken again or given back as the coupon's redemption is, and a sale counted.
  if (order.checkoutLinkId) await linkOrderPaid(tx, order.checkoutLinkId, { wasOpen: fromOpen.count > 0, refused: refused !== null });
  // The money came in either way: the ledger records the sale, and a refused one's refund against it.
  await recordEntries(tx, saleEntries({ ...order, developerId: order.product.developerId, paidAt }));
  await emitSellerEvent(tx, order.product.developerId, "order.paid", { order: orderPayload(order) }, order.id, paidAt);
  // Every paid charge has its invoice, numbered in the seller's series in this transaction (lib/invoices).
  await issueInvoice(tx, order.id);
  if (refused) {
    console.error(`order ${order.id}: paid, but ${refused}: no license issued; the payment is refunded`);
    return { fulfilled: false, refused };
  }
  // The seller hears of the payment (when their setting is "each"; the daily digest reads paid orders later).
  const saleKind = renewal ? "renewal" : adjustment !== null ? "plan_change" : order.renewsLicenseId ? "updates_renewal" : "sale";
  await queueSaleEmail(tx, order, saleKind);
  if (renewal) {
    await applyRenewal(tx, { ...order, ...renewal }, paidAt);
    return { fulfilled: true };
  }
  if (adjustment !== null) {
    // A plan change's charge changes the plan in the same transaction, or (another change came first) nothing at all.
    if (order.planChangeFrom && order.interval && order.unitAmountCents !== null) {
      const [fromInterval, fromSeats] = order.planChangeFrom.split(":");
      const applied = await applyPlanChange(
        tx,
        adjustment,
        {
          from: { interval: fromInterval as Interval, quantity: Number(fromSeats) },
          interval: order.interval as Interval,
          quantity: order.quantity,
          unitAmountCents: order.unitAmountCents,
          period: order.periodEnd ? { start: paidAt, end: order.periodEnd } : null,
          prorationCents: order.amountCents,
          orderId: order.id,
        },
        { type: "buyer", name: order.buyerEmail },
        paidAt,
      );
      if (!applied)
        throw new AppError("plan_changed_meanwhile", 409, "The subscription changed meanwhile; nothing was charged. Look at it again and retry.");
    }
    return { fulfilled: true };
  }
  if (order.renewsLicenseId) {
    const key = await renewUpdates(tx, { ...order, renewsLicenseId: order.renewsLicenseId }, paidAt);
    return key ? { fulfilled: true, licenseKey: key } : { fulfilled: true };
  }
  const actor = { type: "payment" as const, name: order.provider };
  if (order.product.isBundle) {
    // A bundle's order issues one license per included product (lib/bundles), and none of the bundle product itself.
    const keys = await issueBundleLicenses(tx, order, paidAt, actor);
    await tx.product.update({ where: { id: order.productId }, data: { salesCount: { increment: 1 } } });
    return { fulfilled: true, ...(keys[0] ? { licenseKey: keys[0] } : {}) };
  }
  // A subscription checkout starts the subscription, whose license follows it; anything else is licensed for good.
  const license = order.interval
    ? await startSubscription(tx, order, paidAt, actor, paid.subscription ?? null).then(({ licenseKey }) =>
        tx.license.findUniqueOrThrow({ where: { key: licenseKey }, select: { key: true, maxMachines: true, id: true } }),
      )
    : await issueLicense(
        tx,
        {
          productId: order.productId,
          buyerEmail: order.buyerEmail,
          maxMachines: order.product.maxMachines * order.quantity,
          source: "purchase",
          orderId: order.id,
        },
        actor,
      );
  // An updates plan's first year of updates starts with the purchase.
  if (order.product.pricingModel === "updates_plan") {
    await tx.license.update({ where: { id: license.id }, data: { updatesUntil: addMonths(paidAt, UPDATES_PLAN_MONTHS) } });
  }
  // An upgrade: the license it upgrades from is retired or kept as its offer says, and both licenses' logs tell it.
  const upgrade = order.upgradeFromLicenseId
    ? await completeUpgrade(tx, { ...order, upgradeFromLicenseId: order.upgradeFromLicenseId }, license.id, paidAt, actor)
    : null;
  await tx.product.update({ where: { id: order.productId }, data: { salesCount: { increment: 1 } } });
  const mail = licenseEmail({
    buyerEmail: order.buyerEmail,
    productName: order.product.name,
    developerName: order.product.developer.name,
    licenseKey: license.key,
    maxMachines: license.maxMachines,
    pluginId: order.product.pluginId,
    // This site's license-gated link: the seller's own URL is only reached through it.
    downloadUrl: absoluteUrl(downloadPath(order.productId, license)),
    // The product's release builds when it has any (each link checks the license), else the single link above.
    release: await mailDownloads(tx, license.id),
    receiptUrl: absoluteUrl(`/api/receipt?key=${license.key}`),
    productPageUrl: absoluteUrl(paths.product(order.productId)),
    orderId: order.id,
    amountDisplay: formatPrice(order.amountCents, order.currency),
    charges: orderCharges(order),
  });
  await enqueueEmail(tx, { to: order.buyerEmail, ...mail, kind: "license", dedupeKey: `license:${order.id}` });
  return { fulfilled: true, licenseKey: license.key, ...(upgrade?.retiredKey ? { retiredLicenseKey: upgrade.retiredKey } : {}) };
}
