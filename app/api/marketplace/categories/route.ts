import { CACHE } from "@/lib/http/headers";
import { route } from "@/lib/http/route";
import { countCategories } from "@/lib/marketplace/count-categories";

export const GET = route({
  cache: CACHE.short,
  handler: async () => ({ categories: await countCategories() }),
});
