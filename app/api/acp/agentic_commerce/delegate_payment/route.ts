import { restRoutes } from "@/lib/operations/http";

export const { GET, POST, PUT, PATCH, DELETE } = restRoutes("/api/acp/agentic_commerce/delegate_payment");
