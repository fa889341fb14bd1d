import { agentsJson } from "@/lib/agents/documents";
import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/transports/route";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({ cache: CACHE.document, handler: () => agentsJson() }),
});
