import { getCheckoutStatus } from "@/lib/checkout/get-checkout";
import { sessionParamsSchema } from "@/lib/checkout/schemas";
import { methods, route } from "@/lib/http/route";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({ params: sessionParamsSchema, handler: ({ params }) => getCheckoutStatus(params.session_id) }),
});
