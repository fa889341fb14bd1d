import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { GET as toolsRoute } from "@/app/api/tools/route";
import { GET as serverCard } from "@/app/.well-known/mcp/server-card.json/route";
import { disconnectDb, getDb } from "@/lib/db";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { call } from "../helpers/http";

/**
 * The MCP endpoint through the official SDK client, in process: the client's fetch goes straight to the route handler,
 * so every exchange is the real JSON-RPC over streamable HTTP that a remote agent makes.
 */
const BASE = "http://localhost:3000";

let client: Client;

async function connect(): Promise<Client> {
  const c = new Client({ name: "integration-agent", version: "1.0.0" });
  const fetchRoute = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.method !== "POST") return new Response(null, { status: 405 });
    return mcpPost(request);
  };
  await c.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", BASE), { fetch: fetchRoute }));
  return c;
}

type Result = Awaited<ReturnType<Client["callTool"]>>;
const text = (r: Result) => (r.content as Array<{ type: string; text: string }>)[0]!.text;
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the shape it reads
const data = <T = any>(r: Result) => r.structuredContent as T;

beforeAll(async () => {
  client = await connect();
});
afterAll(async () => {
  await client.close();
  await disconnectDb();
});

describe("MCP: initialize and tools/list", () => {
  it("says the tool list does not change, as the server card does", async () => {
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const card = await call(serverCard, "/.well-known/mcp/server-card.json");
    expect(card.body.capabilities.tools).toEqual(client.getServerCapabilities()?.tools);
  });

  it("publishes each tool's real argument schema (the key and fingerprint patterns included)", async () => {
    const { tools } = await client.listTools();
    const manifest = await call(toolsRoute, "/api/tools");
    expect(tools.map((t) => t.name).sort()).toEqual(manifest.body.tools.map((t: any) => t.function.name).sort());
    const activate = tools.find((t) => t.name === "activate_license")!;
    const props = activate.inputSchema.properties as Record<string, { pattern?: string; maxLength?: number }>;
    expect(new RegExp(props.license_key!.pattern!).test("ABCD-EFGH-JKMN-PQRS")).toBe(true);
    expect(new RegExp(props.license_key!.pattern!).test("not-a-key")).toBe(false);
    expect(new RegExp(props.machine_fingerprint!.pattern!).test("a".repeat(64))).toBe(true);
    expect(activate.inputSchema.additionalProperties).toBe(false);
  });
});

describe("MCP: arguments are checked like every other input", () => {
  it("names an unknown argument", async () => {
    const r = await client.callTool({ name: "browse_marketplace", arguments: { colour: "red" } });
    expect(r.isError).toBe(true);
    expect(data(r)).toMatchObject({
      code: "invalid_body",
      errors: [{ in: "body", name: "colour", message: "is not an argument of this tool" }],
    });
    expect(text(r)).toContain("colour");
  });

  it("names each bad argument in structuredContent", async () => {
    const r = await client.callTool({
      name: "activate_license",
      arguments: { license_key: "nope", machine_fingerprint: "xyz", plugin_id: "com.example" },
    });
    expect(r.isError).toBe(true);
    const d = data<{ code: string; errors: Array<{ name: string }> }>(r);
    expect(d.code).toBe("invalid_body");
    expect(d.errors.map((e) => e.name).sort()).toEqual(["license_key", "machine_fingerprint"]);
    const missing = await client.callTool({ name: "get_receipt", arguments: {} });
    expect(data(missing)).toMatchObject({ code: "invalid_body", errors: [{ name: "license_key" }] });
  });

  it("refuses control characters", async () => {
    const r = await client.callTool({ name: "browse_marketplace", arguments: { query: "tape\u0000" } });
    expect(data(r)).toMatchObject({ code: "invalid_body", errors: [{ name: "query" }] });
  });

  it("reads null on an optional argument as not given (OpenAI strict mode sends it)", async () => {
    const r = await client.callTool({ name: "browse_marketplace", arguments: { query: null, category: null, sort: null, page: null, limit: null } });
    expect(r.isError, text(r)).toBeFalsy();
    expect(data(r).page).toBe(1);
    const bad = await client.callTool({ name: "get_receipt", arguments: { license_key: null } });
    expect(data(bad)).toMatchObject({ code: "invalid_body", errors: [{ name: "license_key" }] });
  });
});

