import { absoluteUrl } from "../urls.ts";
import type { PaymentProvider } from "./provider.ts";
import { stripeClient } from "./stripe-client.ts";

/** Stripe hosted Checkout: one line item from the product, the buyer's e-mail prefilled, our session id in metadata. */
export function stripeProvider(): PaymentProvider {
  return {
    name: "stripe",
    createSession: async (req) => {
      const session = await stripeClient().checkout.sessions.create(
        {
          mode: "payment",
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: req.currency,
                unit_amount: req.amountCents,
                product_data: { name: req.productName, description: req.description || undefined, images: [req.imageUrl] },
              },
            },
          ],
          customer_email: req.buyerEmail,
          client_reference_id: req.orderId,
          metadata: { order_id: req.orderId, ...req.metadata },
          payment_intent_data: { metadata: { order_id: req.orderId, ...req.metadata } },
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
