import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "./errors.ts";
import { applyCors } from "./cors.ts";
import { CACHE } from "./headers.ts";
import { admitHost } from "./host.ts";
import { hasControlCharacter } from "./input.ts";
import { mcpEndpoint } from "../agents/mcp-endpoint.ts";
import { serveFetch } from "./fetch-bridge.ts";
import { handleLean } from "./lean.ts";
import { PROBLEM_CONTENT_TYPE, problemFor } from "./problem.ts";
import { CLIENT_VIA_PROXY_HEADER, resolveClient } from "./proxy.ts";
import { CLIENT_ADDRESS_HEADER } from "./rate-limit.ts";
import { baseHeaders, requestIdFrom } from "./respond.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<unknown>;

/**
 * server.ts's request listener: refuses hosts we do not serve (lib/http/host.ts), answers CORS preflights and sets
 * the CORS headers on public paths (lib/http/cors.ts), answers the lean paths itself (lib/http/lean.ts) and MCP
 * (lib/agents/mcp-endpoint.ts, through lib/http/fetch-bridge.ts), and hands everything else to `toNext` with the
 * client address stamped on it.
 */
/**
 * A URL whose path or query decodes to a control character is refused before any page or handler sees it: such
 * characters are no part of any address here, and some break queries further down (PostgreSQL refuses NUL).
 */
function refuseControlInUrl(url: string): AppError | null {
  if (!url.includes("%")) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(url.replace(/\+/g, " "));
  } catch {
    return null; // Not percent-encoding at all: the handlers answer that as they would without this check.
  }
  return hasControlCharacter(decoded, false)
    ? new AppError("invalid_url", 400, "The address holds a control character (an encoded NUL, line break or the like).")
    : null;
}

export function frontDoor(toNext: Handler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const refused = admitHost(req) ?? refuseControlInUrl(req.url ?? "/");
    if (refused) {
      const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
      const body = JSON.stringify(problemFor(refused, requestId, (req.url ?? "/").replace(/\?.*$/s, "")));
      res.writeHead(refused.status, {
        ...baseHeaders(requestId, CACHE.none),
        "Content-Type": PROBLEM_CONTENT_TYPE,
        "Content-Length": Buffer.byteLength(body),
        // Whatever body it sent is not read; the connection is not reused.
        Connection: "close",
      });
      res.end(req.method === "HEAD" ? undefined : body);
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
        if (pathOf(req.url) === MCP_PATH) return serveFetch(mcpEndpoint, req, res);
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

/** Route handlers see the client only through these headers; a client's own copies are overwritten or removed. */
function stampClient(req: IncomingMessage): void {
  const client = resolveClient(req.socket.remoteAddress, req.headers["x-forwarded-for"]);
  req.headers[CLIENT_ADDRESS_HEADER] = client.address;
  if (client.viaProxy) req.headers[CLIENT_VIA_PROXY_HEADER] = "1";
  else delete req.headers["x-ilm-client-via-proxy"]; // CLIENT_VIA_PROXY_HEADER
}
