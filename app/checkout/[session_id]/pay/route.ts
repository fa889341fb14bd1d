import { seeOther } from "@/lib/checkout/form";
import { sessionParamsSchema } from "@/lib/checkout/schemas";
import { runOperationFor } from "@/lib/transports/action";
import { methods, route } from "@/lib/transports/route";

// Test mode's Pay button: the payTestCheckout operation, through execute().
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    params: sessionParamsSchema,
    handler: async ({ request, params }) => {
      const outcome = await runOperationFor(request, "payTestCheckout", { params });
      if (!outcome.ok) {
        // An expired or cancelled session: its page says so.
        if (outcome.problem.status === 409) return seeOther(`/checkout/${params.session_id}`);
        throw outcome.problem;
      }
      return seeOther(`/checkout/${params.session_id}/success`);
    },
  }),
});
