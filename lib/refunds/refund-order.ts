import Stripe from "stripe";
import { writeAudit } from "../admin/audit.ts";
import { newSessionId } from "../checkout/session-id.ts";
import { getDb } from "../db.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { AppError, notFound } from "../http/errors.ts";
import { licenseCache } from "../licensing/license-state.ts";
import { stripeClient } from "../payments/stripe-client.ts";
import { formatPrice } from "../pricing.ts";
import type { RefundOut } from "./schemas.ts";
import { orderTotal, settleRefund, type Tx } from "./settle-refund.ts";

/**
 * Who asks for a refund: the seller of the order's product, the marketplace's operator (any order), or the buyer's own
 * plan change (the unused time credited back). A seller's `name` is who the license event log names, as for a
 * revocation: "token:<name>" for a seller API token (the session's e-mail when absent).
 */
type RefundActor =
  { kind: "seller"; developerId: string; email: string; name?: string } | { kind: "operator"; email: string } | { kind: "buyer"; email: string };

/** What the refund keeps of who asked (`actorEmail`, read back by settleRefund for the license event log). */
const actorName = (a: RefundActor) => (a.kind === "seller" ? (a.name ?? a.email) : a.email);

/**
 * Parsed and typed by the caller (the operations parse `refundRequestSchema`): this function does not parse again.
 */
export interface RefundOrderInput {
  orderId: string;
  /** Minor units, a positive integer; absent: all that remains (price + tax − already refunded). */
  amountCents?: number | undefined;
  /** One line, trimmed (refundReasonSchema). */
  reason: string;
  actor: RefundActor;
}

export interface RefundResult {
  id: string;
  orderId: string;
  amountCents: number;
  currency: string;
  reason: string;
  initiatedBy: "seller" | "operator" | "provider" | "buyer";
  actorEmail: string | null;
  status: "pending" | "succeeded" | "failed";
  providerRefundId: string | null;
  createdAt: Date;
  /** Whether the order is now refunded in full (its license revoked). */
  full: boolean;
}

export const newRefundId = () => `rf_${newSessionId().slice(3)}`;

const remainingOf = (o: { amountCents: number; taxCents: number | null; refundedCents: number }) => orderTotal(o) - o.refundedCents;

function exceeds(remaining: number, currency: string): AppError {
  return new AppError(
    "refund_exceeds_remaining",
    409,
    remaining > 0
      ? `At most ${formatPrice(remaining, currency)} of this order can still be refunded.`
      : "This order has already been refunded in full.",
  );
}

/** The provider's answer to a refund request: its refund id, or why it refused (a message the seller can act on). */
type ProviderAnswer = { ok: true; providerRefundId: string | null } | { ok: false; error: AppError };

async function askProvider(
  order: { id: string; provider: string; providerPaymentId: string | null; payoutAccountId: string | null },
  refundId: string,
  amount: number,
): Promise<ProviderAnswer> {
  // Test mode moves no money: the refund is immediate.
  if (order.provider !== "stripe") return { ok: true, providerRefundId: null };
  if (!order.providerPaymentId) {
    return {
      ok: false,
      error: new AppError("refund_not_possible", 409, "The payment provider has not reported this order's payment id yet; try again in a minute."),
    };
  }
  const account = order.payoutAccountId
    ? await getDb().payoutAccount.findUnique({ where: { id: order.payoutAccountId }, select: { provider: true } })
    : null;
  // A destination charge: the seller's transfer and the platform's fee go back in proportion to the refund.
  const connected = account?.provider === "stripe";
  try {
    const r = await stripeClient().refunds.create(
      {
        payment_intent: order.providerPaymentId,
        amount,
        ...(connected ? { reverse_transfer: true, refund_application_fee: true } : {}),
        metadata: { order_id: order.id, refund_id: refundId },
      },
      // One refund at Stripe per refund of ours, however often the SDK retries the request.
      { idempotencyKey: `refund-${refundId}` },
    );
    if (r.status === "failed" || r.status === "canceled") {
      return { ok: false, error: new AppError("refund_refused", 409, `The payment provider did not refund: status ${r.status}.`) };
    }
    return { ok: true, providerRefundId: r.id };
  } catch (error) {
    if (error instanceof Stripe.errors.StripeCardError || error instanceof Stripe.errors.StripeInvalidRequestError) {
      return { ok: false, error: new AppError("refund_refused", 409, `The payment provider refused the refund: ${error.message}`) };
    }
    console.error(`refund ${refundId} of order ${order.id}: Stripe failed`, error);
    return {
      ok: false,
      error: new AppError("payment_provider_unavailable", 502, "The payment provider could not be reached; nothing was refunded. Try again shortly."),
    };
  }
}

