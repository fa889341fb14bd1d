import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as marketplaceProduct from "@/app/api/marketplace/product/[id]/route";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { serveFetch } from "@/lib/transports/fetch-bridge";
import { frontDoor } from "@/lib/transports/front";
import { fingerprint, newLicense } from "../helpers/licenses";

/**
 * Addresses that do not decode, on server.ts's real request listener (lib/transports/front.ts) over real sockets: the lean
 * path, MCP and the front door's refusals are the production code; Next is a stand-in that records what reached it
 * (and, for one API route, calls the real route handler with the path decoded the way Next's router decodes it).
 * Next's router decodes a path itself and answered 500 (text/plain) to every one of these on a dynamic route:
 * the seller API, ACP, MCP, updates, files, the dashboard, developer, checkout and download pages
 * (measured on the production build: 133 of 243 probes). Now the front door answers them, before any route or page.
 */

const seenByNext: string[] = [];

async function nextStandIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? "/";
  seenByNext.push(url);
  const path = url.replace(/\?.*$/s, "");
  const product = /^\/api\/marketplace\/product\/([^/]+)$/.exec(path);
  if (product && req.method === "GET") {
    // Next decodes each path segment for the route's params.
    const id = decodeURIComponent(product[1]!);
    await serveFetch((request) => marketplaceProduct.GET(request, { params: Promise.resolve({ id }) }), req, res);
    return;
  }
  res.writeHead(200, { "content-type": "text/plain" }).end("next");
}

let server: Server;
let port: number;
const saved = { PORT: process.env.PORT, BASE_URL: process.env.BASE_URL };

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
});

interface Reply {
  status: number;
  headers: IncomingMessage["headers"];
  text: string;
  body: any;
}

