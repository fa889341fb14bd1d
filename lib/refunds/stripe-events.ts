import Stripe from "stripe";
import { getDb } from "../db.ts";
import { recordAcpOrderEvent } from "../acp/order-events.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { disputeEmail } from "../email/money-templates.ts";
import { disputeClosedEmail } from "../email/seller-templates.ts";
import { recordEntries } from "../ledger/ledger.ts";
import { licenseCache } from "../licensing/license-state.ts";
import { changeBundleLicenses, changeOrderLicense } from "../licensing/set-license-status.ts";
import { emitSellerEvent } from "../seller-webhooks/events.ts";
import { disputePayload, orderPayload } from "../seller-webhooks/payloads.ts";
import type { AppliedEvent } from "../payments/apply-payment-event.ts";
import { applyOnce, EventNotReady } from "../payments/event-log.ts";
import { stripeClient } from "../payments/stripe-client.ts";
import { newRefundId } from "./refund-order.ts";
import { lockOrder, orderTotal, settleRefund, type Tx } from "./settle-refund.ts";

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : (v?.id ?? null));

/**
 * The order a charge or dispute is about: by the payment id fulfilment stored, or else by the order id our checkout
 * put in the payment's metadata (an event can arrive before the payment's completion has been applied).
 */
async function paymentIntentOrderId(id: string): Promise<string | undefined> {
  try {
    return (await stripeClient().paymentIntents.retrieve(id)).metadata.order_id;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return undefined;
    console.error(`Stripe: could not read PaymentIntent ${id}`, error);
    throw new EventNotReady(`could not read PaymentIntent ${id} from Stripe yet`);
  }
}

async function findOrder(paymentIntent: string | null, metadataOrderId: string | undefined) {
  const db = getDb();
  if (paymentIntent) {
    const byPayment = await db.order.findUnique({ where: { providerPaymentId: paymentIntent }, select: { id: true } });
    if (byPayment) return byPayment.id;
  }
  // Disputes carry no metadata of ours; the PaymentIntent does (checkout sets it). Asked only for payments not
  // matched locally; if Stripe cannot answer now, the event waits (409) rather than being recorded as foreign.
  if (!metadataOrderId && paymentIntent) metadataOrderId = await paymentIntentOrderId(paymentIntent);
  if (!metadataOrderId) return null;
  const byId = await db.order.findUnique({ where: { id: metadataOrderId }, select: { id: true, provider: true, providerPaymentId: true } });
  if (!byId || byId.provider !== "stripe") return null;
  // Fulfilment records the payment id; a different one means the metadata does not describe this payment.
  if (byId.providerPaymentId && paymentIntent && byId.providerPaymentId !== paymentIntent) return null;
  return byId.id;
}

async function paidOrder(tx: Tx, orderId: string) {
  await lockOrder(tx, orderId);
  const order = await tx.order.findUniqueOrThrow({
    where: { id: orderId },
    include: { product: { select: { name: true, developerId: true, developer: { select: { email: true } } } } },
  });
  // The payment's completion has not been applied here yet: Stripe is answered 409 and delivers this again later.
  if (order.status !== "paid") throw new EventNotReady(`order ${order.id} is ${order.status}, not paid yet`);
  return order;
}

/** `bundleKeys`: the licenses a bundle's order issued that the effect changed (lib/bundles). */
type Effect = { outcome: string; applied: boolean; licenseKey?: string | null; bundleKeys?: string[]; mail?: boolean };

/** What the dispute steps read of a dispute: Stripe's, or the test-mode provider's (lib/refunds/test-disputes.ts). */
export type DisputeFacts = Pick<Stripe.Dispute, "id" | "amount" | "currency" | "reason" | "status">;

/**
 * charge.refunded: `amount_refunded` is the charge's cumulative refunded amount (the event's charge does not list
 * its refunds in current API versions). Whatever it holds beyond the order's succeeded refunds was refunded outside
 * this service (Stripe's dashboard) and is recorded as a "provider" refund with the same effects as ours. The echo
 * of our own refund adds nothing: ours is succeeded by then, or still pending (then the event waits, 409, so an
 * in-flight refund is never counted twice).
 */
