import { seeOther } from "@/lib/checkout/form";
import { sessionParamsSchema } from "@/lib/checkout/schemas";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { AppError } from "@/lib/http/errors";
import { methods, route } from "@/lib/transports/route";

// Test mode's Pay button.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    params: sessionParamsSchema,
    handler: async ({ params }) => {
      try {
        await payTestCheckout(params.session_id);
      } catch (error) {
        // An expired or cancelled session: its page says so.
        if (error instanceof AppError && error.status === 409) return seeOther(`/checkout/${params.session_id}`);
        throw error;
      }
      return seeOther(`/checkout/${params.session_id}/success`);
    },
  }),
});
