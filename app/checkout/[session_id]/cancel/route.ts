import { seeOther } from "@/lib/checkout/form";
import { sessionParamsSchema } from "@/lib/checkout/schemas";
import { cancelTestCheckout } from "@/lib/checkout/test-payment";
import { methods, route } from "@/lib/transports/route";

// Test mode's cancel link.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    params: sessionParamsSchema,
    handler: async ({ params }) => {
      await cancelTestCheckout(params.session_id);
      return seeOther(`/checkout/${params.session_id}/cancelled`);
    },
  }),
});
