import { CACHE } from "./headers.ts";
import { DEFAULT_MAX_BODY_BYTES, readBodyText } from "./input.ts";
import { baseHeaders, problemResponse, requestIdFrom, toAppError } from "./respond.ts";

/**
 * Wraps the MCP handler with the conventions every API response follows: the body cap (the JSON-RPC body is read
 * once here, within the cap, and handed on), the Link header and a request id. The MCP handler answers protocol
 * errors itself as JSON-RPC.
 */
export function withApiHeaders(handler: (request: Request) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    const requestId = requestIdFrom(request.headers.get("x-request-id"));
    try {
      let forwarded = request;
      if (request.method === "POST") {
        const body = await readBodyText(request, DEFAULT_MAX_BODY_BYTES);
        forwarded = new Request(request.url, { method: "POST", headers: request.headers, body });
      }
      const response = await handler(forwarded);
      const headers = new Headers(response.headers);
      for (const [k, v] of Object.entries(baseHeaders(requestId, CACHE.none))) if (!headers.has(k)) headers.set(k, v);
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    } catch (error) {
      return problemResponse(toAppError(error, requestId), requestId, new URL(request.url).pathname);
    }
  };
}
