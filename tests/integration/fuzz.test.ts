import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "@/lib/api/openapi";
import { disconnectDb, getDb } from "@/lib/db";
import { hasHttp } from "@/lib/operations/define";
import { operations } from "@/lib/operations/index";
import { startAppServer, type AppServer } from "../helpers/app-server";

/**
 * Hostile input at scale, generated from /openapi.json: every operation gets random and malformed parameters and
 * bodies (60 cases each, the same cases whatever the order: one seed per operation), sent over HTTP to the service in
 * this process (tests/helpers/app-server.ts: server.ts's front door and lean path, MCP, and the REST adapter of every
 * route file, all of which run the operation registry's execute()). Nothing may answer 5xx or throw, every error must
 * be a problem document with a code and no stack trace, the server must stay healthy, and nothing the calls stored
 * may be unreadable afterwards. Runs on both engines: what PostgreSQL refuses to store (a NUL) SQLite stores.
 *
 * (Moved from the browser suite, where it took up to 10 minutes through Next; e2e/fuzz.spec.ts keeps the limits
 * that only the real server process sets: body and header sizes, the headers timeout.)
 */

type Op = { method: string; path: string; params: Array<{ name: string; in: string }>; hasBody: boolean; bodyProps: string[] };

const CASES = 60;
const SEED = 20261121;

const hostile = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.constantFrom(
    "",
    " ",
    "null",
    "-1",
    "0",
    "1e309",
    "NaN",
    "../../etc/passwd",
    "%00",
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    "\u0000",
    "A".repeat(5000),
    "AAAA-BBBB-CCCC-DDDD",
    "a".repeat(64),
    "cs_AAAAAAAAAAAAAAAAAAAAAAAA",
    "__proto__",
  ),
  fc.integer().map(String),
  fc.double().map(String),
);
const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.anything({ maxDepth: 3, withNullPrototype: false }).map((v) => {
    try {
      return JSON.parse(JSON.stringify(v)); // undefined (a bare function or symbol) throws: null below
    } catch {
      return null;
    }
  }),
);

function operationsOf(doc: any): Op[] {
  const ops: Op[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      ops.push({ method, path, params: op.parameters ?? [], hasBody: Boolean(op.requestBody), bodyProps: Object.keys(schema?.properties ?? {}) });
    }
  }
  return ops;
}

function expectNoServerError(status: number, contentType: string | null, label: string, text: string) {
  expect(status, `${label} → ${status} ${text.slice(0, 300)}`).toBeLessThan(500);
  if (status >= 400 && status !== 431) expect(contentType, `${label} → ${status}`).toMatch(/^application\/(problem\+)?json/);
  if (contentType?.startsWith("application/problem+json")) {
    const body = JSON.parse(text);
    expect(body, label).toMatchObject({ status, code: expect.any(String), detail: expect.any(String) });
  }
  expect(text, label).not.toMatch(/\n\s+at .+\.(ts|js):\d+/);
}

// The document the route serves is the registry's; the cases are generated from it before the server starts.
const OPS = operationsOf(openApiDocument());
let server: AppServer;
let requests = 0;

beforeAll(async () => {
  server = await startAppServer();
});
afterAll(async () => {
  await server.close();
  await disconnectDb();
});

describe("fuzz", () => {
  it("GET /openapi.json lists every operation of the registry that has an HTTP route", async () => {
    const served = operationsOf(await (await fetch(new URL("/openapi.json", server.url))).json());
    expect(served.map((o) => `${o.method} ${o.path}`).sort()).toEqual(OPS.map((o) => `${o.method} ${o.path}`).sort());
    const registry = operations().filter(hasHttp);
    expect(OPS.length).toBe(registry.length);
    expect(OPS.length).toBeGreaterThanOrEqual(15);
  });

  describe.each(OPS.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))("%s", (_label, op) => {
    it(`${CASES} random and malformed requests never get a 5xx`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            path: fc.array(hostile, { minLength: 1, maxLength: 1 }),
            query: fc.dictionary(
              fc.constantFrom(...op.params.filter((p) => p.in === "query").map((p) => p.name), "x", "page", "__proto__"),
              hostile,
              {
                maxKeys: 4,
              },
            ),
            body: fc.oneof(anyJson, fc.dictionary(fc.constantFrom(...op.bodyProps, "extra"), fc.oneof(hostile, anyJson), { maxKeys: 5 })),
            raw: fc.option(fc.string({ unit: "binary", maxLength: 500 }), { freq: 4 }),
            contentType: fc.constantFrom(
              "application/json",
              "application/json; charset=utf-8",
              "text/plain",
              "application/x-www-form-urlencoded",
              "",
            ),
          }),
          async (input) => {
            let path = op.path;
            for (const p of op.params.filter((x) => x.in === "path")) path = path.replace(`{${p.name}}`, encodeURIComponent(input.path[0]!));
            const url = new URL(path, server.url);
            for (const [k, v] of Object.entries(input.query)) url.searchParams.set(k, v);
            const init: RequestInit = { method: op.method.toUpperCase(), headers: input.contentType ? { "content-type": input.contentType } : {} };
            if (op.method === "post") init.body = input.raw ?? JSON.stringify(input.body);
            const r = await fetch(url, init);
            requests++;
            const label = `${op.method.toUpperCase()} ${url.pathname}${url.search}`;
            expectNoServerError(r.status, r.headers.get("content-type"), label, await r.text());
            expect(server.errors, label).toEqual([]);
          },
        ),
        { numRuns: CASES, seed: SEED },
      );
    });
  });

  it("random JSON-RPC bodies on the MCP endpoint never get a 5xx", async () => {
    const url = new URL("/api/mcp", server.url);
    const message = fc.oneof(
      anyJson,
      fc.record({
        jsonrpc: fc.constantFrom("2.0", "1.0", 2),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        method: fc.constantFrom("initialize", "tools/list", "tools/call", "ping", "resources/list", "nope", ""),
        params: fc.oneof(
          anyJson,
          fc.record({ name: fc.constantFrom("browse_marketplace", "validate_license", "verify_receipt", "x"), arguments: anyJson }),
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(message, async (m) => {
        const r = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify(m),
        });
        const text = await r.text();
        expect(r.status, `${JSON.stringify(m).slice(0, 200)} → ${r.status} ${text.slice(0, 200)}`).toBeLessThan(500);
      }),
      { numRuns: 150, seed: 7 },
    );
  });

  it("afterwards the server is healthy and everything stored reads back", async () => {
    expect(requests).toBe(OPS.length * CASES);
    expect(server.errors).toEqual([]);
    expect((await (await fetch(new URL("/health", server.url))).json()).status).toBe("ok");
    for (const path of ["/api/marketplace/listings", "/api/catalog", "/api/marketplace/categories"]) {
      expect((await fetch(new URL(path, server.url))).status, path).toBe(200);
    }
    // Every row of every table, read through the client: a value it cannot map (a date, JSON or enum the calls
    // wrote badly) throws here.
    const db = getDb() as unknown as Record<string, { findMany?: (args: object) => Promise<unknown[]> }>;
    const models = MODELS.map((m) => m.charAt(0).toLowerCase() + m.slice(1));
    expect(models.length).toBeGreaterThan(10);
    for (const model of models) {
      const delegate = db[model];
      expect(typeof delegate?.findMany, model).toBe("function");
      await expect(delegate!.findMany!({}), model).resolves.toBeInstanceOf(Array);
    }
  });
});

/** The models of prisma/models.prisma. */
const MODELS = [...readFileSync("prisma/models.prisma", "utf8").matchAll(/^model (\w+) \{/gm)].map((m) => m[1]!);
