import type Stripe from "stripe";
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
 * Stripe hosted Checkout: one line item, the buyer's e-mail prefilled, our session id in metadata.
 *
 * A connected seller's sale is a destination charge: the PaymentIntent is created on the platform with
 * `transfer_data.destination` (Stripe moves the money to the seller's account), `application_fee_amount` (the
 * platform's fee stays with the platform) and `on_behalf_of` (the seller is the settlement merchant: their country
 * and statement descriptor, and they are the merchant of record). Without a ready connected account it is a plain
 * charge to the platform.
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
      const session = await stripeClient().checkout.sessions.create(
        {
          mode: "payment",
          line_items: [lineItem(req, req.automaticTax ? "exclusive" : undefined)],
          customer_email: req.buyerEmail,
          client_reference_id: req.orderId,
          metadata,
          payment_intent_data: {
            metadata,
            ...(dest
              ? { application_fee_amount: dest.applicationFeeCents, transfer_data: { destination: dest.accountId }, on_behalf_of: dest.accountId }
              : {}),
          },
          automatic_tax: req.automaticTax
            ? { enabled: true, ...(dest ? { liability: { type: "account" as const, account: dest.accountId } } : {}) }
            : { enabled: false },
          success_url: absoluteUrl(`/checkout/${req.orderId}/success`),
          cancel_url: absoluteUrl(`/checkout/${req.orderId}/cancelled`),
          expires_at: Math.floor(req.expiresAt.getTime() / 1000),
        },
        // A retried create (network error, double submit) returns the same Stripe session.
        { idempotencyKey: `checkout-${req.orderId}` },
      );
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
