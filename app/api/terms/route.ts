import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/http/route";
import { getTerms } from "@/lib/terms/get-terms";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({ cache: CACHE.document, handler: () => getTerms() }),
});
