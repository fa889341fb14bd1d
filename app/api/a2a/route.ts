import { handleA2A } from "@/lib/agents/a2a/endpoint";
import { methods } from "@/lib/http/route";

/** A2A JSON-RPC (lib/agents/a2a/endpoint.ts): POST only; other methods get a 405 problem naming POST. */
export const { GET, PUT, PATCH, DELETE } = methods({ POST: handleA2A });
export { handleA2A as POST };
