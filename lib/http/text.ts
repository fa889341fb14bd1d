import { CACHE } from "./headers.ts";
import { baseHeaders, requestIdFrom } from "./respond.ts";

/** A plain-text document answer with the API's headers. */
export function textResponse(request: Request, body: string): Response {
  return new Response(body, {
    headers: { ...baseHeaders(requestIdFrom(request.headers.get("x-request-id")), CACHE.document), "Content-Type": "text/plain; charset=utf-8" },
  });
}
