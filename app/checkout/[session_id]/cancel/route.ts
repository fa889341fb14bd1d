import { seeOther } from "@/lib/checkout/form";
import { sessionParamsSchema } from "@/lib/checkout/schemas";
import { runOperationFor } from "@/lib/transports/action";
import { methods, route } from "@/lib/transports/route";

// Test mode's cancel link: the cancelTestCheckout operation, through execute().
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    params: sessionParamsSchema,
    handler: async ({ request, params }) => {
      const outcome = await runOperationFor(request, "cancelTestCheckout", { params });
      if (!outcome.ok) throw outcome.problem;
      return seeOther(`/checkout/${params.session_id}/cancelled`);
    },
  }),
});
