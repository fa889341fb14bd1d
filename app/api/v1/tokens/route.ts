import { restRoutes } from "@/lib/operations/http";

export const { GET, POST, PUT, PATCH, DELETE } = restRoutes("/api/v1/tokens");
