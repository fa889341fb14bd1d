import type { IncomingMessage, ServerResponse } from "node:http";
import { env } from "../env.ts";
import { AppError } from "../http/errors.ts";
import { applyCors } from "./cors.ts";
import { CACHE } from "../http/headers.ts";
import { admitHost } from "../http/host.ts";
import { DEFAULT_MAX_BODY_BYTES, hasControlCharacter, tooLarge } from "../http/input.ts";
import { mcpEndpoint } from "./mcp-endpoint.ts";
import { readWhole, serveFetch } from "./fetch-bridge.ts";
import { answerDirectCall, directCall } from "./mcp-direct.ts";
import { endAfterBody, handleLean, LINGER } from "./lean.ts";
import { PROBLEM_CONTENT_TYPE, problemFor } from "../http/problem.ts";
import { actionRequest } from "./action-request.ts";
import { CLIENT_VIA_PROXY_HEADER, resolveClient } from "../http/proxy.ts";
import { CLIENT_ADDRESS_HEADER } from "../http/rate-limit.ts";
import { baseHeaders, problemResponse, requestIdFrom } from "../http/respond.ts";
import { dataSecurityHeaders, securityHeaders } from "../http/security-headers.ts";
import { maybeEmbeddable } from "../embed/framing.ts";
import { applyEmbedFraming } from "./embed-framing.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<unknown>;

/**
 * A URL the front door refuses before any route or page sees it (400 `invalid_url`), or null. Decoded only when it
 * holds a `%` (the licensing hot path's URLs do not: no work, no allocation for them).
 * - A path that does not decode: a stray or truncated `%`, or escapes that do not spell UTF-8 (overlong forms, lone
 *   surrogates, five-byte sequences; decodeURIComponent is strict). Next's router decodes the path itself and
 *   answered 500 for them on every dynamic route (REST, ACP, MCP, pages).
 * - A path or query that decodes to a control character: such characters are no part of any address here, and some
 *   break queries further down (PostgreSQL refuses NUL). The same rule as path and query parameters
 *   (lib/http/input.ts: C0, DEL, C1).
 * The query is read the way every reader here reads it (URLSearchParams: a malformed escape stays as it is written,
 * bytes that are not UTF-8 become U+FFFD), so a hand-typed `?q=100%` still works, and a malformed escape next to an
 * encoded NUL no longer hides the NUL.
 */
function refuseUrl(url: string): AppError | null {
  const percent = url.indexOf("%");
  if (percent === -1) return null;
  const q = url.indexOf("?");
  if (q === -1 || percent < q) {
    let path: string;
    try {
      path = decodeURIComponent(q === -1 ? url : url.slice(0, q));
    } catch {
      return new AppError(
        "invalid_url",
        400,
        "The address's path is not valid percent-encoded UTF-8 (a stray %, or escapes that do not spell UTF-8 text).",
      );
    }
    if (hasControlCharacter(path, false)) return controlInUrl();
  }
  if (q !== -1 && url.includes("%", q)) {
    for (const [name, value] of new URLSearchParams(url.slice(q + 1))) {
      if (hasControlCharacter(name, false) || hasControlCharacter(value, false)) return controlInUrl();
    }
  }
  return null;
}

const controlInUrl = () => new AppError("invalid_url", 400, "The address holds a control character (an encoded NUL, line break or the like).");

/**
 * Answers a request the front door refuses (a host we do not serve, a bad URL, an MCP body over the cap) with a
 * problem document carrying what every API problem carries: the request id, the Link header, the data answers'
 * security headers and the path's CORS headers. The connection is closed after it (the body, if any, is not for
 * anyone), once what the client is still sending has been read away (lib/transports/lean.ts endAfterBody, bounded).
 */
function refuse(req: IncomingMessage, res: ServerResponse, error: AppError, cors?: Readonly<Record<string, string>>): void {
  const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
  const body = JSON.stringify(problemFor(error, requestId, pathOf(req.url)));
  const e = env();
  res.writeHead(error.status, {
    ...cors,
    ...dataSecurityHeaders({ baseUrl: e.BASE_URL, development: e.NODE_ENV === "development" }),
    ...baseHeaders(requestId, CACHE.none),
    ...error.extra.headers,
    "Content-Type": PROBLEM_CONTENT_TYPE,
    "Content-Length": Buffer.byteLength(body),
    Connection: "close",
  });
  endAfterBody(req, res, req.method === "HEAD" ? undefined : body);
}

