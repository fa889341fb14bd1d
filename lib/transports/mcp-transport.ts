import { mcpRequest } from "./mcp-context.ts";
import { sellerTokenFrom, verifySellerToken } from "../seller-api/tokens.ts";
import { AppError } from "../http/errors.ts";
import { CACHE } from "../http/headers.ts";
import { DEFAULT_MAX_BODY_BYTES, readBodyText } from "../http/input.ts";
import { CLIENT_ADDRESS_HEADER } from "../http/rate-limit.ts";
import { baseHeaders, problemResponse, requestIdFrom, toAppError } from "../http/respond.ts";
import { addressedOrigin } from "../http/host.ts";

/**
 * JSON-RPC messages one HTTP request may carry. Protocol 2025-03-26 allows batches (later revisions dropped them);
 * each call in a batch counts against the rate limits on its own, and the cap bounds what one request can ask for.
 */
export const MCP_MAX_BATCH = 10;

/** The body parsed, or undefined when it is not JSON (the MCP handler then answers with its own parse error). */
function parsed(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Whether the request carries a seller API token (`Authorization: Bearer ilmsk_…`), verified: then the server also
 * offers that seller's tools. A token that is malformed, unknown, revoked or expired is refused here, before any
 * JSON-RPC, with HTTP 401 and `WWW-Authenticate: Bearer error="invalid_token", resource_metadata="…"`, as the MCP
 * authorization spec has a protected resource answer. The token's rate limit counts tool calls (each seller tool call
 * is counted, and the token checked again, by its operation, as a REST call is), not the HTTP requests carrying them.
 * Any other Bearer credential (an agent platform's `acpk_…` key) is left to the operations that take it.
 */
async function sellerToolsFor(request: Request, client: string): Promise<boolean> {
  const token = sellerTokenFrom(request.headers);
  if (token === null) return false;
  await verifySellerToken(token, client);
  return true;
}

/**
 * The names of the tools a JSON-RPC message (or batch) calls, when every message in it is a `tools/call` naming a
 * tool; otherwise undefined (the exchange may list tools, initialize, or anything else).
 */
export function toolCalls(message: unknown): string[] | undefined {
  const messages = Array.isArray(message) ? message : [message];
  const names: string[] = [];
  for (const m of messages) {
    if (typeof m !== "object" || m === null) return undefined;
    const { method, params } = m as { method?: unknown; params?: { name?: unknown } };
    if (method !== "tools/call" || typeof params?.name !== "string") return undefined;
    names.push(params.name);
  }
  return names.length ? names : undefined;
}

/**
 * The response with the given headers added where it has none of that name: set on the response itself when its
 * headers may be changed (a Response the SDK built), else on a copy (one whose headers are immutable, as fetch's are).
 */
function withHeaders(response: Response, add: Record<string, string>): Response {
  try {
    for (const [k, v] of Object.entries(add)) if (!response.headers.has(k)) response.headers.set(k, v);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    for (const [k, v] of Object.entries(add)) if (!headers.has(k)) headers.set(k, v);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/**
 * Wraps the MCP handler with the conventions every API response follows: the body cap (the JSON-RPC body is read
 * once here, within the cap, and handed on), the batch cap, the Link header and a request id. The exchange runs
 * inside the request's context (client address, headers, whether a seller token was verified), so each tool call
 * goes through its operation's rate limits and auth exactly as the REST route does. The MCP handler answers protocol
 * errors itself as JSON-RPC.
 */
export function withApiHeaders(handler: (request: Request, parsedBody?: unknown) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    const requestId = requestIdFrom(request.headers.get("x-request-id"));
    const url = new URL(request.url);
    try {
      const client = request.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown";
      const sellerTools = await sellerToolsFor(request, client);
      let forwarded = request;
      let message: unknown;
      if (request.method === "POST") {
        const body = await readBodyText(request, DEFAULT_MAX_BODY_BYTES);
        message = parsed(body);
        const size = Array.isArray(message) ? message.length : 1;
        if (size > MCP_MAX_BATCH) {
          throw new AppError("batch_too_large", 400, `A JSON-RPC batch may hold at most ${MCP_MAX_BATCH} messages; this one has ${size}.`);
        }
        // Parsed, the body is handed on as it is and the SDK does not read the (consumed) request again; a body that
        // is not JSON goes on as text, for the SDK to answer with its own parse error.
        if (message === undefined) forwarded = new Request(request.url, { method: "POST", headers: request.headers, body });
      }
      const context = {
        client,
        requestId,
        headers: request.headers,
        origin: addressedOrigin(request.headers),
        sellerTools,
        calls: toolCalls(message),
      };
      const response = await mcpRequest.run(context, () => handler(forwarded, message));
      return withHeaders(response, baseHeaders(requestId, CACHE.none));
    } catch (error) {
      return problemResponse(toAppError(error, requestId), requestId, url.pathname);
    }
  };
}
