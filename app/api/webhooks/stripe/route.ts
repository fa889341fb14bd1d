import { readBodyText } from "@/lib/http/input";
import { methods, route } from "@/lib/http/route";
import { handleStripeWebhook } from "@/lib/payments/stripe-webhook";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    // The signature covers the exact bytes Stripe sent, so the body is read raw, not parsed first.
    handler: async ({ request }) => handleStripeWebhook(await readBodyText(request, 512 * 1024), request.headers.get("stripe-signature")),
  }),
});
