import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { relative } from "node:path";
import { GET as didDocumentGet } from "@/app/.well-known/did.json/route";
import { GET as licenseFileGet } from "@/app/api/license-file/route";
import { handleLean } from "@/lib/transports/lean";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { APP_DIR, bySpecificity, matchRoute, routeFilesUnder, type RouteHandler } from "./next-routes";

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

/** A request under /api/updates, /api/files or /api/v1/device as the server answered it. */
interface LoggedRoute {
  method: string;
  path: string;
  /** The route file that answered (relative to app/), or "lean" for server.ts's lean path. */
  route: string;
  status: number;
}

/**
 * The service's licensing surface on a random local port, on the test project's database: server.ts's lean path
 * (/validate, /activate, /deactivate, exactly as production serves them) and the real route handlers of
 * GET /api/license-file and GET /.well-known/did.json, called the way Next calls them, and every route file under
 * app/api/updates, app/api/files and app/api/v1/device (the update check, feeds and downloads, the local storage
 * driver's signed links, and the device authorization an app buys and activates through), found and matched the way
 * Next's file-system router does, with server.ts's lean path for what has no route file. Point BASE_URL at `url` so
 * that signed download links come back here. Nothing here answers for the service; the harness only records what it
 * answered and can inject the two faults the apps must survive: `down` (every connection dropped) and `rate429` (the
 * next N licensing calls answered 429 with Retry-After: 1, because the real limits cannot be lowered for one test
 * without waiting out a minute-long window).
 */
export async function startLicensingServer() {
  const state = {
    down: false,
    rate429: 0,
    served429: 0,
    calls: [] as LoggedCall[],
    licenseFiles: [] as LoggedLicenseFile[],
    routes: [] as LoggedRoute[],
  };
  const fileRoutes = [...routeFilesUnder("api/updates"), ...routeFilesUnder("api/files"), ...routeFilesUnder("api/v1/device")].sort(bySpecificity);
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  const routeModule = (file: string) => {
    let m = modules.get(file);
    if (!m) modules.set(file, (m = import(file) as Promise<Record<string, unknown>>));
    return m;
  };

  const nextRoute = async (
    req: IncomingMessage,
    res: ServerResponse,
    handler: (request: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>,
    params: Record<string, string | string[]> = {},
  ) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    // What server.ts does before handing a request to Next.
    headers.set(CLIENT_ADDRESS_HEADER, req.socket.remoteAddress ?? "unknown");
    // A POST's body (the device routes), read whole as Next reads it.
    let requestBody: Uint8Array<ArrayBuffer> | undefined;
    if (req.method !== "GET" && req.method !== "HEAD") {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      requestBody = new Uint8Array(Buffer.concat(chunks)); // the bytes as sent
    }
    const url = `http://${req.headers.host ?? "127.0.0.1"}${req.url}`;
    const response = await handler(new Request(url, { method: req.method, headers, body: requestBody }), {
      params: Promise.resolve(params),
    });
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(req.method === "HEAD" ? undefined : body);
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
    if (url.pathname.startsWith("/api/updates/") || url.pathname.startsWith("/api/files/") || url.pathname.startsWith("/api/v1/device/")) {
      void serveFileRoute(req, res, url).catch((error: unknown) => {
        // A handler that throws is a failure of the service: answered 500, as Next would, and logged for the test.
        state.routes.push({ method: req.method ?? "GET", path: url.pathname, route: `error: ${String(error)}`, status: 500 });
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
        res.end();
      });
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
  /** A request under /api/updates, /api/files or /api/v1/device: the most specific matching route file, else the lean path. */
  async function serveFileRoute(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    for (const r of fileRoutes) {
      const params = matchRoute(r.segments, parts);
      if (!params) continue;
      const handler = (await routeModule(r.file))[method] as RouteHandler | undefined;
      const route = relative(APP_DIR, r.file);
      if (!handler) {
        res.writeHead(405, { "Content-Type": "application/problem+json" }).end('{"status":405,"code":"method_not_allowed"}');
        state.routes.push({ method, path: url.pathname, route, status: 405 });
        return;
      }
      const { status } = await nextRoute(req, res, handler, params);
      state.routes.push({ method, path: url.pathname, route, status });
      return;
    }
    const handled = await handleLean(req, res);
    if (!handled) res.writeHead(404, { "Content-Type": "application/problem+json" }).end('{"status":404,"code":"not_found"}');
    state.routes.push({ method, path: url.pathname, route: handled ? "lean" : "none", status: res.statusCode });
  }

  // As server.ts: idle kept-alive connections outlive a pause between a program's calls (Node's default is 5 s).
  server.keepAliveTimeout = 65_000;
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
      state.routes.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type LicensingServer = Awaited<ReturnType<typeof startLicensingServer>>;
