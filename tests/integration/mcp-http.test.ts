import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { disconnectDb } from "@/lib/db";
import { startAppServer, type AppServer } from "../helpers/app-server";

const run = promisify(execFile);

/**
 * MCP over HTTP against the service in this process (tests/helpers/app-server.ts: server.ts's front door answers MCP
 * itself, as in production): the protocol revisions, the official SDK client, bad arguments, and the inspector CLI.
 * Moved from the browser suite, which needed no browser for these; e2e/mcp.spec.ts keeps the purchase paid in a page.
 */
let app: AppServer;
let baseURL: string;
beforeAll(async () => {
  app = await startAppServer();
  baseURL = app.url;
});
afterAll(async () => {
  await app.close();
  await disconnectDb();
});

async function connect(baseURL: string) {
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", baseURL)));
  return client;
}

/** A raw JSON-RPC exchange, as an older client would make it. */
async function rpc(baseURL: string, body: unknown, protocolVersion?: string) {
  const r = await fetch(new URL("/api/mcp", baseURL), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(protocolVersion ? { "mcp-protocol-version": protocolVersion } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  const json = text.trimStart().startsWith("{")
    ? JSON.parse(text)
    : JSON.parse(
        text
          .split("\n")
          .find((l) => l.startsWith("data:"))!
          .slice(5),
      );
  return { status: r.status, headers: r.headers, json };
}

it("MCP: initialize negotiates 2024-11-05 and the newer revisions", async () => {
  for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
    const r = await rpc(baseURL, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    expect(r.status, version).toBe(200);
    expect(r.json.result.protocolVersion, version).toBe(version);
    // The tool list is fixed while the server runs, and initialize says so, as the server card does.
    expect(r.json.result.capabilities.tools, version).toEqual({ listChanged: false });
    expect(r.headers.get("link")).toContain('rel="mcp"');
  }
});

it("MCP: the official SDK client lists the tools and calls them", async () => {
  const request = app.request;
  const client = await connect(baseURL);
  const { tools } = await client.listTools();
  const manifest = await (await request.get("/api/tools")).json();
  expect(tools.map((t) => t.name).sort()).toEqual(manifest.tools.map((t: { function: { name: string } }) => t.function.name).sort());
  expect(tools.length).toBe(manifest.tools.length);

  const browse = await client.callTool({ name: "browse_marketplace", arguments: { category: "audio-plugins", limit: 3 } });
  expect(browse.isError).toBeFalsy();
  const data = browse.structuredContent as { products: Array<{ id: string; category: string; plugin_id: string }>; total: number };
  expect(data.products).toHaveLength(3);
  expect(data.products.every((p) => p.category === "audio-plugins")).toBe(true);
  const rest = await (await request.get("/api/marketplace/listings?category=audio-plugins&limit=1")).json();
  expect(data.total).toBe(rest.total);
  expect((browse.content as Array<{ type: string; text: string }>)[0]!.type).toBe("text");

  const details = await client.callTool({ name: "get_product_details", arguments: { product_id: data.products[0]!.id } });
  const restDetails = await (await request.get(`/api/marketplace/product/${data.products[0]!.id}`)).json();
  expect(details.structuredContent).toEqual(restDetails);

  const terms = await client.callTool({ name: "get_terms", arguments: {} });
  expect((terms.structuredContent as { pricing: { transaction_fee_percent: number } }).pricing.transaction_fee_percent).toBe(5);

  const key = await client.callTool({ name: "generate_test_license_key", arguments: { prefix: "DEMO" } });
  const testKey = (key.structuredContent as { license_key: string }).license_key;
  expect(testKey).toMatch(/^DEMO-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
  const fp = "a".repeat(64);
  const validation = await client.callTool({
    name: "validate_license",
    arguments: { license_key: testKey, machine_fingerprint: fp, plugin_id: data.products[0]!.plugin_id },
  });
  expect(validation.structuredContent).toMatchObject({ valid: false, code: "NOT_FOUND" });

  for (const [language, block] of [
    ["python", "```python"],
    ["rust", "```rust"],
    ["electron", "```javascript"],
  ]) {
    const code = await client.callTool({ name: "generate_license_integration", arguments: { language, app_id: "com.example.app" } });
    const text = (code.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain(block);
    expect(text).toContain("com.example.app");
  }
  await client.close();
});

it("MCP: bad arguments give isError results that name the problem", async () => {
  const client = await connect(baseURL);
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["browse_marketplace", { limit: 51 }, /limit/],
    ["browse_marketplace", { colour: "red" }, /colour/],
    ["generate_test_license_key", { prefix: "TOOLONG" }, /prefix/],
    ["generate_license_integration", { language: "cobol" }, /language/],
    ["get_product_details", { product_id: "no-such-product" }, /product_not_found/],
    ["activate_license", { license_key: "nope" }, /license_key|machine_fingerprint/],
    ["purchase_license", { product_id: "tape-warmth", buyer_email: "not-an-email" }, /buyer_email/],
  ];
  for (const [name, args, pattern] of cases) {
    const r = await client.callTool({ name, arguments: args });
    expect(r.isError, name).toBe(true);
    expect((r.content as Array<{ text: string }>)[0]!.text, name).toMatch(pattern);
    // The same facts as data: the code, and for bad input each argument by name.
    const data = r.structuredContent as { code: string; errors: Array<{ name: string }> };
    expect(data.code, name).toMatch(/^[a-z_]+$/);
    if (data.code === "invalid_body") expect(data.errors.map((e) => e.name).join(" "), name).toMatch(pattern);
  }
  // The server is still fine afterwards.
  const { tools } = await client.listTools();
  expect(tools.length).toBeGreaterThanOrEqual(19);
  await client.close();
});

it("MCP: the inspector CLI lists and calls the tools", { timeout: 150_000 }, async () => {
  const endpoint = new URL("/api/mcp", baseURL).toString();
  const list = await run("npx", ["--no-install", "mcp-inspector", "--cli", endpoint, "--transport", "http", "--method", "tools/list"], {
    timeout: 60_000,
  });
  const tools = JSON.parse(list.stdout).tools as Array<{ name: string }>;
  expect(tools.map((t) => t.name)).toContain("validate_license");
  const call = await run(
    "npx",
    [
      "--no-install",
      "mcp-inspector",
      "--cli",
      endpoint,
      "--transport",
      "http",
      "--method",
      "tools/call",
      "--tool-name",
      "explain_licensing",
      "--tool-arg",
      "topic=machine_binding",
    ],
    { timeout: 60_000 },
  );
  expect(JSON.parse(call.stdout).content[0].text).toMatch(/activate/i);
});
