import { CACHE } from "@/lib/http/headers";
import { route } from "@/lib/http/route";
import { getTerms } from "@/lib/terms/get-terms";

export const GET = route({ cache: CACHE.document, handler: () => getTerms() });
