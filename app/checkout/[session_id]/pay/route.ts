import { seeOther } from "@/lib/checkout/form";
import { EMBED_PARAM, embedParamOf, embedPath } from "@/lib/urls";
import { sessionParamsSchema } from "@/lib/checkout/schemas";
import { runOperationFor } from "@/lib/transports/action";
import { methods, route } from "@/lib/transports/route";

// Test mode's Pay button: the payTestCheckout operation, through execute().
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    params: sessionParamsSchema,
    handler: async ({ request, params }) => {
      // Inside the buy button's overlay (`?embed=<origin>`), the next page answers in embed mode too.
      const embed = embedParamOf(new URL(request.url).searchParams.get(EMBED_PARAM));
      const outcome = await runOperationFor(request, "payTestCheckout", { params });
      if (!outcome.ok) {
        // An expired or cancelled session: its page says so.
        if (outcome.problem.status === 409) return seeOther(embedPath(`/checkout/${params.session_id}`, embed));
        throw outcome.problem;
      }
      return seeOther(embedPath(`/checkout/${params.session_id}/success`, embed));
    },
  }),
});