/**
 * Refunds (part of) a paid order. The amount is reserved first, with one conditional update of the order's
 * refundedCents in the transaction that creates the refund "pending", so racing refunds can never together exceed
 * what was paid; then the provider is asked (Stripe: a refund reversing the seller's transfer and the platform's fee
 * in proportion; test mode: at once); then the refund is settled (ledger, license on a full refund, the buyer's
 * e-mail). A refusal by the provider gives the reservation back and marks the refund failed.
 */
export async function refundOrder(input: RefundOrderInput): Promise<RefundResult> {
  const { reason } = input;
  const db = getDb();
  const order = await db.order.findUnique({ where: { id: input.orderId }, include: { product: { select: { developerId: true } } } });
  if (!order || (input.actor.kind === "seller" && order.product.developerId !== input.actor.developerId)) throw notFound("order");
  if (order.status !== "paid") throw new AppError("order_not_paid", 409, `Only paid orders can be refunded; this one is ${order.status}.`);
  if (order.disputeStatus === "open" || order.disputeStatus === "lost") {
    throw new AppError(
      "order_disputed",
      409,
      order.disputeStatus === "open"
        ? "The buyer's bank is deciding a dispute on this payment; it cannot be refunded meanwhile."
        : "The buyer's bank already returned this payment (a lost dispute).",
    );
  }
  const remaining = remainingOf(order);
  const amount = input.amountCents ?? remaining;
  if (amount <= 0 || amount > remaining) throw exceeds(remaining, order.currency);

  const id = newRefundId();
  await db.$transaction(async (tx) => {
    await reserveRefund(tx, order, id, amount, { reason, initiatedBy: input.actor.kind, actorEmail: actorName(input.actor) });
    // An operator's refund is audited in the transaction that commits to it (lib/admin/audit.ts).
    if (input.actor.kind === "operator") {
      await writeAudit(tx, input.actor, {
        action: "order.refund",
        targetType: "order",
        targetId: order.id,
        detail: { refund_id: id, amount_cents: amount, currency: order.currency, reason },
      });
    }
  });

  const answer = await askProvider(order, id, amount);
  if (!answer.ok) {
    await failRefund(id, order.id, amount);
    throw answer.error;
  }
  const settled = await settleNow(id, answer.providerRefundId);
  const row = await db.refund.findUniqueOrThrow({ where: { id } });
  const after = await db.order.findUniqueOrThrow({ where: { id: order.id }, select: { license: { select: { revocation: true } } } });
  return {
    id: row.id,
    orderId: row.orderId,
    amountCents: row.amountCents,
    currency: row.currency,
    reason: row.reason,
    initiatedBy: row.initiatedBy as RefundResult["initiatedBy"],
    actorEmail: row.actorEmail,
    status: row.status as RefundResult["status"],
    providerRefundId: row.providerRefundId,
    createdAt: row.createdAt,
    full: settled.settled ? settled.full : after.license?.revocation === "refunded",
  };
}

/**
 * Reserves `amount` of a paid order for a new pending refund, in the caller's transaction: one conditional update of
 * the order's refundedCents succeeds only while what has been refunded (or reserved) leaves room for it, so of two
 * racing refunds for what remains, one reserves it and the other finds nothing left (409 refund_exceeds_remaining).
 */
async function reserveRefund(
  tx: Tx,
  order: { id: string; currency: string; amountCents: number; taxCents: number | null },
  id: string,
  amount: number,
  by: { reason: string; initiatedBy: "seller" | "operator" | "buyer"; actorEmail: string | null },
): Promise<void> {
  const total = orderTotal(order);
  const reserved = await tx.order.updateMany({
    where: { id: order.id, status: "paid", refundedCents: { lte: total - amount } },
    data: { refundedCents: { increment: amount } },
  });
  if (reserved.count === 0) {
    const now = await tx.order.findUniqueOrThrow({ where: { id: order.id }, select: { amountCents: true, taxCents: true, refundedCents: true } });
    throw exceeds(remainingOf(now), order.currency);
  }
  await tx.refund.create({ data: { id, orderId: order.id, amountCents: amount, currency: order.currency, ...by, status: "pending" } });
}