async function chargeRefunded(tx: Tx, orderId: string, charge: Stripe.Charge): Promise<Effect> {
  const order = await paidOrder(tx, orderId);
  if (charge.currency.toLowerCase() !== order.currency) return { outcome: `ignored: currency ${charge.currency} is not the order's`, applied: false };
  const refunds = await tx.refund.groupBy({ by: ["status"], where: { orderId }, _sum: { amountCents: true }, _count: { _all: true } });
  const succeeded = refunds.find((r) => r.status === "succeeded")?._sum.amountCents ?? 0;
  const pending = refunds.find((r) => r.status === "pending")?._count._all ?? 0;
  if (charge.amount_refunded <= succeeded) return { outcome: "refunds already applied", applied: false };
  if (pending > 0) throw new EventNotReady(`a refund of order ${orderId} is in flight`);
  const delta = Math.min(charge.amount_refunded - succeeded, orderTotal(order) - order.refundedCents);
  if (delta <= 0) return { outcome: "refunds already applied", applied: false };
  const id = newRefundId();
  await tx.order.update({ where: { id: orderId }, data: { refundedCents: { increment: delta } } });
  await tx.refund.create({
    data: {
      id,
      orderId,
      amountCents: delta,
      currency: order.currency,
      reason: "Refunded in the payment provider's dashboard",
      initiatedBy: "provider",
      actorEmail: null,
      status: "pending",
    },
  });
  const settled = await settleRefund(tx, id, null);
  return {
    outcome: `refund ${delta} ${order.currency}${settled.full ? " (full)" : ""}`,
    applied: true,
    licenseKey: settled.licenseKey,
    bundleKeys: settled.bundleKeys,
    mail: true,
  };
}

/**
 * charge.dispute.created: the license is suspended, the disputed amount leaves the seller's side, the seller is told
 * (an e-mail, and the dispute.opened webhook with license.revoked when the license was suspended).
 */
export async function disputeCreated(tx: Tx, orderId: string, dispute: DisputeFacts): Promise<Effect> {
  const order = await paidOrder(tx, orderId);
  const common = { developerId: order.product.developerId, orderId, currency: dispute.currency.toLowerCase() };
  await recordEntries(tx, [{ ...common, key: `dispute:${dispute.id}`, kind: "dispute", amountMinor: -dispute.amount }]);
  // Closed first (events out of order): the closing already decided the license; only the ledger was missing.
  if (order.disputeStatus === "won" || order.disputeStatus === "lost") return { outcome: `dispute already ${order.disputeStatus}`, applied: true };
  await tx.order.update({ where: { id: orderId }, data: { disputeStatus: "open" } });
  const payment = { type: "payment", name: order.provider } as const;
  const licenseKey = await changeOrderLicense(tx, orderId, "disputed", [null], `Payment dispute ${dispute.id} open`, new Date(), payment);
  // A bundle's order: every license it issued is suspended likewise.
  const bundleKeys = await changeBundleLicenses(tx, orderId, "disputed", [null], `Payment dispute ${dispute.id} open`, new Date(), payment);
  const data = { order: orderPayload({ ...order, disputeStatus: "open" }), dispute: disputePayload(dispute) };
  await emitSellerEvent(tx, order.product.developerId, "dispute.opened", data, orderId);
  const mail = disputeEmail({
    productName: order.product.name,
    orderId,
    amountCents: dispute.amount,
    currency: dispute.currency.toLowerCase(),
    disputeId: dispute.id,
    reason: dispute.reason,
  });
  await enqueueEmail(tx, { to: order.product.developer.email, ...mail, kind: "dispute", dedupeKey: `dispute:${dispute.id}` });
  await recordAcpOrderEvent(tx, orderId, "order_update", `dispute:${dispute.id}:open`);
  return { outcome: `dispute opened ${dispute.amount} ${common.currency}`, applied: true, licenseKey, bundleKeys, mail: true };
}

/**
 * charge.dispute.closed: won (or an inquiry closed without a chargeback) gives the amount back and reinstates a
 * license the dispute suspended; lost keeps it revoked ("dispute_lost"). Also right when it arrives before
 * charge.dispute.created: the dispute's own entry is written here too (same key, so once).
 */
