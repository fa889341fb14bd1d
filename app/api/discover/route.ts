import { discoveryPayload } from "@/lib/agents/documents";
import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/http/route";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({ cache: CACHE.document, handler: () => discoveryPayload() }),
});
