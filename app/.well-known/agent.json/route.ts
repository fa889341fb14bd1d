import { agentCard } from "@/lib/agents/documents";
import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/transports/route";

/** The A2A agent card at the address A2A clients before 0.3 fetched (0.3 and 1.0 use /.well-known/agent-card.json). */
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({ cache: CACHE.document, handler: () => agentCard() }),
});
