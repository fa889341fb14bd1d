import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { GET as toolsRoute } from "@/app/api/tools/route";
import { sellerTools } from "@/lib/agents/tools";
import { setProductStatus } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { generateLicenseKey } from "@/lib/licensing/keys";
import { ingestArtifact } from "@/lib/releases/ingest";
import { createRelease } from "@/lib/releases/manage";
import { revokeSellerToken } from "@/lib/seller-api/tokens";
import { resetObjectStore } from "@/lib/storage/index";
import { call } from "../helpers/http";
import { sellerToken } from "../helpers/seller-tokens";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

/**
 * Seller tools over MCP, through the official SDK client with a seller API token in its request headers (the
 * client's fetch goes straight to the route handler: the real JSON-RPC over streamable HTTP a remote agent sends).
 */
const BASE = "http://localhost:3000";
const run = randomBytes(4).toString("hex");
const SELLER_TOOLS = [
  "seller_sales_summary",
  "seller_list_products",
  "seller_create_coupon",
  "seller_set_bundle_items",
  "seller_create_checkout_link",
  "seller_list_checkout_links",
  "seller_create_upgrade_offer",
  "seller_publish_product",
  "seller_publish_release",
  "seller_list_licenses",
  "seller_license_events",
  "seller_revoke_license",
  "seller_reinstate_license",
  "seller_release_machine",
  "seller_list_reviews",
  "seller_reply_to_review",
  "seller_add_embed_origin",
  "seller_verify_embed_origin",
];

const fetchRoute = async (input: string | URL | Request, init?: RequestInit) => {
  const request = new Request(input, init);
  if (request.method !== "POST") return new Response(null, { status: 405 });
  return mcpPost(request);
};

const open: Client[] = [];
async function connect(authorization?: string): Promise<Client> {
  const c = new Client({ name: "seller-agent", version: "1.0.0" });
  const requestInit = authorization ? { headers: { Authorization: authorization } } : undefined;
  await c.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", BASE), { fetch: fetchRoute, ...(requestInit ? { requestInit } : {}) }));
  open.push(c);
  return c;
}

