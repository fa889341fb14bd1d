import { AppError } from "@/lib/http/errors";
import { route } from "@/lib/transports/route";

// Unknown API paths answer with a problem document, not the storefront's HTML 404 page.
const unknown = route({
  handler: ({ url }) => {
    throw new AppError("route_not_found", 404, `There is no API endpoint at ${url.pathname}. See /openapi.json.`);
  },
});

export { unknown as GET, unknown as POST, unknown as PUT, unknown as PATCH, unknown as DELETE };
