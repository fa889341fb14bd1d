import { kickOutbox } from "../email/deliver-emails.ts";
import { licenseCache } from "../licensing/license-state.ts";
import { closeOrder } from "../checkout/close-order.ts";
import { fulfilOrder, type PaidFacts } from "../checkout/fulfil-order.ts";
import type { SaleRefusal } from "../checkout/quote-checkout.ts";
import { refundReserved, reserveMarketplaceRefund } from "../refunds/refund-order.ts";
import { markPastDue } from "../subscriptions/lifecycle.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { applyOnce } from "./event-log.ts";
import { testPaymentsEnabled } from "./provider.ts";

/** A payment outcome, whichever provider reported it. */
export interface PaymentEvent {
  /** The provider's event id: each is applied at most once. */
  id: string;
  provider: "test" | "stripe";
  /** The provider's event type, kept for the record. */
  type: string;
  kind: "paid" | "failed" | "expired" | "pending" | "ignored";
  orderId: string | null;
  providerSessionId?: string | null;
  /** What the provider says was charged in all (tax included). A paid event must carry it and the currency. */
  amountCents?: number | null;
  /** What was charged before tax, when the provider says (Stripe's amount_subtotal): must be the order's amount. */
  subtotalCents?: number | null;
  currency?: string | null;
  /** The provider's own payment state; a paid event fulfils only when this is "paid". */
  paymentStatus?: string | null;
  /** Facts of a paid event the order keeps: the provider's payment id (for refunds and disputes) and the tax charged. */
  paid?: PaidFacts;
}

export interface AppliedEvent {
  duplicate: boolean;
  applied: boolean;
  fulfilled: boolean;
  reason?: string;
}

/**
 * Why a "paid" event must not fulfil its order, or null when it may: the provider must say the payment is
 * complete, and say what it charged, and that must be the order's amount plus the tax it reports, in the order's
 * currency; the amount before tax, when reported (always with tax), must be the order's amount, so tax can never
 * stand in for part of the price. A missing amount or currency is a refusal, never a pass.
 */
function paidRefusal(
  event: PaymentEvent,
  order: { amountCents: number; currency: string },
): { reason: "not_paid" | "amount_mismatch"; log: string } | null {
  if (event.paymentStatus !== "paid") return { reason: "not_paid", log: `payment status is ${String(event.paymentStatus)}, not paid` };
  const amount = event.amountCents;
  const currency = event.currency;
  const tax = event.paid?.taxCents ?? 0;
  const subtotal = event.subtotalCents ?? (tax > 0 ? null : order.amountCents);
  if (
    typeof amount !== "number" ||
    typeof currency !== "string" ||
    !Number.isInteger(tax) ||
    tax < 0 ||
    subtotal !== order.amountCents ||
    amount !== order.amountCents + tax ||
    currency.toLowerCase() !== order.currency.toLowerCase()
  ) {
    return {
      reason: "amount_mismatch",
      log: `paid ${String(amount)} ${String(currency)} (subtotal ${String(event.subtotalCents)}, tax ${String(tax)}), expected ${order.amountCents} ${order.currency} plus tax`,
    };
  }
  return null;
}

/** What the buyer's refund says when a payment arrived for something that may no longer be sold (its code first). */
const REFUSED_SALE: Record<SaleRefusal, string> = {
  seller_suspended: "seller_suspended: the marketplace suspended this seller before your payment arrived, so no license was issued",
  product_removed: "product_removed: the marketplace removed this listing before your payment arrived, so no license was issued",
  product_unlisted: "product_unlisted: the seller stopped selling this product before your payment arrived, so no license was issued",
  upgrade_source_unavailable:
    "upgrade_source_unavailable: the license this upgrade was from had already been upgraded (or was no longer in force) when your payment arrived, so no second license was issued",
};

/**
 * Applies a payment event exactly once (applyOnce: the event's record and its effect commit in one transaction, so a
 * retry or a concurrent duplicate delivery finds the record and changes nothing). Test-mode payments and Stripe
 * webhooks both end here, and fulfilment is the same for both. A payment for a product that may no longer be sold
 * (fulfilOrder refuses it: removed, its seller suspended, unlisted) issues no license: the order is recorded paid and
 * the whole payment is reserved for the marketplace's refund in the same transaction, then refunded through the
 * refund machinery once it has committed (Stripe: a refund of the PaymentIntent; test mode: at once), so a
 * redelivered event, a duplicate already recorded, refunds nothing more.
 */