/** A raw request: the path goes on the wire exactly as written (fetch and URL would re-encode it). */
function send(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: opts.method ?? "GET",
        headers: {
          host: `localhost:${port}`,
          ...(opts.body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(opts.body)) }),
          ...opts.headers,
        },
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
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on("error", reject);
    // Written in 64 KiB pieces, as an HTTP stack writes a large body, so the client is still writing when answered.
    const body = Buffer.from(opts.body ?? "");
    let at = 0;
    const pump = () => {
      while (at < body.length) {
        const piece = body.subarray(at, at + 64 * 1024);
        at += piece.length;
        if (!req.write(piece)) {
          req.once("drain", pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

/** Malformed percent-encoding (invalid escapes, invalid and overlong UTF-8) and encoded control characters. */
const MALFORMED: Array<[method: string, path: string]> = [
  // The seller API, ACP and MCP (Next route handlers, and MCP answered by the front door through the fetch bridge).
  ["GET", "/api/v1/orders/%ff"],
  ["GET", "/api/v1/licenses/%"],
  ["POST", "/api/v1/products/%Z1/releases"],
  ["GET", "/api/acp/checkout_sessions/%e0%a4%a"],
  ["POST", "/api/mcp/%c0%af"],
  ["GET", "/api/mcp%ed%a0%80"],
  ["GET", "/api/updates/%f8%88%80%80%80"],
  ["GET", "/api/files/%c0%80"],
  ["GET", "/api/marketplace/product/%ff"],
  // The lean path: an exact route with more after it, and a template whose parameter does not decode.
  ["POST", "/validate/%ff"],
  ["POST", "/deactivate%"],
  ["PUT", "/api/v1/products/%ff/releases/1.0.0/artifacts"],
  // Pages.
  ["GET", "/products/%ff"],
  ["GET", "/dashboard/%ff"],
  ["GET", "/dashboard/orders/%e0%a4%a"],
  ["GET", "/developers/%ed%a0%80"],
  ["GET", "/checkout/%"],
  ["GET", "/downloads/%c0%af"],
  ["HEAD", "/uploads/%ff"],
  // The well-known documents.
  ["GET", "/.well-known/did.json/%ff"],
  ["GET", "/.well-known/%Z1"],
  // Encoded control characters: C0, DEL and C1 (U+0085 is %c2%85), as path and query parameters refuse them.
  ["GET", "/products/%00"],
  ["GET", "/api/v1/orders/%1f"],
  ["POST", "/validate/%7f"],
  ["GET", "/developers/a%c2%85b"],
  // A malformed escape in the query no longer hides an encoded NUL next to it (the old check decoded the whole URL
  // at once, failed, and let it through).
  ["GET", "/?q=%ff&x=%00"],
  ["GET", "/api/marketplace/listings?search=%zz&category=%0a"],
];

describe("addresses that do not decode", () => {
  it("are answered 400 invalid_url by the front door, never 5xx, before any route or page sees them", async () => {
    const requestId = "front-door-test-1";
    for (const [method, path] of MALFORMED) {
      const r = await send(path, {
        method,
        headers: { "x-request-id": requestId },
        ...(method === "POST" || method === "PUT" ? { body: "{}" } : {}),
      });
      const where = `${method} ${path}: ${r.text}`;
      expect(r.status, where).toBe(400);
      expect(r.headers["content-type"], where).toBe("application/problem+json");
      expect(r.headers["x-request-id"], where).toBe(requestId);
      expect(r.headers.connection, where).toBe("close");
      // The security headers of every data answer, and the API's Link header.
      expect(r.headers["content-security-policy"], where).toContain("default-src 'none'");
      expect(r.headers["x-frame-options"], where).toBe("DENY");
      expect(r.headers["x-content-type-options"], where).toBe("nosniff");
      expect(r.headers["cache-control"], where).toBe("no-store");
      expect(r.headers.link, where).toContain('rel="service-desc"');
      if (method === "HEAD") {
        expect(r.text, where).toBe("");
        continue;
      }
      expect(r.body, where).toMatchObject({
        type: "about:blank",
        title: "Bad Request",
        status: 400,
        code: "invalid_url",
        detail: expect.any(String),
        request_id: requestId,
        instance: path.replace(/\?.*$/s, ""),
      });
    }
    expect(MALFORMED.length).toBeGreaterThanOrEqual(13);
    expect(seenByNext).toEqual([]);
  });

  it("carry the path's CORS headers, so a cross-origin caller of a public route can read the problem", async () => {
    const origin = { origin: "https://agent.example" };
    const product = await send("/api/marketplace/product/%ff", { headers: origin });
    expect(product.status).toBe(400);
    expect(product.headers["access-control-allow-origin"]).toBe("*");
    expect(product.headers["access-control-allow-credentials"]).toBeUndefined();
    // A seller route stays same-origin.
    const seller = await send("/api/v1/orders/%ff", { headers: origin });
    expect(seller.status).toBe(400);
    expect(seller.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("a body sent to a refused address is read away before the connection closes, so the client reads its 400", async () => {
    // tests/integration/body-cap-413.test.ts sends many, from another process, as real clients do.
    const body = " ".repeat(4 * 1024 * 1024);
    for (const path of ["/validate/%00", "/validate/%ff", "/api/mcp%ff"]) {
      const r = await send(path, { method: "POST", body });
      expect(r.status, r.text).toBe(400);
      expect(r.body).toMatchObject({ code: "invalid_url" });
    }
  });
});

describe("well-formed escapes", () => {
  it("go on to Next as they were sent, and decode as before", async () => {
    seenByNext.length = 0;
    const through = [
      "/products/caf%C3%A9",
      "/products/caf%c3%a9",
      "/products/%E2%9C%93",
      // %2F inside a segment: one segment holding a slash, for the routes that take one.
      "/api/files/releases%2Fa%2Fb.zip",
      "/products/a%2Fb",
      // An escaped percent sign is a percent sign, not the start of an escape.
      "/products/%25ff",
      "/api/v1/orders/%25ff",
      "/?q=tape%20warmth",
      // The query is read leniently, as every reader here reads it (URLSearchParams): a hand-typed `%` stays as is.
      "/?q=100%",
      "/?q=%zz",
      "/products/palette-loom?ref=%ff",
    ];
    for (const path of through) {
      const r = await send(path);
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      expect(r.text, path).toBe("next");
    }
    expect(seenByNext).toEqual(through);

    // The real route handler gets the decoded id: `%70` is `p`.
    const product = await getDb().product.findFirstOrThrow({ where: { status: "active" }, orderBy: { id: "asc" } });
    const escaped = `%${product.id.charCodeAt(0).toString(16)}${product.id.slice(1)}`;
    const r = await send(`/api/marketplace/product/${escaped}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ product: { id: product.id } });
  });

  it("on the lean path: the query is lenient, and a template parameter decodes (%2F included)", async () => {
    const { license, product } = await newLicense();
    const body = JSON.stringify({ license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId });
    const activated = await send("/activate?source=%ff", { method: "POST", body });
    expect(activated.status, activated.text).toBe(200);
    const ok = await send("/validate?source=%zz", { method: "POST", body });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ valid: true });

    // A product id holding an encoded slash passes the front door and reaches the upload operation decoded, whose
    // schema refuses "a/b" as a product id, as it did before.
    const upload = await send("/api/v1/products/a%2Fb/releases/1.0.0/artifacts?platform=linux-x64&filename=a.zip", { method: "PUT", body: "{}" });
    expect(upload.status, upload.text).toBe(400);
    expect(upload.body).toMatchObject({ code: "invalid_path", errors: [{ in: "path", name: "id" }] });
    expect(seenByNext.some((u) => u.startsWith("/validate") || u.includes("/artifacts"))).toBe(false);
  });
});
