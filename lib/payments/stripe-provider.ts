import type Stripe from "stripe";
import { PRICING } from "../pricing.ts";
import { absoluteUrl } from "../urls.ts";
import type { HostedSessionRequest, PaymentProvider } from "./types.ts";
import { stripeClient } from "./stripe-client.ts";

/**
 * The line item that makes Stripe charge exactly the order's amount before tax. Without a coupon: the seats as the
 * quantity at the list price, so the buyer's receipt reads "N × price". With a coupon: one line "Product — N seats
 * (coupon CODE)" at our discounted total. We deliberately do not create Stripe-side coupons: that would mean a Stripe
 * object per code to keep in sync with ours, and Stripe's rounding of a percentage could differ from ours by a
 * minor unit, so the charge would no longer equal order.amountCents and the webhook's amount check would refuse it.
 */
function lineItem(req: HostedSessionRequest, taxBehavior: "exclusive" | undefined): Stripe.Checkout.SessionCreateParams.LineItem {
  const discounted = req.discountCents > 0;
  const seats = req.quantity > 1 ? ` — ${req.quantity} seats` : "";
  const name = discounted ? `${req.productName}${seats} (coupon ${req.couponCode ?? ""})` : req.productName;
  return {
    quantity: discounted ? 1 : req.quantity,
    price_data: {
      currency: req.currency,
      unit_amount: discounted ? req.amountCents : req.unitAmountCents,
      ...(taxBehavior ? { tax_behavior: taxBehavior } : {}),
      product_data: { name, description: req.description || undefined, images: [req.imageUrl] },
    },
  };
}

/**
 * A subscription's recurring line: the seats as the quantity at the price of one seat for one period, so Stripe's
 * invoices read "N × price / month" and a seat change later is a quantity change.
 */
function recurringLineItem(
  req: HostedSessionRequest,
  interval: "month" | "year",
  taxBehavior: "exclusive" | undefined,
): Stripe.Checkout.SessionCreateParams.LineItem {
  return {
    quantity: req.quantity,
    price_data: {
      currency: req.currency,
      unit_amount: req.unitAmountCents,
      recurring: { interval },
      ...(taxBehavior ? { tax_behavior: taxBehavior } : {}),
      product_data: { name: req.productName, description: req.description || undefined, images: [req.imageUrl] },
    },
  };
}

/**
 * The coupon of a subscription checkout as a Stripe coupon of its own: an amount off each charge it applies to (ours,
 * to the minor unit, so Stripe's invoices equal what the buyer was quoted), for as long as ours lasts. One per
 * checkout, redeemable once, created idempotently (a retried checkout finds the same one).
 */
async function stripeCoupon(req: HostedSessionRequest, coupon: NonNullable<NonNullable<HostedSessionRequest["subscription"]>["coupon"]>) {
  const created = await stripeClient().coupons.create(
    {
      amount_off: coupon.discountCents,
      currency: req.currency,
      duration: coupon.duration,
      ...(coupon.duration === "repeating" ? { duration_in_months: coupon.months ?? 1 } : {}),
      max_redemptions: 1,
      name: (req.couponCode ?? "Coupon").slice(0, 40),
      metadata: { order_id: req.orderId, coupon_code: req.couponCode ?? "" },
    },
    { idempotencyKey: `coupon-${req.orderId}` },
  );
  return created.id;
}

/**
 * Stripe hosted Checkout: one line item, the buyer's e-mail prefilled, our session id in metadata.
 *
 * A connected seller's sale is a destination charge: the PaymentIntent is created on the platform with
 * `transfer_data.destination` (Stripe moves the money to the seller's account), `application_fee_amount` (the
 * platform's fee stays with the platform) and `on_behalf_of` (the seller is the settlement merchant: their country
 * and statement descriptor, and they are the merchant of record). Without a ready connected account it is a plain
 * charge to the platform.
 *
 * A subscription is Checkout in `mode: subscription` and Stripe Billing from then on: the same destination, as
 * `subscription_data.transfer_data` with `application_fee_percent` (PRICING's percentage of every invoice) and
 * `on_behalf_of`; the free trial as `trial_period_days`; the coupon as a Stripe coupon with its duration. Stripe then
 * charges each period itself and tells us by webhook (lib/subscriptions/stripe-billing.ts).
 *
 * Tax: `automatic_tax[enabled]` is always sent, so an account-level "tax by default" setting cannot add tax we did not
 * ask for. With tax on, prices are tax-exclusive (tax is added on top, amount_subtotal stays the order's amount), and
 * for an on_behalf_of charge the liability is the connected account, as Stripe requires when the seller is the
 * merchant of record (its head office and registrations are used).
 */
export function stripeProvider(): PaymentProvider {
  return {
    name: "stripe",
    createSession: async (req) => {
      const dest = req.destination;
      const metadata = { order_id: req.orderId, ...req.metadata };
      const taxBehavior = req.automaticTax ? ("exclusive" as const) : undefined;
      const common = {
        customer_email: req.buyerEmail,
        client_reference_id: req.orderId,
        metadata,
        automatic_tax: req.automaticTax
          ? { enabled: true, ...(dest ? { liability: { type: "account" as const, account: dest.accountId } } : {}) }
          : { enabled: false },
        success_url: absoluteUrl(`/checkout/${req.orderId}/success`),
        cancel_url: absoluteUrl(`/checkout/${req.orderId}/cancelled`),
        expires_at: Math.floor(req.expiresAt.getTime() / 1000),
      };
      const sub = req.subscription;
      const params: Stripe.Checkout.SessionCreateParams = sub
        ? {
            ...common,
            mode: "subscription",
            line_items: [recurringLineItem(req, sub.interval, taxBehavior)],
            ...(sub.coupon && sub.coupon.discountCents > 0 ? { discounts: [{ coupon: await stripeCoupon(req, sub.coupon) }] } : {}),
            subscription_data: {
              metadata,
              ...(sub.trialDays > 0 ? { trial_period_days: sub.trialDays } : {}),
              ...(dest
                ? {
                    application_fee_percent: PRICING.transaction_fee_percent,
                    transfer_data: { destination: dest.accountId },
                    on_behalf_of: dest.accountId,
                  }
                : {}),
            },
          }
        : {
            ...common,
            mode: "payment",
            line_items: [lineItem(req, taxBehavior)],
            payment_intent_data: {
              metadata,
              ...(dest
                ? { application_fee_amount: dest.applicationFeeCents, transfer_data: { destination: dest.accountId }, on_behalf_of: dest.accountId }
                : {}),
            },
          };
      // A retried create (network error, double submit) returns the same Stripe session.
      const session = await stripeClient().checkout.sessions.create(params, { idempotencyKey: `checkout-${req.orderId}` });
      if (!session.url) throw new Error("Stripe returned a checkout session without a URL");
      return { url: session.url, providerSessionId: session.id };
    },
  };
}

/**
 * Expires an open Stripe Checkout Session, so its page can no longer take a payment (the order was closed here).
 * Best-effort: a failure (Stripe unreachable, the session already complete or expired, Stripe no longer configured)
 * is logged and answered false, never thrown; a payment that still arrives is refused by fulfilment and refunded.
 */
export async function expireStripeSession(sessionId: string): Promise<boolean> {
  try {
    await stripeClient().checkout.sessions.expire(sessionId);
    return true;
  } catch (error) {
    console.error(`Stripe: checkout session ${sessionId} could not be expired:`, (error as Error).message);
    return false;
  }
}
