import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { GET as didDocumentGet } from "@/app/.well-known/did.json/route";
import { GET as licenseFileGet } from "@/app/api/license-file/route";
import { handleLean } from "@/lib/http/lean";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";

/** A licensing call as the server received it. */
interface LoggedCall {
  path: string;
  contentType: string;
  body: Record<string, string>;
}

/** A GET /api/license-file as the server answered it. */
interface LoggedLicenseFile {
  key: string;
  fingerprint: string;
  pluginId: string | null;
  status: number;
  text: string;
}

/**
 * The service's licensing surface on a random local port, on the test project's database: server.ts's lean path
 * (/validate, /activate, /deactivate, exactly as production serves them) and the real route handlers of
 * GET /api/license-file and GET /.well-known/did.json, called the way Next calls them. Nothing here answers for
 * the service; the harness only records what it answered and can inject the two faults the apps must survive:
 * `down` (every connection dropped) and `rate429` (the next N licensing calls answered 429 with Retry-After: 1,
 * because the real limits cannot be lowered for one test without waiting out a minute-long window).
 */
export async function startLicensingServer() {
  const state = {
    down: false,
    rate429: 0,
    served429: 0,
    calls: [] as LoggedCall[],
    licenseFiles: [] as LoggedLicenseFile[],
  };

  const nextRoute = async (req: IncomingMessage, res: ServerResponse, handler: (request: Request) => Promise<Response>) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    // What server.ts does before handing a request to Next.
    headers.set(CLIENT_ADDRESS_HEADER, req.socket.remoteAddress ?? "unknown");
    const response = await handler(new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, { method: req.method, headers }));
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(body);
    return { status: response.status, text: body.toString("utf8") };
  };

  const server: Server = createServer((req, res) => {
    if (state.down) {
      req.socket.destroy(); // as unreachable as it gets without a closed port
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "POST" && state.rate429 > 0) {
      state.rate429--;
      state.served429++;
      res.writeHead(429, { "Content-Type": "application/problem+json", "Retry-After": "1" });
      res.end(JSON.stringify({ type: "about:blank", status: 429, code: "rate_limited", detail: "Too many requests." }));
      return;
    }
    if (url.pathname === "/api/license-file") {
      void nextRoute(req, res, licenseFileGet).then(({ status, text }) =>
        state.licenseFiles.push({
          key: url.searchParams.get("key") ?? "",
          fingerprint: url.searchParams.get("fingerprint") ?? "",
          pluginId: url.searchParams.get("plugin_id"),
          status,
          text,
        }),
      );
      return;
    }
    if (url.pathname === "/.well-known/did.json") {
      void nextRoute(req, res, didDocumentGet);
      return;
    }
    // Listening alongside handleLean's own reader, attached in the same tick, so both see every chunk.
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString("utf8")));
    req.on("end", () => {
      try {
        state.calls.push({ path: url.pathname, contentType: req.headers["content-type"] ?? "", body: JSON.parse(text) });
      } catch {
        state.calls.push({ path: url.pathname, contentType: req.headers["content-type"] ?? "", body: {} });
      }
    });
    void handleLean(req, res).then((handled) => {
      if (!handled) res.writeHead(404, { "Content-Type": "application/problem+json" }).end('{"status":404,"code":"not_found"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    state,
    reset() {
      state.down = false;
      state.rate429 = 0;
      state.calls.length = 0;
      state.licenseFiles.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type LicensingServer = Awaited<ReturnType<typeof startLicensingServer>>;
