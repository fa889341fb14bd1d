import Stripe from "stripe";
import { getDb } from "../db.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { AppError } from "../http/errors.ts";
import { licenseCache } from "../licensing/license-state.ts";
import { applyPaymentEvent, type AppliedEvent } from "../payments/apply-payment-event.ts";
import { applyOnce, EventNotReady } from "../payments/event-log.ts";
import { stripeClient } from "../payments/stripe-client.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import {
  cancelSubscription,
  endSubscription,
  resumeSubscription,
  subscriptionChargeData,
  type StripeSubscriptionFacts,
  type SubscriptionActor,
} from "./lifecycle.ts";
import { addDays, PAST_DUE_DAYS } from "./plans.ts";

/**
 * Subscriptions Stripe bills (Checkout `mode: subscription`, then Stripe Billing): Stripe charges every period and
 * retries a declined card itself; its events move the subscription here, through the same life cycle as test mode's
 * (lib/subscriptions/lifecycle.ts), and what is decided here (a cancellation on My licenses, the dashboard or /admin, a
 * refund) is sent to Stripe.
 *
 * Events in, each applied once (the payment-event log) and each safe in any order:
 * - `invoice.paid` of a renewal (`subscription_cycle`): the invoice becomes the period's order (one per invoice and per
 *   period start, found again by either on every instance) and is fulfilled like a test-mode renewal: the ledger's sale,
 *   fee and tax, the period moved forward (never back: a late invoice of an earlier period moves nothing), the license's
 *   expiry, the receipt. A plan change's invoice (`subscription_update`) is a charge of the subscription, in the ledger.
 *   The first invoice (`subscription_create`) is the checkout's, fulfilled by `checkout.session.completed`.
 * - `invoice.payment_failed`: the period's order stays open and the subscription is past due (once); a payment that
 *   was already recorded is never undone by a failure reported after it.
 * - `customer.subscription.updated` / `.deleted`: the subscription as Stripe has it *now* (read back from Stripe, so a
 *   stale event applied late cannot undo a newer change): canceled at period end (the customer portal), resumed, seats,
 *   or ended (canceled, or unpaid after Stripe's retries).
 */

const SYSTEM = { type: "system" as const, name: null };
const PORTAL: SubscriptionActor = { type: "buyer", name: "Stripe customer portal" };

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : (v?.id ?? null));
const at = (seconds: number | null | undefined) => (typeof seconds === "number" && seconds > 0 ? new Date(seconds * 1000) : null);

/** The facts of a Stripe subscription that our subscription keeps: ids, the current period, the trial's end. */
export function stripeSubscriptionFacts(s: Stripe.Subscription): StripeSubscriptionFacts {
  const item = s.items.data[0];
  return {
    providerSubscriptionId: s.id,
    providerCustomerId: idOf(s.customer),
    periodStart: at(item?.current_period_start),
    periodEnd: at(item?.current_period_end),
    trialEnd: s.status === "trialing" || (s.trial_end && s.trial_end * 1000 > Date.now()) ? at(s.trial_end) : null,
  };
}

/** Reads a subscription from Stripe; when Stripe cannot answer, the event waits (409) and Stripe delivers it again. */
export async function retrieveStripeSubscription(id: string): Promise<Stripe.Subscription> {
  try {
    return await stripeClient().subscriptions.retrieve(id);
  } catch (error) {
    console.error(`Stripe: could not read subscription ${id}:`, (error as Error).message);
    throw new EventNotReady(`could not read subscription ${id} from Stripe yet`);
  }
}

/** The PaymentIntent that paid an invoice (refunds and disputes find the order by it); null when none did (0 due). */
export async function invoicePaymentIntent(invoiceId: string): Promise<string | null> {
  try {
    const payments = await stripeClient().invoicePayments.list({ invoice: invoiceId, status: "paid", limit: 3 });
    for (const p of payments.data) {
      const pi = idOf(p.payment.payment_intent);
      if (pi) return pi;
    }
    return null;
  } catch (error) {
    console.error(`Stripe: could not read the payments of invoice ${invoiceId}:`, (error as Error).message);
    throw new EventNotReady(`could not read the payments of invoice ${invoiceId} from Stripe yet`);
  }
}

