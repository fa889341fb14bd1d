import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as terms } from "@/app/api/terms/route";
import { handleLean } from "@/lib/transports/lean";
import { disconnectDb } from "@/lib/db";
import { call } from "../helpers/http";

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    void handleLean(req, res).then((handled) => {
      if (!handled) res.writeHead(418).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await disconnectDb();
});

describe("GET /health (lean path)", () => {
  it("answers ok with the server version and the Link header", async () => {
    const r = await fetch(`${base}/health`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: "ok", version: "0.3.0" });
    expect(r.headers.get("link")).toContain('rel="mcp"');
    expect(r.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses other methods with a 405 problem and leaves other paths to Next", async () => {
    const r = await fetch(`${base}/health`, { method: "POST" });
    expect(r.status).toBe(405);
    expect(r.headers.get("content-type")).toBe("application/problem+json");
    expect(r.headers.get("allow")).toBe("GET, HEAD");
    expect(await r.json()).toMatchObject({ code: "method_not_allowed", status: 405 });
    expect((await fetch(`${base}/health/extra`)).status).toBe(418);
    expect((await fetch(`${base}/__proto__`)).status).toBe(418);
  });
});

describe("GET /api/terms", () => {
  it("publishes the pricing constants and a comparison with the usual alternatives", async () => {
    const r = await call(terms, "/api/terms");
    expect(r.status).toBe(200);
    expect(r.body.provider).toEqual(expect.any(String));
    expect(r.body.pricing).toMatchObject({
      model: "percentage",
      transaction_fee_percent: 5,
      monthly_fee_cents: 0,
      sdk_cost: "free, MIT license",
      self_host_cost: "free",
    });
    expect(r.body.capabilities).toEqual(expect.any(Object));
    expect(r.body.endpoints.mcp).toBe("http://localhost:3000/api/mcp");
    const names = r.body.comparison.map((c: any) => c.product);
    expect(names).toEqual(expect.arrayContaining(["Keygen", "Lemon Squeezy", "Gumroad"]));
    for (const row of r.body.comparison) expect(row.fees).toEqual(expect.any(String));
    expect(r.headers.get("cache-control")).toContain("max-age=300");
  });
});

describe("methods a route does not have", () => {
  it("get a 405 problem document with Allow", async () => {
    const { POST } = await import("@/app/api/terms/route");
    const r = await call(POST, "/api/terms", { method: "POST", json: {} });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET");
    expect(r.body).toMatchObject({ code: "method_not_allowed", status: 405 });
  });
});
