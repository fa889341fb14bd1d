import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/http/route";
import { listProducts } from "@/lib/marketplace/list-products";
import { listingsQuerySchema } from "@/lib/marketplace/schemas";
import { toListingProduct } from "@/lib/marketplace/serialize";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    query: listingsQuerySchema,
    cache: CACHE.short,
    handler: async ({ query }) => {
      const page = await listProducts(query);
      return { products: page.rows.map(toListingProduct), total: page.total, page: page.page, limit: page.limit, pages: page.pages };
    },
  }),
});
