import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/http/route";
import { countCategories } from "@/lib/marketplace/count-categories";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    cache: CACHE.short,
    handler: async () => ({ categories: await countCategories() }),
  }),
});
