import { restRoutes } from "@/lib/transports/rest";

export const { GET, POST, PUT, PATCH, DELETE } = restRoutes("/api/acp/agentic_commerce/delegate_payment");
