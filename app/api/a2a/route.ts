import { handleA2A } from "@/lib/transports/a2a/endpoint";
import { methods } from "@/lib/transports/route";

/** A2A JSON-RPC (lib/transports/a2a/endpoint.ts): POST only; other methods get a 405 problem naming POST. */
export const { GET, PUT, PATCH, DELETE } = methods({ POST: handleA2A });
export { handleA2A as POST };
