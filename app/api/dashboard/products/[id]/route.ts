import { z } from "zod";
import { sellerFromRequest } from "@/lib/auth/api-seller";
import { sameOrigin } from "@/lib/auth/cookies";
import { getSellerProduct, updateProduct } from "@/lib/dashboard/products";
import { AppError } from "@/lib/http/errors";
import { methods, route } from "@/lib/http/route";
import { productIdSchema, productInputSchema } from "@/lib/marketplace/schemas";

const params = z.object({ id: productIdSchema });

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({ params, handler: async ({ request, params }) => ({ product: await getSellerProduct((await sellerFromRequest(request)).developer.id, params.id) }) }),
  PUT: route({
    params,
    body: productInputSchema,
    handler: async ({ request, params, body }) => {
      if (!sameOrigin(request)) throw new AppError("cross_site_request", 403, "Cross-site requests are refused.");
      return { product: await updateProduct((await sellerFromRequest(request)).developer.id, params.id, body) };
    },
  }),
});
