import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/http/route";
import { getProduct } from "@/lib/marketplace/get-product";
import { productParamsSchema } from "@/lib/marketplace/schemas";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    params: productParamsSchema,
    cache: CACHE.short,
    handler: async ({ params }) => ({ product: await getProduct(params.id) }),
  }),
});
