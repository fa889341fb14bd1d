import { restRoutes } from "@/lib/operations/http";

export const { GET, POST, PUT, PATCH, DELETE } = restRoutes("/.well-known/oauth-protected-resource");