describe("MCP: browse_marketplace pages and sorts", () => {
  it("reaches every listed product, page by page, without filters", async () => {
    const listed = await getDb().product.count({ where: { status: "active" } });
    const seen = new Set<string>();
    let page: number | null = 1;
    let pages = 0;
    while (page !== null) {
      const r = await client.callTool({ name: "browse_marketplace", arguments: { page, limit: 7 } });
      expect(r.isError, text(r)).toBeFalsy();
      const d = data<{ products: Array<{ id: string }>; total: number; page: number; pages: number; next_page: number | null }>(r);
      expect(d.page).toBe(page);
      expect(d.total).toBe(listed);
      for (const p of d.products) seen.add(p.id);
      if (d.next_page !== null) expect(text(r)).toContain(`page: ${d.next_page}`);
      page = d.next_page;
      pages = d.pages;
      expect(seen.size).toBeLessThanOrEqual(listed);
    }
    expect(seen.size).toBe(listed);
    expect(pages).toBe(Math.ceil(listed / 7));
  });

  it("sorts by price both ways and takes 1 to 20 a page, 10 by default (the interface's table)", async () => {
    const asc = data<{ products: Array<{ price_cents: number }>; limit: number }>(
      await client.callTool({ name: "browse_marketplace", arguments: { sort: "price_asc", limit: 20 } }),
    );
    expect(asc.limit).toBe(20);
    expect(data<{ limit: number }>(await client.callTool({ name: "browse_marketplace", arguments: {} })).limit).toBe(10);
    const prices = asc.products.map((p) => p.price_cents);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    const desc = data<{ products: Array<{ price_cents: number }> }>(
      await client.callTool({ name: "browse_marketplace", arguments: { sort: "price_desc", limit: 20 } }),
    );
    // Compared with itself: other test files list and delist products in the same database between the two calls.
    const descending = desc.products.map((p) => p.price_cents);
    expect(descending).toEqual([...descending].sort((a, b) => b - a));
    expect(descending.length).toBeGreaterThan(1);
    for (const limit of [0, 21]) {
      const refused = await client.callTool({ name: "browse_marketplace", arguments: { limit } });
      expect(data(refused), String(limit)).toMatchObject({ code: "invalid_body", errors: [{ name: "limit" }] });
    }
    const badSort = await client.callTool({ name: "browse_marketplace", arguments: { sort: "random" } });
    expect(data(badSort)).toMatchObject({ code: "invalid_body", errors: [{ name: "sort" }] });
  });
});

