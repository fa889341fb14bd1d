import type { IncomingMessage, ServerResponse } from "node:http";
import { CACHE } from "./headers.ts";
import { admitHost } from "./host.ts";
import { handleLean } from "./lean.ts";
import { PROBLEM_CONTENT_TYPE, problemFor } from "./problem.ts";
import { CLIENT_VIA_PROXY_HEADER, resolveClient } from "./proxy.ts";
import { CLIENT_ADDRESS_HEADER } from "./rate-limit.ts";
import { baseHeaders, requestIdFrom } from "./respond.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<unknown>;

/**
 * server.ts's request listener: refuses hosts we do not serve (lib/http/host.ts), answers the lean paths itself
 * (lib/http/lean.ts), and hands everything else to `toNext` with the client address stamped on it.
 */
export function frontDoor(toNext: Handler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const refused = admitHost(req);
    if (refused) {
      const requestId = requestIdFrom(req.headers["x-request-id"] as string | undefined);
      const body = JSON.stringify({
        ...problemFor(refused, requestId, (req.url ?? "/").replace(/\?.*$/s, "")),
        title: "Misdirected Request",
      });
      res.writeHead(421, {
        ...baseHeaders(requestId, CACHE.none),
        "Content-Type": PROBLEM_CONTENT_TYPE,
        "Content-Length": Buffer.byteLength(body),
        // Whatever body it sent is not read; the connection is not reused.
        Connection: "close",
      });
      res.end(req.method === "HEAD" ? undefined : body);
      return;
    }
    handleLean(req, res)
      .then((handled) => {
        if (handled) return undefined;
        stampClient(req);
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

/** Route handlers see the client only through these headers; a client's own copies are overwritten or removed. */
function stampClient(req: IncomingMessage): void {
  const client = resolveClient(req.socket.remoteAddress, req.headers["x-forwarded-for"]);
  req.headers[CLIENT_ADDRESS_HEADER] = client.address;
  if (client.viaProxy) req.headers[CLIENT_VIA_PROXY_HEADER] = "1";
  else delete req.headers["x-ilm-client-via-proxy"]; // CLIENT_VIA_PROXY_HEADER
}
