import { restRoutes } from "@/lib/transports/rest";

export const { GET, POST, PUT, PATCH, DELETE } = restRoutes("/api/v1/products/{id}/publish");
