import Stripe from "stripe";
import type { StubRoute } from "./stripe-stub";

/**
 * Stripe Billing as the local stand-in plays it: the subscriptions Stripe would hold (created when a test says their
 * checkout completed), the objects the service reads back (a subscription, an invoice's payments), the changes it
 * sends (cancel at period end, resume, cancel now, a customer portal session, a coupon), and the signed events Stripe
 * would deliver, built from that state. Dates are Stripe's: whole seconds.
 */

export interface StubSubscription {
  id: string;
  customer: string;
  orderId: string;
  status: "trialing" | "active" | "past_due" | "canceled" | "unpaid";
  quantity: number;
  unitAmount: number;
  currency: string;
  interval: "month" | "year";
  periodStart: number;
  periodEnd: number;
  trialEnd: number | null;
  cancelAtPeriodEnd: boolean;
  cancellationReason: string | null;
}

const sec = (d: Date | number) => Math.floor((typeof d === "number" ? d : d.getTime()) / 1000);

export function stripeBilling(secret: string) {
  const subs = new Map<string, StubSubscription>();
  const signer = new Stripe("sk_test_unused");
  const changes: { method: string; path: string; form: Record<string, string> }[] = [];
  let seq = 0;
  /** Set to make Stripe decline the card of the next plan changes. */
  const state = { declineChanges: false };
  const tag = Math.random().toString(36).slice(2, 8);

  const subscriptionObject = (s: StubSubscription) => ({
    id: s.id,
    object: "subscription",
    customer: s.customer,
    status: s.status,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    cancel_at: s.cancelAtPeriodEnd ? s.periodEnd : null,
    cancellation_details: { reason: s.cancellationReason, comment: null, feedback: null },
    trial_end: s.trialEnd,
    metadata: { order_id: s.orderId },
    items: {
      object: "list",
      data: [
        {
          id: `si_${s.id}`,
          object: "subscription_item",
          quantity: s.quantity,
          current_period_start: s.periodStart,
          current_period_end: s.periodEnd,
          price: {
            id: `price_${s.id}`,
            object: "price",
            product: `prod_${s.id}`,
            unit_amount: s.unitAmount,
            currency: s.currency,
            recurring: { interval: s.interval },
          },
        },
      ],
    },
  });

  const routes: Record<string, StubRoute> = {
    "GET /v1/subscriptions/": (req) => {
      const s = subs.get(req.path.split("?")[0]!.split("/").pop()!);
      return s
        ? { body: subscriptionObject(s) }
        : { status: 404, body: { error: { type: "invalid_request_error", message: "No such subscription" } } };
    },
    "POST /v1/subscriptions/": (req) => {
      const s = subs.get(req.path.split("/").pop()!);
      if (!s) return { status: 404, body: { error: { type: "invalid_request_error", message: "No such subscription" } } };
      changes.push({ method: "POST", path: req.path, form: Object.fromEntries(req.form) });
      const cancel = req.form.get("cancel_at_period_end");
      if (cancel !== null) s.cancelAtPeriodEnd = cancel === "true";
      const quantity = req.form.get("items[0][quantity]");
      if (quantity !== null) {
        if (state.declineChanges) {
          return { status: 402, body: { error: { type: "card_error", code: "card_declined", message: "Your card was declined." } } };
        }
        const interval = req.form.get("items[0][price_data][recurring][interval]") as "month" | "year";
        s.quantity = Number(quantity);
        s.unitAmount = Number(req.form.get("items[0][price_data][unit_amount]"));
        if (interval !== s.interval) {
          // Another interval starts a new period now, as Stripe does.
          const now = new Date();
          const end = new Date(now);
          end.setUTCMonth(end.getUTCMonth() + (interval === "year" ? 12 : 1));
          s.periodStart = sec(now);
          s.periodEnd = sec(end);
          s.interval = interval;
        }
      }
      return { body: subscriptionObject(s) };
    },
    "DELETE /v1/subscriptions/": (req) => {
      const s = subs.get(req.path.split("/").pop()!);
      if (!s) return { status: 404, body: { error: { type: "invalid_request_error", message: "No such subscription" } } };
      changes.push({ method: "DELETE", path: req.path, form: Object.fromEntries(req.form) });
      if (s.status === "canceled") {
        return { status: 400, body: { error: { type: "invalid_request_error", message: "This subscription has already been canceled." } } };
      }
      s.status = "canceled";
      s.cancellationReason = "cancellation_requested";
      return { body: subscriptionObject(s) };
    },
    "GET /v1/invoice_payments": (req) => {
      const invoice = new URL(req.path, "http://stub").searchParams.get("invoice");
      return {
        body: {
          object: "list",
          has_more: false,
          data: [
            {
              id: `inpay_${invoice}`,
              object: "invoice_payment",
              invoice,
              status: "paid",
              payment: { type: "payment_intent", payment_intent: `pi_${invoice}` },
            },
          ],
        },
      };
    },
    "POST /v1/coupons": (req) => ({
      body: {
        id: `co_${tag}${++seq}`,
        object: "coupon",
        amount_off: Number(req.form.get("amount_off")),
        currency: req.form.get("currency"),
        duration: req.form.get("duration"),
        duration_in_months: req.form.get("duration_in_months") ? Number(req.form.get("duration_in_months")) : null,
      },
    }),
    "POST /v1/billing_portal/sessions": (req) => ({
      body: {
        id: `bps_${tag}${++seq}`,
        object: "billing_portal.session",
        customer: req.form.get("customer"),
        url: `https://billing.stripe.com/p/session/${tag}${seq}`,
      },
    }),
  };

  /** A signed delivery of `event` as Stripe sends it: the raw body and its Stripe-Signature header. */
  const sign = (event: unknown) => {
    const payload = JSON.stringify(event);
    return { payload, header: signer.webhooks.generateTestHeaderString({ payload, secret }) };
  };
  const envelope = (type: string, object: unknown) => ({
    id: `evt_${tag}_${++seq}`,
    object: "event",
    type,
    api_version: "2026-10-28.endive",
    created: sec(Date.now()),
    data: { object },
  });

  return {
    routes,
    state,
    subs,
    changes,
    sign,
    /** Stripe created a subscription for this checkout (it completes next): periods from `start`, or a trial. */
    create(o: {
      orderId: string;
      quantity: number;
      unitAmount: number;
      interval?: "month" | "year";
      start: Date;
      end: Date;
      trialEnd?: Date | null;
      currency?: string;
    }) {
      const id = `sub_${tag}${++seq}`;
      const s: StubSubscription = {
        id,
        customer: `cus_${tag}${seq}`,
        orderId: o.orderId,
        status: o.trialEnd ? "trialing" : "active",
        quantity: o.quantity,
        unitAmount: o.unitAmount,
        currency: o.currency ?? "usd",
        interval: o.interval ?? "month",
        periodStart: sec(o.start),
        periodEnd: sec(o.end),
        trialEnd: o.trialEnd ? sec(o.trialEnd) : null,
        cancelAtPeriodEnd: false,
        cancellationReason: null,
      };
      subs.set(id, s);
      return s;
    },
    /** checkout.session.completed for a subscription checkout: its first invoice paid (or a trial with nothing due). */
    sessionCompleted(s: StubSubscription, session: { id: string; orderId: string; amount: number; trial?: boolean }) {
      return envelope("checkout.session.completed", {
        id: session.id,
        object: "checkout.session",
        mode: "subscription",
        status: "complete",
        payment_status: session.trial ? "no_payment_required" : "paid",
        amount_total: session.amount,
        amount_subtotal: session.amount,
        currency: s.currency,
        client_reference_id: session.orderId,
        metadata: { order_id: session.orderId },
        subscription: s.id,
        customer: s.customer,
        invoice: `in_${s.id}_first`,
        payment_intent: null,
      });
    },
    /**
     * An invoice event of the subscription's period [start, end): `invoice.paid` or `invoice.payment_failed`, billing
     * reason `subscription_cycle` unless told. The amount is before tax; `tax` is added on top.
     */
    invoice(
      type: "invoice.paid" | "invoice.payment_failed",
      s: StubSubscription,
      o: { id: string; start: Date; end: Date; amount: number; discount?: number; tax?: number; reason?: string },
    ) {
      const tax = o.tax ?? 0;
      const total = o.amount + tax;
      return envelope(type, {
        id: o.id,
        object: "invoice",
        billing_reason: o.reason ?? "subscription_cycle",
        status: type === "invoice.paid" ? "paid" : "open",
        currency: s.currency,
        customer: s.customer,
        subtotal: o.amount + (o.discount ?? 0),
        total,
        amount_paid: type === "invoice.paid" ? total : 0,
        amount_due: total,
        total_taxes: tax ? [{ amount: tax, tax_behavior: "exclusive" }] : [],
        total_discount_amounts: o.discount ? [{ amount: o.discount, discount: "di_1" }] : [],
        parent: {
          type: "subscription_details",
          subscription_details: { subscription: s.id, metadata: { order_id: s.orderId } },
          quote_details: null,
        },
        lines: {
          object: "list",
          data: [
            {
              id: `il_${o.id}`,
              object: "line_item",
              quantity: s.quantity,
              period: { start: sec(o.start), end: sec(o.end) },
              parent: { type: "subscription_item_details", subscription_item_details: { subscription: s.id, proration: false } },
            },
          ],
        },
      });
    },
    /** customer.subscription.updated / .deleted, carrying the subscription as it is now (or `as` it was). */
    subscriptionEvent(type: "customer.subscription.updated" | "customer.subscription.deleted", s: StubSubscription, as?: Partial<StubSubscription>) {
      return envelope(type, subscriptionObject({ ...s, ...as }));
    },
  };
}