/** The CORS headers of a request's path and method, for an answer the front door makes itself. */
function corsOf(req: IncomingMessage, res: ServerResponse): Readonly<Record<string, string>> | undefined {
  if (req.method === "OPTIONS") return undefined; // a refused preflight approves nothing (applyCors would answer it)
  const cors = applyCors(req, res);
  return cors === true ? undefined : cors;
}

/**
 * server.ts's request listener: refuses hosts we do not serve (lib/http/host.ts) and URLs that do not decode or hold
 * control characters (refuseUrl), answers CORS preflights and sets the CORS headers on public paths
 * (lib/transports/cors.ts), answers the lean paths itself (lib/transports/lean.ts) and MCP (lib/transports/mcp-endpoint.ts, through
 * lib/transports/fetch-bridge.ts), and hands everything else to `toNext` with the client address stamped on it.
 */
export function frontDoor(toNext: Handler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const refused = admitHost(req) ?? refuseUrl(req.url ?? "/");
    if (refused) {
      refuse(req, res, refused, corsOf(req, res));
      return;
    }
    const cors = applyCors(req, res);
    if (cors === true) return;
    handleLean(req, res, cors)
      .then((handled) => {
        if (handled) return undefined;
        if (cors) for (const [name, value] of Object.entries(cors)) res.setHeader(name, value);
        stampClient(req);
        // MCP is called as often as an API and is a plain fetch handler: answered here, without Next's pipeline.
        if (pathOf(req.url) === MCP_PATH) return serveMcp(req, res, cors);
        if (req.method === "POST" && req.headers["next-action"] !== undefined) return serveAction(req, res, toNext);
        // The buy button's checkout pages may be framed by the seller's verified origins (lib/transports/embed-framing.ts).
        if (maybeEmbeddable(req.url ?? "/")) return applyEmbedFraming(req, res).then(() => toNext(req, res));
        return toNext(req, res);
      })
      .catch((error: unknown) => {
        console.error("request failed:", error);
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/problem+json" });
        res.end(
          JSON.stringify({ type: "about:blank", title: "Internal Server Error", status: 500, code: "internal_error", detail: "Unexpected error." }),
        );
      });
  };
}

const MCP_PATH = "/api/mcp";
const pathOf = (url = "/") => {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
};

/**
 * MCP through the fetch bridge. The endpoint reads a JSON-RPC body of at most DEFAULT_MAX_BODY_BYTES
 * (lib/transports/mcp-transport.ts) and gives up on the rest, which the bridge streams to it when the body's length is not
 * declared within that cap: the socket then closed with the rest unread, and a client still sending lost its 413 to
 * a reset. So such a body is settled here. A declared length over the cap is refused at once (the rest read away,
 * bounded). A chunked body is read here: handed over whole within the cap; past it, read away to its end (within
 * LINGER's bounds, then cut off) before the 413 goes out, so the client has finished sending when it reads it.
 */
function serveMcp(req: IncomingMessage, res: ServerResponse, cors: Readonly<Record<string, string>> | undefined): Promise<void> | undefined {
  const method = req.method ?? "GET";
  const declared = req.headers["content-length"];
  if (method === "GET" || method === "HEAD" || method === "DELETE") return serveFetch(mcpEndpoint, req, res);
  if (declared !== undefined && Number(declared) <= DEFAULT_MAX_BODY_BYTES) return serveMcpPost(req, res);
  if (declared === undefined) return serveFetch(mcpWithinCap, req, res);
  refuse(req, res, tooLarge(DEFAULT_MAX_BODY_BYTES), cors);
  return undefined;
}

/**
 * A POST whose body fits the cap: read whole, and a single tools/call the direct path can answer is answered there
 * (lib/transports/mcp-direct.ts: the same tool call and the same answer as the SDK's, without its per-exchange
 * machinery); anything else goes to the SDK with the body already read.
 */
