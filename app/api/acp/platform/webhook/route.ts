import { restRoutes } from "@/lib/transports/rest";

export const { GET, POST, PUT, PATCH, DELETE } = restRoutes("/api/acp/platform/webhook");