const ignored = (event: Stripe.Event, reason = "ignored") =>
  applyPaymentEvent({ id: event.id, provider: "stripe", type: event.type, kind: "ignored", orderId: null }).then((r) => ({ ...r, reason }));

/** The invoice's subscription (ours when its metadata names our order), and the line that bills its period. */
function invoiceFacts(inv: Stripe.Invoice) {
  const details = inv.parent?.subscription_details ?? null;
  const subscriptionId = idOf(details?.subscription);
  const ours = Boolean(details?.metadata?.order_id);
  const lines = inv.lines.data;
  const line = lines.find((l) => l.parent?.subscription_item_details && !l.parent.subscription_item_details.proration) ?? lines[0] ?? null;
  const tax = (inv.total_taxes ?? []).reduce((sum, t) => sum + t.amount, 0);
  const discount = (inv.total_discount_amounts ?? []).reduce((sum, d) => sum + d.amount, 0);
  return {
    subscriptionId,
    ours,
    periodStart: at(line?.period.start),
    periodEnd: at(line?.period.end),
    quantity: line?.quantity ?? null,
    /** Before tax, after discounts: what the platform fee is on and what the order's amount is. */
    amountCents: inv.total - tax,
    taxCents: tax,
    discountCents: discount,
    subtotalCents: inv.subtotal,
  };
}

const isUniqueViolation = (e: unknown) => (e as { code?: string } | null)?.code === "P2002";

/**
 * The order of one invoice of a subscription: found by the invoice id, or by its period (a period's order opened
 * for an earlier attempt), or created open. Two instances creating it at once: the second finds the first's.
 */