describe("MCP: the tools for what used to be REST-only", () => {
  it("purchase_license and agent_checkout answer the same shape; get_checkout_status gives the key once paid", async () => {
    const product = await getDb().product.findFirstOrThrow({ where: { status: "active" }, orderBy: { priceCents: "desc" } });
    const viaPurchase = await client.callTool({
      name: "purchase_license",
      arguments: { product_id: product.id, buyer_email: "mcp-person@example.com" },
    });
    const viaAgent = await client.callTool({
      name: "agent_checkout",
      arguments: { product_id: product.id, buyer_email: "mcp-buyer@example.com", agent_id: "integration-agent" },
    });
    expect(viaPurchase.isError, text(viaPurchase)).toBeFalsy();
    expect(viaAgent.isError, text(viaAgent)).toBeFalsy();
    expect(Object.keys(data(viaPurchase)).sort()).toEqual(Object.keys(data(viaAgent)).sort());
    const session = data<{ session_id: string; url: string }>(viaAgent);
    for (const r of [viaPurchase, viaAgent]) expect(text(r)).toMatch(/get_checkout_status with session_id "cs_/);

    const open = await client.callTool({ name: "get_checkout_status", arguments: { session_id: session.session_id } });
    expect(data(open)).toMatchObject({ status: "open", url: session.url, license: null, agent_id: "integration-agent" });
    expect(text(open)).toContain(session.url);

    await payTestCheckout(session.session_id);
    const paid = await client.callTool({ name: "get_checkout_status", arguments: { session_id: session.session_id } });
    const license = await getDb().license.findUniqueOrThrow({ where: { orderId: session.session_id } });
    expect(data(paid)).toMatchObject({
      status: "paid",
      license: { license_key: license.key, plugin_id: product.pluginId, delivered_to: "mcp-buyer@example.com" },
    });
    expect(text(paid)).toContain(license.key);

    const unknown = await client.callTool({ name: "get_checkout_status", arguments: { session_id: "cs_000000000000000000000000" } });
    expect(unknown.isError).toBe(true);
    expect(data(unknown)).toMatchObject({ code: "checkout_session_not_found" });
  });

  it("start_trial e-mails a trial key and never returns it", async () => {
    const product = await getDb().product.findFirstOrThrow({ where: { status: "active", trialAvailable: true } });
    const email = `mcp-trial-${Date.now()}@example.com`;
    const r = await client.callTool({
      name: "start_trial",
      arguments: { product_id: product.id, buyer_email: email, idempotency_key: crypto.randomUUID() },
    });
    expect(r.isError, text(r)).toBeFalsy();
    expect(data(r)).toMatchObject({ accepted: true, product_id: product.id, plugin_id: product.pluginId, trial_days: product.trialDays });
    const trial = await getDb().license.findFirstOrThrow({ where: { productId: product.id, buyerEmail: email, trial: true } });
    expect(JSON.stringify(r)).not.toContain(trial.key);
  });

  it("get_license_file and get_license_credential for an activated license", async () => {
    const license = await getDb().license.findFirstOrThrow({
      where: { isActive: true, trial: false, revokedAt: null, product: { status: "active" } },
      include: { product: true },
    });
    const fp = "b".repeat(64);
    const activated = await client.callTool({
      name: "activate_license",
      arguments: { license_key: license.key.toLowerCase(), machine_fingerprint: fp, plugin_id: license.product.pluginId },
    });
    expect(data(activated)).toMatchObject({ activated: true });
    const file = await client.callTool({
      name: "get_license_file",
      arguments: { license_key: license.key, machine_fingerprint: fp, plugin_id: null },
    });
    expect(file.isError, text(file)).toBeFalsy();
    expect(text(file)).toMatch(/^-----BEGIN|format: ilm-license-file\/1/m);
    const elsewhere = await client.callTool({
      name: "get_license_file",
      arguments: { license_key: license.key, machine_fingerprint: "c".repeat(64) },
    });
    expect(elsewhere.isError).toBe(true);
    expect(data(elsewhere)).toMatchObject({ code: expect.any(String), detail: expect.any(String) });

    const credential = await client.callTool({ name: "get_license_credential", arguments: { license_key: license.key } });
    expect(credential.isError, text(credential)).toBeFalsy();
    expect(text(credential)).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });
});

/** OpenAI's strict-mode rules for function parameters, checked on every node of a schema; returns what breaks them. */
function strictViolations(schema: any, path = "parameters", root = true): string[] {
  const out: string[] = [];
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return [`${path}: not a schema object`];
  const forbidden = [
    "default",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$schema",
    "$ref",
  ];
  for (const k of forbidden) if (k in schema) out.push(`${path}: "${k}" is not allowed in strict mode`);
  const formats = ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
  if ("format" in schema && !formats.includes(schema.format)) out.push(`${path}: format "${schema.format}" is not supported`);
  if (typeof schema.pattern === "string" && /\(\?<?[=!]/.test(schema.pattern)) out.push(`${path}: look-around in pattern`);
  if (root && (schema.type !== "object" || "anyOf" in schema)) out.push(`${path}: the root must be an object, not anyOf`);
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (!types.length && !Array.isArray(schema.anyOf) && !("enum" in schema) && !("const" in schema)) out.push(`${path}: no type`);
  if (types.includes("object")) {
    if (schema.additionalProperties !== false) out.push(`${path}: additionalProperties must be false`);
    const props = schema.properties;
    if (!props || typeof props !== "object") out.push(`${path}: an object needs properties`);
    else {
      const required = new Set<string>(schema.required ?? []);
      for (const [name, p] of Object.entries(props)) {
        if (!required.has(name)) out.push(`${path}.${name}: not listed in required`);
        out.push(...strictViolations(p, `${path}.${name}`, false));
      }
      for (const r of required) if (!(r in props)) out.push(`${path}: required names unknown property ${r}`);
    }
  }
  if (types.includes("array")) {
    if (!schema.items || typeof schema.items !== "object") out.push(`${path}: an array must type its items`);
    else out.push(...strictViolations(schema.items, `${path}[]`, false));
  }
  if (
    Array.isArray(schema.enum) &&
    types.length &&
    schema.enum.some(
      (v: unknown) => !types.includes(v === null ? "null" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v),
    ) &&
    !types.includes("number")
  )
    out.push(`${path}: enum values outside the type`);
  if (Array.isArray(schema.anyOf)) schema.anyOf.forEach((m: unknown, i: number) => out.push(...strictViolations(m, `${path}.anyOf[${i}]`, false)));
  return out;
}

function depth(schema: any): number {
  if (!schema || typeof schema !== "object") return 0;
  const children = [
    ...Object.values(schema.properties ?? {}),
    ...(schema.items ? [schema.items] : []),
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
  ];
  return (schema.properties ? 1 : 0) + Math.max(0, ...children.map(depth));
}

describe("/api/tools: valid for OpenAI strict mode", () => {
  it("every entry is strict: true and keeps every strict-mode rule", async () => {
    const r = await call(toolsRoute, "/api/tools");
    expect(r.status).toBe(200);
    expect(r.body.tools.length).toBeGreaterThanOrEqual(19);
    for (const t of r.body.tools) {
      expect(t.function.strict, t.function.name).toBe(true);
      expect(strictViolations(t.function.parameters), t.function.name).toEqual([]);
      expect(depth(t.function.parameters), t.function.name).toBeLessThanOrEqual(10);
      expect(t.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    }
  });

  it("keeps what it cannot say as keywords in the description, and optional arguments nullable", async () => {
    const r = await call(toolsRoute, "/api/tools");
    const browse = r.body.tools.find((t: any) => t.function.name === "browse_marketplace").function.parameters;
    expect(browse.required.sort()).toEqual(Object.keys(browse.properties).sort());
    expect(browse.properties.limit.type).toEqual(["integer", "null"]);
    expect(browse.properties.limit.description).toContain("default 10");
    expect(browse.properties.query.description).toContain("at most 200 characters");
    expect(browse.properties.sort.enum).toContain(null);
    const activate = r.body.tools.find((t: any) => t.function.name === "activate_license").function.parameters;
    expect(activate.properties.license_key.type).toBe("string");
    expect(activate.properties.license_key.pattern).toBeDefined();
  });

  it("a strict-mode call (null for every optional argument) works over MCP", async () => {
    const r = await call(toolsRoute, "/api/tools");
    const browse = r.body.tools.find((t: any) => t.function.name === "browse_marketplace").function.parameters;
    const args = Object.fromEntries(Object.keys(browse.properties).map((k) => [k, k === "limit" ? 3 : null]));
    const answer = await client.callTool({ name: "browse_marketplace", arguments: args });
    expect(answer.isError, text(answer)).toBeFalsy();
    expect(data(answer).products).toHaveLength(3);
  });
});