async function serveMcpPost(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readWhole(req);
  let message: unknown;
  try {
    message = JSON.parse(UTF8.decode(body)) as unknown;
  } catch {
    message = undefined; // not JSON (or not UTF-8): the SDK answers with its own parse error
  }
  const call = message === undefined ? undefined : directCall(req, message);
  if (!call) return serveFetch(mcpEndpoint, req, res, body);
  const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
  return answerDirectCall(req, res, call, requestId, { ...baseHeaders(requestId, CACHE.none), ...mcpSecurityHeaders() });
}
const UTF8 = new TextDecoder("utf-8", { fatal: true });
let mcpSecurity: Record<string, string> | undefined;
/** The security headers of the MCP path (as serveFetch adds them), made once. */
function mcpSecurityHeaders(): Record<string, string> {
  const e = env();
  return (mcpSecurity ??= securityHeaders(MCP_PATH, { baseUrl: e.BASE_URL, development: e.NODE_ENV === "development" }));
}

async function mcpWithinCap(request: Request): Promise<Response> {
  const reader = request.body?.getReader();
  if (!reader) return mcpEndpoint(request);
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size <= DEFAULT_MAX_BODY_BYTES) chunks.push(value);
      else if (size - DEFAULT_MAX_BODY_BYTES > LINGER.bytes) break;
      else timer ??= setTimeout(() => void reader.cancel().catch(() => undefined), LINGER.ms);
    }
  } finally {
    clearTimeout(timer);
  }
  if (size > DEFAULT_MAX_BODY_BYTES) {
    await reader.cancel().catch(() => undefined);
    const requestId = requestIdFrom(request.headers.get("x-request-id"));
    const response = problemResponse(tooLarge(DEFAULT_MAX_BODY_BYTES), requestId, new URL(request.url).pathname);
    response.headers.set("Connection", "close");
    return response;
  }
  return mcpEndpoint(new Request(request, { body: Buffer.concat(chunks) }));
}

/**
 * A server action's call, handed to Next inside the action-request store (lib/transports/action-request.ts). An action
 * called with arguments a browser could not have sent (no form, a bound id that is not a string) records a 400
 * problem there and throws; Next would answer its thrown error with a 500. When a problem was recorded, the answer
 * Next starts is replaced here, headers and body, by that problem document.
 */
function serveAction(req: IncomingMessage, res: ServerResponse, toNext: Handler): Promise<unknown> | undefined {
  const store: { problem?: AppError } = {};
  type Write = (...args: unknown[]) => unknown;
  const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, string | number>) => ServerResponse;
  const write = res.write.bind(res) as Write;
  const end = res.end.bind(res) as Write;
  let replaced = false;
  const replace = (): boolean => {
    if (replaced || !store.problem) return replaced;
    replaced = true;
    const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
    const body = JSON.stringify(problemFor(store.problem, requestId, pathOf(req.url)));
    // Only the CORS headers the front door set stay; whatever Next had set belongs to the answer being replaced.
    for (const name of res.getHeaderNames()) if (!name.startsWith("access-control-")) res.removeHeader(name);
    const e = env();
    writeHead(store.problem.status, {
      ...dataSecurityHeaders({ baseUrl: e.BASE_URL, development: e.NODE_ENV === "development" }),
      ...baseHeaders(requestId, CACHE.none),
      "Content-Type": PROBLEM_CONTENT_TYPE,
      "Content-Length": Buffer.byteLength(body),
    });
    end(body);
    return true;
  };
  res.writeHead = ((...args: unknown[]) => (replace() ? res : (writeHead as Write)(...args))) as ServerResponse["writeHead"];
  res.write = ((...args: unknown[]) => (replace() ? true : write(...args))) as ServerResponse["write"];
  res.end = ((...args: unknown[]) => (replace() ? res : end(...args))) as ServerResponse["end"];
  return actionRequest().run(store, () => toNext(req, res) as Promise<unknown> | undefined);
}

/** Route handlers see the client only through these headers; a client's own copies are overwritten or removed. */
function stampClient(req: IncomingMessage): void {
  const client = resolveClient(req.socket.remoteAddress, req.headers["x-forwarded-for"]);
  req.headers[CLIENT_ADDRESS_HEADER] = client.address;
  if (client.viaProxy) req.headers[CLIENT_VIA_PROXY_HEADER] = "1";
  else delete req.headers["x-ilm-client-via-proxy"]; // CLIENT_VIA_PROXY_HEADER
}
