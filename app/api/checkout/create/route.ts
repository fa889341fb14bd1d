import { createCheckout } from "@/lib/checkout/create-checkout";
import { createCheckoutRequestSchema } from "@/lib/checkout/schemas";
import { RULES } from "@/lib/http/rate-limit";
import { methods, route } from "@/lib/http/route";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    body: createCheckoutRequestSchema,
    rateLimit: ({ client }) => [[RULES.checkout, client]],
    handler: ({ body }) => createCheckout(body),
  }),
});