async function invoiceOrder(inv: Stripe.Invoice, f: ReturnType<typeof invoiceFacts>, subscriptionId: string) {
  const db = getDb();
  const existing = await db.order.findUnique({ where: { providerSessionId: inv.id } });
  if (existing) return existing;
  const s = await db.subscription.findUniqueOrThrow({ where: { id: subscriptionId } });
  const period = inv.billing_reason !== "subscription_update" && f.periodStart && f.periodEnd ? { start: f.periodStart, end: f.periodEnd } : null;
  const renewal = period !== null;
  if (period) {
    const forPeriod = await db.order.findUnique({ where: { subscriptionId_periodStart: { subscriptionId, periodStart: period.start } } });
    if (forPeriod) {
      // The period's order from an earlier invoice (Stripe re-invoiced it): this invoice pays it now.
      if (forPeriod.status === "open" && forPeriod.providerSessionId !== inv.id) {
        await db.order.updateMany({ where: { id: forPeriod.id, status: "open" }, data: { providerSessionId: inv.id, amountCents: f.amountCents } });
        return db.order.findUniqueOrThrow({ where: { id: forPeriod.id } });
      }
      return forPeriod;
    }
  }
  try {
    return await db.order.create({
      data: {
        // Stripe's invoice id names the charge here too, as test mode's renewals are "in_…".
        id: `in_${inv.id.replace(/^in_/, "")}`,
        providerSessionId: inv.id,
        ...(await subscriptionChargeData(db, s, {
          quantity: f.quantity ?? s.quantity,
          unitAmountCents: s.unitAmountCents,
          subtotalCents: f.subtotalCents,
          discountCents: f.discountCents,
          amountCents: f.amountCents,
          currency: inv.currency,
        })),
        interval: renewal ? s.interval : null,
        periodStart: period?.start ?? null,
        periodEnd: period?.end ?? null,
        expiresAt: addDays(f.periodStart ?? new Date(), PAST_DUE_DAYS + 1),
      },
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return db.order.findUniqueOrThrow({ where: { providerSessionId: inv.id } });
  }
}

/** `invoice.*` events of the subscriptions Stripe bills for us. */
export async function applyStripeInvoiceEvent(event: Stripe.Event): Promise<AppliedEvent> {
  const inv = event.data.object as Stripe.Invoice;
  if (event.type !== "invoice.paid" && event.type !== "invoice.payment_failed") return ignored(event);
  const f = invoiceFacts(inv);
  if (!f.subscriptionId || !f.ours) return ignored(event, "not_ours");
  // A credit note of a plan change (fewer seats): Stripe keeps it as the customer's balance, taken off the next
  // invoice, which is recorded at what it then charges.
  if (inv.total < 0) return ignored(event, "credit");
  // The first invoice is the checkout's: checkout.session.completed fulfils it (with the session's own checks).
  if (inv.billing_reason === "subscription_create") return ignored(event, "first_invoice");
  const sub = await getDb().subscription.findUnique({ where: { providerSubscriptionId: f.subscriptionId }, select: { id: true } });
  // Ours, but its checkout's completion has not been applied here yet: Stripe delivers this again later.
  if (!sub) throw new EventNotReady(`subscription ${f.subscriptionId} is not recorded here yet`);
  const order = await invoiceOrder(inv, f, sub.id);
  if (event.type === "invoice.payment_failed") {
    return applyPaymentEvent({ id: event.id, provider: "stripe", type: event.type, kind: "failed", orderId: order.id, providerSessionId: inv.id });
  }
  const paymentIntent = inv.amount_paid > 0 ? await invoicePaymentIntent(inv.id) : null;
  const applied = await applyPaymentEvent({
    id: event.id,
    provider: "stripe",
    type: event.type,
    kind: "paid",
    orderId: order.id,
    providerSessionId: inv.id,
    amountCents: inv.amount_paid,
    subtotalCents: f.amountCents,
    currency: inv.currency,
    paymentStatus: "paid",
    paid: { providerPaymentId: paymentIntent, taxCents: f.taxCents },
  });
  await invalidate(sub.id);
  return applied;
}

async function invalidate(subscriptionId: string): Promise<void> {
  const s = await getDb().subscription.findUnique({ where: { id: subscriptionId }, select: { license: { select: { key: true } } } });
  if (s?.license) licenseCache().invalidate(s.license.key);
}

/**
 * `customer.subscription.*` events: applies the subscription as Stripe has it now. Ended on Stripe → ended here
 * (unpaid when Stripe gave up on a declined payment, else canceled); set to cancel at the period's end → canceling;
 * that undone → resumed; the seat count → the license's machines.
 */
export async function applyStripeSubscriptionEvent(event: Stripe.Event): Promise<AppliedEvent> {
  const fromEvent = event.data.object as Stripe.Subscription;
  if (!fromEvent.metadata.order_id) return ignored(event, "not_ours");
  const local = await getDb().subscription.findUnique({ where: { providerSubscriptionId: fromEvent.id }, select: { id: true } });
  if (!local) {
    // Created before its checkout's completion was applied: that completion records it. Anything else waits.
    if (event.type === "customer.subscription.created") return ignored(event, "not_yet_recorded");
    throw new EventNotReady(`subscription ${fromEvent.id} is not recorded here yet`);
  }
  const current = event.type === "customer.subscription.deleted" ? fromEvent : await retrieveStripeSubscription(fromEvent.id);
  const now = new Date();
  const result = await applyOnce({ id: event.id, provider: "stripe", type: event.type }, async (tx) => {
    const s = await tx.subscription.findUniqueOrThrow({ where: { id: local.id }, include: { product: { select: { maxMachines: true } } } });
    const ended = event.type === "customer.subscription.deleted" || current.status === "canceled" || current.status === "incomplete_expired";
    if (ended) {
      await tx.subscription.updateMany({ where: { id: s.id, providerEndedAt: null }, data: { providerEndedAt: now } });
      const unpaid = current.cancellation_details?.reason === "payment_failed" || s.status === "past_due";
      const done = await endSubscription(tx, s.id, unpaid ? "unpaid" : "canceled", now, unpaid ? SYSTEM : PORTAL);
      return { applied: done, outcome: done ? `ended (${unpaid ? "unpaid" : "canceled"})` : `already ${s.status}` };
    }
    const changes: string[] = [];
    const quantity = current.items.data[0]?.quantity ?? s.quantity;
    if (quantity !== s.quantity && quantity >= 1) {
      await tx.subscription.update({ where: { id: s.id }, data: { quantity } });
      if (s.licenseId) await tx.license.update({ where: { id: s.licenseId }, data: { maxMachines: s.product.maxMachines * quantity } });
      changes.push(`seats ${s.quantity} → ${quantity}`);
    }
    const cancelsAtEnd = current.cancel_at_period_end || current.cancel_at !== null;
    if (cancelsAtEnd && (s.status === "active" || s.status === "trialing")) {
      if (await cancelSubscription(tx, s.id, PORTAL, now)) changes.push("canceled at period end");
    } else if (!cancelsAtEnd && s.status === "canceling") {
      if (await resumeSubscription(tx, s.id, PORTAL, now)) changes.push("resumed");
    }
    return { applied: changes.length > 0, outcome: changes.join("; ") || "no change" };
  });
  if (result.duplicate) return { duplicate: true, applied: false, fulfilled: false };
  await invalidate(local.id);
  if (result.applied) {
    kickOutbox();
    kickWebhooks();
  }
  return { duplicate: false, applied: result.applied, fulfilled: false };
}

/** A Stripe call from one of our actions that Stripe refused or did not answer: nothing changed here either. */
function providerUnavailable(error: unknown): AppError {
  console.error("Stripe: a subscription change was not accepted:", (error as Error).message);
  return new AppError("payment_provider_unavailable", 502, "Stripe did not accept the change; nothing was changed. Please retry in a moment.");
}

/**
 * Tells Stripe what was decided here, before it is recorded here (so Stripe never bills what we think is canceled):
 * cancel at the period's end, undo that, or end at once (a past-due subscription canceled). Idempotent per change.
 */
export async function sendStripeChange(
  s: { id: string; providerSubscriptionId: string | null; updatedAt: Date },
  change: "cancel_at_period_end" | "resume" | "cancel_now",
): Promise<void> {
  if (!s.providerSubscriptionId) return;
  const key = `${change}-${s.id}-${s.updatedAt.getTime()}`;
  try {
    if (change === "cancel_now") await stripeClient().subscriptions.cancel(s.providerSubscriptionId, {}, { idempotencyKey: key });
    else
      await stripeClient().subscriptions.update(
        s.providerSubscriptionId,
        { cancel_at_period_end: change === "cancel_at_period_end" },
        { idempotencyKey: key },
      );
  } catch (error) {
    throw providerUnavailable(error);
  }
}

/** Stripe's customer portal for the buyer of a subscription Stripe bills: card, invoices, billing details. */
export async function stripePortalUrl(customerId: string, returnUrl: string): Promise<string> {
  try {
    const session = await stripeClient().billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
    return session.url;
  } catch (error) {
    throw providerUnavailable(error);
  }
}

/**
 * Ends on Stripe the subscriptions that ended here without Stripe's word (a refund of the latest invoice, a listing
 * removed or a seller suspended): the job loop calls this until Stripe confirms, so no ended subscription is billed
 * again. Returns how many Stripe now knows of.
 */
export async function endOnStripe(limit: number, now = new Date()): Promise<number> {
  const db = getDb();
  const pending = await db.subscription.findMany({
    where: { provider: "stripe", status: "ended", providerEndedAt: null, providerSubscriptionId: { not: null } },
    take: limit,
    select: { id: true, providerSubscriptionId: true },
  });
  let done = 0;
  for (const s of pending) {
    if (!s.providerSubscriptionId) continue;
    try {
      await stripeClient().subscriptions.cancel(s.providerSubscriptionId, {}, { idempotencyKey: `end-${s.id}` });
    } catch (error) {
      // Already canceled on Stripe: it knows.
      const already = error instanceof Stripe.errors.StripeInvalidRequestError && /cancel/i.test(error.message);
      if (!already) {
        console.error(`Stripe: subscription ${s.providerSubscriptionId} could not be ended:`, (error as Error).message);
        continue;
      }
    }
    await db.subscription.updateMany({ where: { id: s.id, providerEndedAt: null }, data: { providerEndedAt: now } });
    done++;
  }
  return done;
}
