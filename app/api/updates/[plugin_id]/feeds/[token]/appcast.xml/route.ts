import { restRoutes } from "@/lib/transports/rest";

export const { GET, POST, PUT, PATCH, DELETE } = restRoutes("/api/updates/{plugin_id}/feeds/{token}/appcast.xml");
