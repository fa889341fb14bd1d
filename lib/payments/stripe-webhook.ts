import type Stripe from "stripe";
import { env } from "../env.ts";
import { AppError } from "../http/errors.ts";
import { applyPaymentEvent, type AppliedEvent, type PaymentEvent } from "./apply-payment-event.ts";
import { stripeClient } from "./stripe-client.ts";
import { applyAccountEvent, applyPayoutEvent } from "../payouts/stripe-events.ts";
import { applyChargeEvent } from "../refunds/stripe-events.ts";
import {
  applyStripeInvoiceEvent,
  applyStripeSubscriptionEvent,
  invoicePaymentIntent,
  retrieveStripeSubscription,
  stripeSubscriptionFacts,
} from "../subscriptions/stripe-billing.ts";

/**
 * The tax Stripe added on top, or null when it calculated none: tax is "not calculated" unless automatic tax was on
 * for the session (or Stripe nonetheless reports an amount, which must then be accounted for).
 */
function taxOf(session: Stripe.Checkout.Session): number | null {
  const tax = session.total_details?.amount_tax ?? null;
  if (tax) return tax;
  // Typed as always present, but an event from an older API version may lack it: absent means not enabled.
  const automatic = session.automatic_tax as Stripe.Checkout.Session.AutomaticTax | undefined;
  return automatic?.enabled ? (tax ?? 0) : null;
}

/** A checkout session event as a provider-neutral payment event. */
function fromCheckoutEvent(event: Stripe.Event): PaymentEvent {
  const base = { id: event.id, provider: "stripe" as const, type: event.type };
  const session = event.data.object as Stripe.Checkout.Session;
  const orderId = session.metadata?.order_id ?? session.client_reference_id ?? null;
  const common = {
    ...base,
    orderId,
    providerSessionId: session.id,
    amountCents: session.amount_total,
    subtotalCents: session.amount_subtotal,
    currency: session.currency,
    paymentStatus: session.payment_status,
    paid: {
      providerPaymentId: typeof session.payment_intent === "string" ? session.payment_intent : (session.payment_intent?.id ?? null),
      taxCents: taxOf(session),
    },
  };
  if (session.mode === "subscription") return { ...common, ...subscriptionStatus(session), kind: subscriptionKind(event.type, session) };
  switch (event.type) {
    case "checkout.session.completed":
      // Delayed methods (bank debits) complete unpaid and report later through async_payment_succeeded. Any
      // other status (no_payment_required, or none) goes on as "paid" and is refused there: only "paid" fulfils.
      return { ...common, kind: session.payment_status === "unpaid" ? "pending" : "paid" };
    case "checkout.session.async_payment_succeeded":
      return { ...common, kind: "paid" };
    case "checkout.session.async_payment_failed":
      return { ...common, kind: "failed" };
    case "checkout.session.expired":
      return { ...common, kind: "expired" };
    default:
      return { ...common, kind: "ignored" };
  }
}

/**
 * A subscription checkout's payment state: its first invoice is "paid", or, for a free trial, "no_payment_required"
 * with nothing charged, which fulfils an order of 0 (the trial's) and nothing else (the amount check refuses it).
 */
function subscriptionStatus(session: Stripe.Checkout.Session) {
  const free = session.payment_status === "no_payment_required" && session.amount_total === 0;
  return { paymentStatus: free ? "paid" : session.payment_status };
}

function subscriptionKind(type: string, session: Stripe.Checkout.Session): PaymentEvent["kind"] {
  if (type === "checkout.session.completed" || type === "checkout.session.async_payment_succeeded") {
    return session.payment_status === "unpaid" ? "pending" : "paid";
  }
  if (type === "checkout.session.async_payment_failed") return "failed";
  if (type === "checkout.session.expired") return "expired";
  return "ignored";
}

/**
 * A paid subscription checkout, completed with what Stripe alone knows: the subscription's ids and dates, and the
 * PaymentIntent of its first invoice (refunds and disputes find the order by it). Read before anything is recorded;
 * if Stripe cannot answer, the event waits (409) and Stripe delivers it again.
 */
