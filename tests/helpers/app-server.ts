import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { relative } from "node:path";
import { resetEnv } from "@/lib/env";
import { serveFetch } from "@/lib/transports/fetch-bridge";
import { frontDoor } from "@/lib/transports/front";
import type { Reply } from "./http";
import { APP_DIR, bySpecificity, matchRoute, routeFilesUnder, type RouteHandler } from "./next-routes";

/** A request the stand-in for Next answered (not the lean path or MCP, which server.ts's front door answers itself). */
interface Routed {
  method: string;
  path: string;
  /** The route file that answered (relative to app/), or "none" (a page, or nothing: Next's renderer, not here). */
  route: string;
  status: number;
}

/**
 * The service's HTTP API on a random local port, in this process, on the test project's database: server.ts's real
 * request listener (lib/transports/front.ts: host check, CORS, the lean licensing path, MCP, the client address), with a
 * stand-in for Next that calls every route file under app/ (matched the way Next's file-system router does,
 * tests/helpers/next-routes.ts) through server.ts's own fetch bridge (lib/transports/fetch-bridge.ts: the Web Request, the
 * streamed answer, and the security headers proxy.ts gives the same path under Next). Pages are Next's renderer and
 * answer 404 here; a handler that throws is answered 500 (as Next would) and recorded in `errors`.
 *
 * While it runs, BASE_URL and PORT name it, so the links and documents it serves point back at it.
 */
export async function startAppServer() {
  const routes = routeFilesUnder("").sort(bySpecificity);
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  const routeModule = (file: string) => {
    let m = modules.get(file);
    if (!m) modules.set(file, (m = import(file) as Promise<Record<string, unknown>>));
    return m;
  };
  const routed: Routed[] = [];
  const errors: string[] = [];

  async function toNext(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    let parts: string[];
    try {
      parts = pathname.split("/").filter(Boolean).map(decodeURIComponent);
    } catch {
      parts = [];
    }
    for (const r of routes) {
      const params = matchRoute(r.segments, parts);
      if (!params) continue;
      const mod = await routeModule(r.file);
      const handler = (mod[method] ?? (method === "HEAD" ? mod.GET : undefined)) as RouteHandler | undefined;
      const route = relative(APP_DIR, r.file);
      if (!handler) {
        res.writeHead(405).end();
        routed.push({ method, path: pathname, route, status: 405 });
        return;
      }
      await serveFetch((request) => handler(request, { params: Promise.resolve(params) }), req, res);
      routed.push({ method, path: pathname, route, status: res.statusCode });
      return;
    }
    res.writeHead(404, { "Content-Type": "text/plain" }).end("no route file (pages are not served in process)");
    routed.push({ method, path: pathname, route: "none", status: 404 });
  }

  const server: Server = createServer(
    frontDoor((req, res) =>
      toNext(req, res).catch((error: unknown) => {
        errors.push(`${req.method} ${req.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
        res.end("Internal Server Error");
      }),
    ),
  );
  // Longer than fetch's own idle timeout (4 s), so the client always drops an idle connection first: on a busy
  // machine a server closing it at 5 s can race a request being sent on it ("fetch failed").
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://localhost:${port}`;
  const saved = { PORT: process.env.PORT, BASE_URL: process.env.BASE_URL };
  process.env.PORT = String(port);
  process.env.BASE_URL = url;
  resetEnv();
  /** A request to the server (a path, or a whole URL as the service's answers give them), read whole. */
  const send = async (target: string, init: RequestInit & { json?: unknown } = {}): Promise<Reply> => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
    const r = await fetch(new URL(target, url), { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    const text = await r.text();
    let body: any = undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: r.status, headers: r.headers, body, text };
  };
  return {
    url,
    routed,
    errors,
    get: (target: string, headers: Record<string, string> = {}) => send(target, { headers }),
    post: (target: string, json: unknown, headers: Record<string, string> = {}) => send(target, { method: "POST", json, headers }),
    send,
    /** The same requests in the shape of Playwright's `request` fixture, for tests moved from the browser suite. */
    request: {
      get: (target: string, options: { headers?: Record<string, string> } = {}) => send(target, { headers: options.headers }).then(asApiResponse),
      post: (target: string, options: { data?: unknown; headers?: Record<string, string> } = {}) =>
        send(target, { method: "POST", json: options.data, headers: options.headers }).then(asApiResponse),
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          for (const [k, v] of Object.entries(saved)) {
            if (v === undefined) Reflect.deleteProperty(process.env, k);
            else process.env[k] = v;
          }
          resetEnv();
          resolve();
        });
      }),
  };
}

/** A reply read whole, answering as Playwright's APIResponse does. */
function asApiResponse(reply: Reply) {
  return {
    status: () => reply.status,
    headers: () => Object.fromEntries(reply.headers) as Record<string, string>,
    text: () => Promise.resolve(reply.text),
    json: (): Promise<any> => Promise.resolve(JSON.parse(reply.text)),
  };
}

export type AppServer = Awaited<ReturnType<typeof startAppServer>>;
