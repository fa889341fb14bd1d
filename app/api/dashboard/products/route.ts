import { sellerFromRequest } from "@/lib/auth/api-seller";
import { sameOrigin } from "@/lib/auth/cookies";
import { createProduct, listSellerProducts } from "@/lib/dashboard/products";
import { AppError } from "@/lib/http/errors";
import { methods, route } from "@/lib/http/route";
import { productInputSchema } from "@/lib/marketplace/schemas";

// The seller's own products over JSON, with the dashboard's session cookie.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({ handler: async ({ request }) => ({ products: await listSellerProducts((await sellerFromRequest(request)).developer.id) }) }),
  POST: route({
    body: productInputSchema,
    status: 201,
    handler: async ({ request, body }) => {
      if (!sameOrigin(request)) throw new AppError("cross_site_request", 403, "Cross-site requests are refused.");
      return { product: await createProduct((await sellerFromRequest(request)).developer.id, body) };
    },
  }),
});