async function withSubscription(event: PaymentEvent, session: Stripe.Checkout.Session): Promise<PaymentEvent> {
  const subscriptionId = typeof session.subscription === "string" ? session.subscription : (session.subscription?.id ?? null);
  if (event.kind !== "paid" || !subscriptionId) return event;
  const subscription = await retrieveStripeSubscription(subscriptionId);
  const invoiceId = typeof session.invoice === "string" ? session.invoice : (session.invoice?.id ?? null);
  const paymentIntent = invoiceId && (session.amount_total ?? 0) > 0 ? await invoicePaymentIntent(invoiceId) : null;
  return { ...event, paid: { ...event.paid, providerPaymentId: paymentIntent, subscription: stripeSubscriptionFacts(subscription) } };
}

/**
 * Verifies a webhook delivery on its raw body and applies it. A bad or missing signature is refused with 400 and
 * changes nothing; the answer is 2xx only once the event's effect has committed. A genuine event that must not
 * fulfil its order (not paid, no amount, an amount or currency other than the order's, another session) is logged,
 * recorded and answered 200 with fulfilled: false and the reason: the signed event will never change, so Stripe
 * retrying it for days would achieve nothing.
 */
export async function handleStripeWebhook(rawBody: string, signature: string | null): Promise<AppliedEvent & { received: true }> {
  const secret = env().STRIPE_WEBHOOK_SECRET;
  if (!env().STRIPE_SECRET_KEY || !secret) {
    throw new AppError("stripe_not_configured", 404, "Stripe is not configured on this deployment (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET).");
  }
  if (!signature) throw new AppError("invalid_signature", 400, "The Stripe-Signature header is missing.");
  return { received: true, ...(await dispatch(verified(rawBody, signature, secret, env().STRIPE_CONNECT_WEBHOOK_SECRET))) };
}

/**
 * The event, if the signature is the platform endpoint's or the Connect endpoint's. Stripe sends connected accounts'
 * events (account.updated, payout.paid) to a Connect endpoint with its own secret; an event proved by that secret
 * must name the connected account it comes from, so the Connect secret cannot pass off a platform event.
 */
function verified(rawBody: string, signature: string, platformSecret: string, connectSecret: string | undefined): Stripe.Event {
  const webhooks = stripeClient().webhooks;
  try {
    return webhooks.constructEvent(rawBody, signature, platformSecret);
  } catch {
    // Not the platform endpoint's signature: perhaps the Connect endpoint's.
  }
  if (connectSecret) {
    let event: Stripe.Event | undefined;
    try {
      event = webhooks.constructEvent(rawBody, signature, connectSecret);
    } catch {
      // Neither secret signed it.
    }
    if (event) {
      if (event.account) return event;
      throw new AppError("invalid_signature", 400, "An event signed for the Connect endpoint must come from a connected account.");
    }
  }
  throw new AppError("invalid_signature", 400, "The Stripe-Signature header does not match this payload (or it is too old).");
}

/**
 * Which module applies which Stripe events: checkout sessions (payments), invoices and subscriptions (Stripe
 * Billing's renewals, declines and cancellations), Connect accounts (payouts), charges, refunds and disputes (money
 * going back). Each applies its event exactly once through applyOnce; anything else is
 * recorded and ignored. That includes payment_intent.* (and charge.succeeded): an ACP order paid with a Shared Payment
 * Token (lib/acp/stripe-spt.ts) was fulfilled when complete confirmed its PaymentIntent, so those events must never
 * fulfil it again; its refunds and disputes find it by the PaymentIntent id the order stores.
 */
async function dispatch(event: Stripe.Event): Promise<AppliedEvent> {
  if (event.type.startsWith("checkout.session.")) {
    const session = event.data.object as Stripe.Checkout.Session;
    const payment = fromCheckoutEvent(event);
    return applyPaymentEvent(session.mode === "subscription" ? await withSubscription(payment, session) : payment);
  }
  if (event.type.startsWith("invoice.")) return applyStripeInvoiceEvent(event);
  if (event.type.startsWith("customer.subscription.")) return applyStripeSubscriptionEvent(event);
  if (event.type.startsWith("account.")) return applyAccountEvent(event);
  if (event.type.startsWith("payout.")) return applyPayoutEvent(event);
  if (event.type.startsWith("charge.") || event.type.startsWith("refund.")) return applyChargeEvent(event);
  return applyPaymentEvent({ id: event.id, provider: "stripe", type: event.type, kind: "ignored", orderId: null });
}