export async function applyPaymentEvent(event: PaymentEvent, now = new Date()): Promise<AppliedEvent> {
  // A test-mode payment counts only while test mode is this deployment's provider. Refused before anything is
  // recorded, so nothing about the order changes.
  if (event.provider === "test" && event.kind === "paid" && !testPaymentsEnabled()) {
    console.error(`order ${event.orderId ?? "?"}: a test-mode payment while test mode is off; not fulfilled`);
    return { duplicate: false, applied: false, fulfilled: false, reason: "test_mode_off" };
  }
  const not = (reason: string) => ({ applied: false, fulfilled: false, reason, outcome: reason });
  type Effect = { applied: boolean; fulfilled: boolean; reason?: string; outcome: string; refundId?: string; retiredLicenseKey?: string };
  const result = await applyOnce(
    { id: event.id, provider: event.provider, type: event.type, orderId: event.orderId },
    async (tx): Promise<Effect> => {
      if (event.kind === "ignored" || event.kind === "pending") return not(event.kind);
      const order = event.orderId ? await tx.order.findUnique({ where: { id: event.orderId } }) : null;
      if (!order) return not("unknown_order");
      if (order.provider !== event.provider) return not("provider_mismatch");
      if (event.providerSessionId && order.providerSessionId && event.providerSessionId !== order.providerSessionId) {
        return not("session_mismatch");
      }
      switch (event.kind) {
        case "paid": {
          const refused = paidRefusal(event, order);
          if (refused) {
            console.error(`order ${order.id}: ${event.provider} event ${event.id} (${event.type}) not fulfilled: ${refused.log}`);
            return not(refused.reason);
          }
          const f = await fulfilOrder(tx, order.id, now, event.paid);
          if (f.refused) {
            const refund = await reserveMarketplaceRefund(tx, order.id, REFUSED_SALE[f.refused]);
            return {
              applied: true,
              fulfilled: false,
              reason: f.refused,
              refundId: refund.id,
              outcome: `not fulfilled (${f.refused}): refund ${refund.amountCents} ${order.currency}`,
            };
          }
          return {
            applied: true,
            fulfilled: f.fulfilled,
            outcome: f.fulfilled ? "fulfilled" : "already paid",
            ...(f.retiredLicenseKey ? { retiredLicenseKey: f.retiredLicenseKey } : {}),
          };
        }
        case "failed":
        case "expired": {
          // A declined renewal charge stays open to be charged again; its subscription is past due.
          if (order.subscriptionId && order.periodStart && order.status === "open") {
            if (event.kind === "expired") return not("renewal_open");
            const marked = await markPastDue(tx, { ...order, subscriptionId: order.subscriptionId }, now);
            return { applied: marked, fulfilled: false, outcome: marked ? "past_due" : "declined again" };
          }
          // Never downgrade a paid order, whatever order the events arrive in. Closing gives back the coupon
          // redemption the checkout reserved, once (closeOrder).
          const to = event.kind === "failed" ? "failed" : "expired";
          const closed = await closeOrder(tx, order.id, to);
          return { applied: closed, fulfilled: false, outcome: closed ? to : `not ${to}: order is ${order.status}` };
        }
      }
    },
  );
  if (result.duplicate) return { duplicate: true, applied: false, fulfilled: false };
  // The refused payment goes back now its order and reservation have committed (never throws; kicks the outboxes).
  if (result.refundId) await refundReserved(result.refundId);
  // A license an upgrade retired must not keep answering "valid" from the cache.
  if (result.retiredLicenseKey) licenseCache().invalidate(result.retiredLicenseKey);
  if (result.fulfilled || result.outcome === "past_due") {
    kickOutbox();
    kickWebhooks(); // order.paid and license.created to the seller's endpoints
  }
  return { duplicate: false, applied: result.applied, fulfilled: result.fulfilled, ...(result.reason ? { reason: result.reason } : {}) };
}