/** One JSON-RPC message posted as the transport receives it, for what the SDK client does not show (status, headers). */
async function rawPost(authorization: string, message: unknown = { jsonrpc: "2.0", id: 1, method: "tools/list" }) {
  return mcpPost(
    new Request(`${BASE}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization },
      body: JSON.stringify(message),
    }),
  );
}

type Result = Awaited<ReturnType<Client["callTool"]>>;
const text = (r: Result) => (r.content as Array<{ type: string; text: string }>)[0]!.text;
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the shape it reads
const data = <T = any>(r: Result) => r.structuredContent as T;

const fx = {
  devA: "",
  productA: "",
  licenseA: "",
  tokenA: "",
  tokenB: "",
  readOnly: "",
  products: "",
  revoked: "",
  expired: "",
};

beforeAll(async () => {
  process.env.UPLOAD_DIR = mkdtempSync(join(tmpdir(), "mcp-seller-"));
  resetEnv();
  resetObjectStore();
  const a = await sellingDeveloper(`mcp-seller-a-${run}@example.com`, { name: `MCP Seller A ${run}`, website: null, bio: "" });
  const b = await sellingDeveloper(`mcp-seller-b-${run}@example.com`, { name: `MCP Seller B ${run}`, website: null, bio: "" });
  fx.devA = a.id;
  // Unlisted: the demo catalogue stays as the catalogue test expects it, whatever order the files run in.
  const product = await createTestProduct(a.id, `MCP Seller ${run}`, `com.mcpseller.a${run}`, { category: "dev-tools" });
  await setProductStatus(a.id, product.id, "unlisted");
  fx.productA = product.id;
  fx.licenseA = (
    await getDb().license.create({
      data: { key: generateLicenseKey(), productId: product.id, buyerEmail: `buyer-${run}@example.com`, maxMachines: 2, source: "complimentary" },
    })
  ).id;
  await createRelease(a.id, product.id, { version: "1.0.0" });
  await ingestArtifact(a.id, product.id, "1.0.0", {
    platform: "linux-x64",
    filename: "app.zip",
    stream: Readable.from([Buffer.from("PK\u0003\u0004 an artifact of the MCP seller test")]),
    contentLength: null,
  });

  fx.tokenA = await sellerToken(a.id, ["licenses", "orders", "releases"], { name: "agent" });
  fx.tokenB = await sellerToken(b.id, ["licenses", "orders"], { name: "other seller" });
  fx.readOnly = await sellerToken(a.id, ["read"], { name: "read only" });
  fx.products = await sellerToken(a.id, ["products"], { name: "products" });
  fx.revoked = await sellerToken(a.id, ["licenses"], { name: "revoked" });
  const revokedId = (await getDb().sellerToken.findFirstOrThrow({ where: { developerId: a.id, name: "revoked" } })).id;
  await revokeSellerToken(a.id, revokedId);
  fx.expired = await sellerToken(a.id, ["licenses"], { name: "expired", expiresInDays: 1 });
  await getDb().sellerToken.updateMany({ where: { developerId: a.id, name: "expired" }, data: { expiresAt: new Date(Date.now() - 1000) } });
});

afterAll(async () => {
  for (const c of open) await c.close();
  await disconnectDb();
});

describe("MCP without a seller token", () => {
  it("lists exactly the public tools, as /api/tools does, and no seller tool", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const manifest = await call(toolsRoute, "/api/tools");
    expect(tools.map((t) => t.name).sort()).toEqual(manifest.body.tools.map((t: any) => t.function.name).sort());
    for (const name of SELLER_TOOLS) expect(tools.map((t) => t.name)).not.toContain(name);
    expect(manifest.body.tools.map((t: any) => t.function.name)).not.toContain("seller_sales_summary");
  });

  it("answers a call of a seller tool as an unknown tool", async () => {
    const client = await connect();
    const outcome = await client.callTool({ name: "seller_revoke_license", arguments: { id: fx.licenseA } }).then(
      (r) => ({ error: r.isError ? text(r) : null }),
      (e: unknown) => ({ error: String(e) }),
    );
    expect(outcome.error).toMatch(/not found|unknown/i);
    expect((await getDb().license.findUniqueOrThrow({ where: { id: fx.licenseA } })).isActive).toBe(true);
  });

  it("keeps an agent platform's key (acpk_…) for the ACP tools: no seller tools, no 401", async () => {
    const client = await connect("Bearer acpk_not_a_seller_token");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("create_checkout_session");
    expect(names).not.toContain("seller_sales_summary");
  });
});

describe("MCP with a seller token", () => {
  it("lists the public tools and the seller's tools, each with its schema and a write hint", async () => {
    const client = await connect(`Bearer ${fx.tokenA}`);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of SELLER_TOOLS) expect(names).toContain(name);
    expect(names).toContain("browse_marketplace");
    expect(
      sellerTools()
        .map((t) => t.name)
        .sort(),
    ).toEqual([...SELLER_TOOLS].sort());
    const revoke = tools.find((t) => t.name === "seller_revoke_license")!;
    expect(revoke.annotations?.readOnlyHint).toBe(false);
    expect(tools.find((t) => t.name === "seller_sales_summary")!.annotations?.readOnlyHint).toBe(true);
    // Writing a review and replying to one are writes (issue 34): no client may take them for harmless reads.
    for (const name of ["review_product", "seller_reply_to_review"])
      expect(tools.find((t) => t.name === name)?.annotations?.readOnlyHint, name).toBe(false);
  });

  it("revokes the seller's own license (revoked in the database), and reinstates it", async () => {
    const client = await connect(`Bearer ${fx.tokenA}`);
    const r = await client.callTool({ name: "seller_revoke_license", arguments: { id: fx.licenseA, reason: "leaked key" } });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    expect(text(r)).toContain("Revoked");
    const row = await getDb().license.findUniqueOrThrow({ where: { id: fx.licenseA } });
    expect(row.isActive).toBe(false);
    expect(row.revocation).toBe("seller");
    const event = await getDb().licenseEvent.findFirst({ where: { licenseId: fx.licenseA, type: "revoked" } });
    expect(event?.actor).toBe("token:agent");

    const back = await client.callTool({ name: "seller_reinstate_license", arguments: { id: fx.licenseA } });
    expect(back.isError ?? false, JSON.stringify(back)).toBe(false);
    expect((await getDb().license.findUniqueOrThrow({ where: { id: fx.licenseA } })).isActive).toBe(true);
  });

  it("reads a license's event log, filtered by a list of types; an unknown type names the known ones", async () => {
    const client = await connect(`Bearer ${fx.readOnly}`);
    const all = await client.callTool({ name: "seller_license_events", arguments: { id: fx.licenseA } });
    expect(all.isError ?? false, JSON.stringify(all)).toBe(false);
    expect(data(all).events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(["revoked", "reinstated"]));
    const revoked = await client.callTool({ name: "seller_license_events", arguments: { id: fx.licenseA, type: ["revoked"] } });
    expect(data(revoked).events.map((e: { type: string }) => e.type)).toEqual(["revoked"]);
    expect(text(revoked)).toContain("Revoked: leaked key — seller (token:agent)");
    const both = await client.callTool({ name: "seller_license_events", arguments: { id: fx.licenseA, type: ["revoked", "reinstated"] } });
    expect(data(both).events.map((e: { type: string }) => e.type)).toEqual(["reinstated", "revoked"]);
    const bad = await client.callTool({ name: "seller_license_events", arguments: { id: fx.licenseA, type: ["revoked", "deleted"] } });
    expect(bad.isError).toBe(true);
    expect(data(bad).code).toMatch(/^invalid_/);
    expect(data(bad).detail).toContain('"deleted"');
    expect(data(bad).detail).toContain("reinstated");
  });

  it("answers license_not_found for another seller's license, and changes nothing", async () => {
    const client = await connect(`Bearer ${fx.tokenB}`);
    const r = await client.callTool({ name: "seller_revoke_license", arguments: { id: fx.licenseA } });
    expect(r.isError).toBe(true);
    expect(data(r).code).toBe("license_not_found");
    expect((await getDb().license.findUniqueOrThrow({ where: { id: fx.licenseA } })).isActive).toBe(true);
  });

  it("refuses a write the token's scopes do not cover (insufficient_scope); a read passes with read", async () => {
    const client = await connect(`Bearer ${fx.readOnly}`);
    const r = await client.callTool({ name: "seller_revoke_license", arguments: { id: fx.licenseA } });
    expect(r.isError).toBe(true);
    expect(data(r).code).toBe("insufficient_scope");
    expect((await getDb().license.findUniqueOrThrow({ where: { id: fx.licenseA } })).isActive).toBe(true);
    const summary = await client.callTool({ name: "seller_sales_summary", arguments: { days: 7 } });
    expect(summary.isError ?? false, JSON.stringify(summary)).toBe(false);
  });

  it("summarises the seller's sales over a window", async () => {
    const client = await connect(`Bearer ${fx.tokenA}`);
    const r = await client.callTool({ name: "seller_sales_summary", arguments: {} });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    const s = data(r);
    expect(s.days).toBe(30);
    expect(s.licenses_issued.complimentary).toBeGreaterThanOrEqual(1);
    expect(s.active_licenses).toBeGreaterThanOrEqual(1);
    expect(text(r)).toContain("Last 30 days");
    const bad = await client.callTool({ name: "seller_sales_summary", arguments: { days: 366 } });
    expect(bad.isError).toBe(true);
    expect(data(bad).code).toBe("invalid_body");
  });

  it("lists products and creates a coupon with the products scope, checking the coupon's rules", async () => {
    const client = await connect(`Bearer ${fx.products}`);
    const list = await client.callTool({ name: "seller_list_products", arguments: {} });
    expect(list.isError ?? false, JSON.stringify(list)).toBe(false);
    expect(data(list).products.map((p: { id: string }) => p.id)).toContain(fx.productA);
    const code = `MCP${run}`.toUpperCase();
    const made = await client.callTool({
      name: "seller_create_coupon",
      arguments: { code, kind: "percent", percent_off: 20, product_ids: [fx.productA] },
    });
    expect(made.isError ?? false, JSON.stringify(made)).toBe(false);
    expect(data(made).coupon.code).toBe(code);
    expect(await getDb().coupon.count({ where: { developerId: fx.devA, code } })).toBe(1);
    // The body's refinements hold on MCP too: a percent coupon needs percent_off.
    const bad = await client.callTool({ name: "seller_create_coupon", arguments: { code: `X${code}`, kind: "percent" } });
    expect(bad.isError).toBe(true);
    expect(data(bad).errors.map((e: { name: string }) => e.name)).toContain("percent_off");
    // This token has no licenses scope.
    const refused = await client.callTool({ name: "seller_list_licenses", arguments: {} });
    expect(data(refused).code).toBe("insufficient_scope");
  });

  it("publishes a draft release", async () => {
    const client = await connect(`Bearer ${fx.tokenA}`);
    const r = await client.callTool({ name: "seller_publish_release", arguments: { id: fx.productA, version: "1.0.0" } });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    expect(data(r).status).toBe("published");
    const missing = await client.callTool({ name: "seller_publish_release", arguments: { id: fx.productA, version: "9.9.9" } });
    expect(missing.isError).toBe(true);
  });
});

describe("MCP refuses a bad seller token before any JSON-RPC", () => {
  for (const [label, token, code] of [
    ["revoked", () => fx.revoked, "token_revoked"],
    ["expired", () => fx.expired, "token_expired"],
    ["unknown", () => `ilmsk_${"A".repeat(43)}`, "invalid_token"],
    ["malformed", () => "ilmsk_short", "invalid_token"],
  ] as const) {
    it(`answers a ${label} token with 401 ${code} and WWW-Authenticate naming the resource metadata`, async () => {
      const response = await rawPost(`Bearer ${token()}`);
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect((await response.json()).code).toBe(code);
      const challenge = response.headers.get("www-authenticate") ?? "";
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource"`);
    });
  }

  it("fails the SDK client's connection with a revoked token", async () => {
    const c = new Client({ name: "seller-agent", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", BASE), {
      fetch: fetchRoute,
      requestInit: { headers: { Authorization: `Bearer ${fx.revoked}` } },
    });
    await expect(c.connect(transport)).rejects.toThrow();
  });
});