export async function disputeClosed(tx: Tx, orderId: string, dispute: DisputeFacts): Promise<Effect> {
  const won = dispute.status === "won" || dispute.status === "warning_closed";
  const lost = dispute.status === "lost";
  if (!won && !lost) return { outcome: `ignored: dispute status ${dispute.status}`, applied: false };
  const order = await paidOrder(tx, orderId);
  const common = { developerId: order.product.developerId, orderId, currency: dispute.currency.toLowerCase() };
  await recordEntries(tx, [
    { ...common, key: `dispute:${dispute.id}`, kind: "dispute", amountMinor: -dispute.amount },
    ...(won ? [{ ...common, key: `dispute_reversal:${dispute.id}`, kind: "dispute_reversal" as const, amountMinor: dispute.amount }] : []),
  ]);
  await tx.order.update({ where: { id: orderId }, data: { disputeStatus: won ? "won" : "lost" } });
  const payment = { type: "payment", name: order.provider } as const;
  const licenseKey = won
    ? await changeOrderLicense(tx, orderId, null, ["disputed"], null, new Date(), payment)
    : await changeOrderLicense(tx, orderId, "dispute_lost", [null, "disputed"], `Payment dispute ${dispute.id} lost`, new Date(), payment);
  const bundleKeys = won
    ? await changeBundleLicenses(tx, orderId, null, ["disputed"], null, new Date(), payment)
    : await changeBundleLicenses(tx, orderId, "dispute_lost", [null, "disputed"], `Payment dispute ${dispute.id} lost`, new Date(), payment);
  const outcome = won ? "won" : "lost";
  const data = { order: orderPayload({ ...order, disputeStatus: outcome }), dispute: disputePayload(dispute, outcome) };
  await emitSellerEvent(tx, order.product.developerId, "dispute.closed", data, orderId);
  const mail = disputeClosedEmail({
    productName: order.product.name,
    orderId,
    amountCents: dispute.amount,
    currency: dispute.currency.toLowerCase(),
    disputeId: dispute.id,
    outcome,
  });
  await enqueueEmail(tx, { to: order.product.developer.email, ...mail, kind: "dispute-closed", dedupeKey: `dispute:${dispute.id}:${outcome}` });
  await recordAcpOrderEvent(tx, orderId, "order_update", `dispute:${dispute.id}:${won ? "won" : "lost"}`);
  return { outcome: `dispute ${won ? "won" : "lost"}`, applied: true, licenseKey, bundleKeys, mail: true };
}

/**
 * Charge, refund and dispute events, each applied exactly once (applyOnce), on the order found by the charge's
 * PaymentIntent. Other events of the family (refund.*, charge.succeeded, …) are recorded and ignored: a refund
 * reaches the order through charge.refunded.
 */
export async function applyChargeEvent(event: Stripe.Event): Promise<AppliedEvent> {
  let orderId: string | null = null;
  let effect: ((tx: Tx, orderId: string) => Promise<Effect>) | null = null;
  if (event.type === "charge.refunded") {
    const charge = event.data.object;
    orderId = await findOrder(idOf(charge.payment_intent), charge.metadata.order_id);
    effect = (tx, id) => chargeRefunded(tx, id, charge);
  } else if (event.type === "charge.dispute.created" || event.type === "charge.dispute.closed") {
    const dispute = event.data.object;
    orderId = await findOrder(idOf(dispute.payment_intent), dispute.metadata.order_id);
    effect = event.type === "charge.dispute.created" ? (tx, id) => disputeCreated(tx, id, dispute) : (tx, id) => disputeClosed(tx, id, dispute);
  }
  const r = await applyOnce({ id: event.id, provider: "stripe", type: event.type, orderId }, async (tx): Promise<Effect> => {
    if (!effect) return { outcome: "ignored", applied: false };
    if (!orderId) return { outcome: "ignored: not a payment of this marketplace", applied: false };
    return effect(tx, orderId);
  });
  if (r.duplicate) return { duplicate: true, applied: false, fulfilled: false };
  if (r.licenseKey) licenseCache().invalidate(r.licenseKey);
  for (const key of r.bundleKeys ?? []) licenseCache().invalidate(key);
  if (r.mail) kickOutbox();
  if (r.applied) kickWebhooks();
  return { duplicate: false, applied: r.applied, fulfilled: false, ...(r.applied ? {} : { reason: r.outcome }) };
}