/** A refund the provider refused: failed, and its reservation given back (once: conditional on it being pending). */
async function failRefund(id: string, orderId: string, amount: number): Promise<void> {
  await getDb().$transaction(async (tx) => {
    const released = await tx.refund.updateMany({ where: { id, status: "pending" }, data: { status: "failed" } });
    if (released.count > 0) await tx.order.update({ where: { id: orderId }, data: { refundedCents: { decrement: amount } } });
  });
}

/** settleRefund in its own transaction, then what follows its commit: the license cache, the mail and webhook outboxes. */
async function settleNow(id: string, providerRefundId: string | null) {
  const settled = await getDb().$transaction((tx) => settleRefund(tx, id, providerRefundId), { maxWait: 10_000, timeout: 20_000 });
  if (settled.licenseKey) licenseCache().invalidate(settled.licenseKey);
  for (const key of settled.bundleKeys) licenseCache().invalidate(key);
  kickOutbox();
  kickWebhooks();
  return settled;
}

/**
 * The marketplace's own refund, which no person asks for: a payment fulfilment refused (the product may no longer be
 * sold, lib/checkout/fulfil-order.ts) goes back whole. Stored as the operator's refund without an address (the
 * seller's dashboard says "The marketplace"); its reason starts with the refusal's code ("seller_suspended: …").
 */
export const isMarketplaceRefund = (r: { initiatedBy: string; actorEmail: string | null }) => r.initiatedBy === "operator" && r.actorEmail === null;

/**
 * Reserves the whole of a just-paid order for the marketplace's own refund, in the payment event's transaction, so
 * the order, its ledger and the pending refund commit together (a redelivered event finds the event recorded and
 * refunds nothing more). refundReserved asks the provider once that transaction has committed.
 */
export async function reserveMarketplaceRefund(tx: Tx, orderId: string, reason: string): Promise<{ id: string; amountCents: number }> {
  const order = await tx.order.findUniqueOrThrow({ where: { id: orderId }, select: { id: true, currency: true, amountCents: true, taxCents: true } });
  const id = newRefundId();
  const amount = orderTotal(order);
  await reserveRefund(tx, order, id, amount, { reason, initiatedBy: "operator", actorEmail: null });
  return { id, amountCents: amount };
}

/**
 * Asks the provider for a reserved refund and settles it (ledger, license, the buyer's mail), for a refund reserved
 * by another transaction (reserveMarketplaceRefund) or left pending by a process that stopped (resumeAbandonedRefunds).
 * Never throws: a refusal fails the refund and gives its reservation back, and is logged for the operator, who can
 * refund by hand; when the provider cannot be reached the refund stays pending and the refund sweep asks again.
 * Stripe's idempotency key is the refund's, so asking again never refunds twice.
 */
export async function refundReserved(refundId: string): Promise<RefundResult["status"]> {
  const db = getDb();
  try {
    const refund = await db.refund.findUniqueOrThrow({ where: { id: refundId } });
    if (refund.status !== "pending") return refund.status as RefundResult["status"];
    const order = await db.order.findUniqueOrThrow({
      where: { id: refund.orderId },
      select: { id: true, provider: true, providerPaymentId: true, payoutAccountId: true },
    });
    const answer = await askProvider(order, refund.id, refund.amountCents);
    if (answer.ok) {
      await settleNow(refund.id, answer.providerRefundId);
      return "succeeded";
    }
    if (answer.error.code === "payment_provider_unavailable") {
      console.error(`refund ${refund.id} of order ${order.id}: the provider could not be reached; the refund sweep asks again`);
      return "pending";
    }
    await failRefund(refund.id, order.id, refund.amountCents);
    console.error(`refund ${refund.id} of order ${order.id} was REFUSED (${answer.error.detail}); refund the order from the operator's console`);
    return "failed";
  } catch (error) {
    console.error(`refund ${refundId}: could not be completed; the refund sweep asks again`, error);
    return "pending";
  }
}

/** The API's view of a refund. */
export function toRefundOut(r: {
  id: string;
  orderId: string;
  amountCents: number;
  currency: string;
  reason: string;
  initiatedBy: string;
  actorEmail: string | null;
  status: string;
  createdAt: Date;
}): RefundOut {
  return {
    id: r.id,
    order_id: r.orderId,
    amount_cents: r.amountCents,
    currency: r.currency,
    reason: r.reason,
    initiated_by: r.initiatedBy as RefundOut["initiated_by"],
    // The operator's and the buyer's addresses are not the seller's to see.
    actor: r.initiatedBy === "seller" ? r.actorEmail : null,
    status: r.status as RefundOut["status"],
    created_at: r.createdAt.toISOString(),
  };
}
