import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/http/route";
import { getCatalog } from "@/lib/marketplace/get-catalog";
import { catalogQuerySchema } from "@/lib/marketplace/schemas";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    query: catalogQuerySchema,
    cache: CACHE.short,
    handler: ({ query }) => getCatalog(query),
  }),
});
