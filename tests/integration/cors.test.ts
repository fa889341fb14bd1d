import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as agentCard from "@/app/.well-known/agent-card.json/route";
import * as didJson from "@/app/.well-known/did.json/route";
import * as checkoutCreate from "@/app/api/checkout/create/route";
import * as dashboardProducts from "@/app/api/v1/products/route";
import * as listings from "@/app/api/marketplace/listings/route";
import * as revocation from "@/app/api/status/revocation/route";
import { disconnectDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { corsRule } from "@/lib/transports/cors";
import { frontDoor } from "@/lib/transports/front";

/**
 * CORS on server.ts's real listener (lib/transports/front.ts → lib/transports/cors.ts): the lean path (/validate) answers for
 * itself, and a stand-in for Next calls the real route handlers and keeps the headers already set on the response,
 * as Next does. Public paths allow any origin, without credentials; seller routes stay same-origin.
 */

type Handler = (request: Request, context?: { params?: Promise<Record<string, string>> }) => Promise<Response>;
const routes: Record<string, Record<string, unknown>> = {
  "/.well-known/agent-card.json": agentCard,
  "/.well-known/did.json": didJson,
  "/api/checkout/create": checkoutCreate,
  "/api/v1/products": dashboardProducts,
  "/api/marketplace/listings": listings,
  "/api/status/revocation": revocation,
};

async function nextStandIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const mod = routes[url.pathname];
  const method = req.method ?? "GET";
  if (!mod) {
    res.writeHead(404, { "content-type": "text/plain" }).end("not here");
    return;
  }
  const handler = mod[method] as Handler | undefined;
  if (!handler) {
    // Next's own answer to an OPTIONS a route file does not export: 204 with Allow, and no CORS header.
    res.writeHead(method === "OPTIONS" ? 204 : 405, { Allow: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS" }).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  const body = chunks.length && method !== "GET" && method !== "HEAD" ? Buffer.concat(chunks) : undefined;
  const response = await handler(new Request(`http://localhost${req.url ?? "/"}`, { method, headers, body }), { params: Promise.resolve({}) });
  for (const [k, v] of response.headers) res.setHeader(k, v);
  res.writeHead(response.status).end(Buffer.from(await response.arrayBuffer()));
}

let server: Server;
let port: number;
const saved = { PORT: process.env.PORT, BASE_URL: process.env.BASE_URL };
const seen: IncomingMessage["headers"][] = [];
const raw: string[][] = [];

beforeAll(async () => {
  server = createServer(frontDoor(nextStandIn));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  process.env.PORT = String(port);
  process.env.BASE_URL = `http://localhost:${port}`;
  resetEnv();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  Object.assign(process.env, saved);
  resetEnv();
  await disconnectDb();
  // No answer in this file, approved or not, ever allowed credentials.
  expect(seen.length).toBeGreaterThan(10);
  for (const h of seen) expect(h["access-control-allow-credentials"]).toBeUndefined();
  // Each header is sent once: the lean path's one header block (fixed pairs, CORS and the answer's own) repeats none.
  for (const r of raw) {
    const names = r.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(
      names.filter((n, i) => names.indexOf(n) !== i),
      names.join(" "),
    ).toEqual([]);
  }
});

interface Reply {
  status: number;
  headers: IncomingMessage["headers"];
  text: string;
  body: any;
}

const ORIGIN = "https://agent.example";

function send(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: opts.method ?? "GET",
        headers: { host: `localhost:${port}`, origin: ORIGIN, cookie: "session=abc", ...opts.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: any;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          seen.push(res.headers);
          raw.push(res.rawHeaders);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

const preflight = (path: string, method: string, headers = "content-type") =>
  send(path, { method: "OPTIONS", headers: { "access-control-request-method": method, "access-control-request-headers": headers } });

const list = (value: string | string[] | undefined) =>
  String(value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

function expectApproved(r: Reply, methods: string[], headers: string[]): void {
  expect(r.status, r.text).toBe(204);
  expect(r.headers["access-control-allow-origin"]).toBe("*");
  for (const m of methods) expect(list(r.headers["access-control-allow-methods"])).toContain(m.toLowerCase());
  for (const h of headers) expect(list(r.headers["access-control-allow-headers"])).toContain(h);
  expect(r.headers["access-control-max-age"]).toBe("86400");
  expect(r.headers.vary ?? "").not.toMatch(/origin/i);
}

describe("CORS on public paths", () => {
  it("/validate (lean path): OPTIONS is a 204 approval, not a 405; answers and problem documents are readable", async () => {
    const pre = await preflight("/validate", "POST", "content-type, authorization, idempotency-key");
    expectApproved(pre, ["POST"], ["content-type", "authorization", "idempotency-key", "api-version"]);
    expect(list(pre.headers["access-control-allow-methods"])).not.toContain("get");

    const ok = await send("/validate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ license_key: "ABCD-EFGH-JKLM-NPQR", fingerprint: "cors-test-device-0001" }),
    });
    expect(ok.status).toBeLessThan(500);
    expect(ok.headers["access-control-allow-origin"]).toBe("*");
    expect(list(ok.headers["access-control-expose-headers"])).toEqual(expect.arrayContaining(["link", "retry-after", "x-request-id"]));

    const bad = await send("/validate", { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(bad.headers["content-type"]).toMatch(/problem\+json/);
    expect(bad.headers["access-control-allow-origin"]).toBe("*");
  });

  it("a public operation: GET /api/marketplace/listings and POST /api/checkout/create", async () => {
    expectApproved(await preflight("/api/marketplace/listings", "GET"), ["GET", "HEAD"], ["content-type"]);
    const read = await send("/api/marketplace/listings");
    expect(read.status, read.text).toBe(200);
    expect(read.headers["access-control-allow-origin"]).toBe("*");
    expect(read.headers["set-cookie"]).toBeUndefined();

    expectApproved(await preflight("/api/checkout/create", "POST", "content-type, idempotency-key"), ["POST"], ["idempotency-key"]);
    const problem = await send("/api/checkout/create", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(problem.status).toBeGreaterThanOrEqual(400);
    expect(problem.status).toBeLessThan(500);
    expect(problem.headers["content-type"]).toMatch(/problem\+json/);
    expect(problem.headers["access-control-allow-origin"]).toBe("*");
  });

  it("/api/mcp: the preflight allows the MCP request headers and exposes Mcp-Session-Id", async () => {
    const pre = await preflight("/api/mcp", "POST", "content-type, mcp-session-id, mcp-protocol-version");
    expectApproved(pre, ["GET", "POST", "DELETE"], ["content-type", "authorization", "mcp-session-id", "mcp-protocol-version", "last-event-id"]);
    expect(corsRule("/api/mcp")?.mcp).toBe(true);
  });

  it("did.json, the status list and the agent card", async () => {
    expectApproved(await preflight("/.well-known/did.json", "GET"), ["GET"], ["content-type"]);
    for (const path of ["/.well-known/did.json", "/api/status/revocation", "/.well-known/agent-card.json"]) {
      const r = await send(path);
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      expect(r.headers["access-control-allow-origin"], path).toBe("*");
    }
    for (const path of ["/openapi.json", "/api/tools", "/llms.txt", "/llms-full.txt", "/oacs", "/.well-known/mcp/server-card.json"]) {
      expect(corsRule(path), path).not.toBeNull();
    }
  });
});

describe("cookie routes stay same-origin", () => {
  it("a seller operation carries no CORS header and its preflight is not approved", async () => {
    const r = await send("/api/v1/products");
    expect(r.status).toBe(401);
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();

    const pre = await preflight("/api/v1/products", "GET");
    expect(pre.headers["access-control-allow-origin"]).toBeUndefined();
    expect(pre.headers["access-control-allow-methods"]).toBeUndefined();
    expect(pre.headers["access-control-allow-headers"]).toBeUndefined();
  });

  it("pages, sign-in, the console and the dev mailbox have no rule", () => {
    for (const path of ["/dashboard", "/auth/sign-in", "/licenses", "/admin", "/api/dev/mailbox", "/api/admin/orders", "/api/v1/orders/abc", "/"]) {
      expect(corsRule(path), path).toBeNull();
    }
  });
});
