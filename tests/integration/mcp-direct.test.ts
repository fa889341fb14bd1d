import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { disconnectDb } from "@/lib/db";
import { startAppServer, type AppServer } from "../helpers/app-server";

/**
 * MCP's direct path (lib/transports/mcp-direct.ts) answers a single tools/call without the SDK's per-exchange
 * machinery. Its answers must be the SDK's: each call here is made twice over HTTP against the running server, once
 * as a single message (the direct path) and once as a batch of one (which only the SDK answers), and the two answers
 * are compared: status, JSON-RPC response and headers. The direct answer is recognisable by its Content-Length (the
 * SDK streams its events, chunked).
 */
let app: AppServer;
beforeAll(async () => {
  app = await startAppServer();
});
afterAll(async () => {
  await app.close();
  await disconnectDb();
});

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
/** Headers that differ between any two answers, or between a streamed and a whole body. */
const VARYING = new Set(["date", "x-request-id", "content-length", "transfer-encoding", "keep-alive", "connection"]);

async function post(body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(new URL("/api/mcp", app.url), { method: "POST", headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
  const text = await r.text();
  const events = text.split("\n\n").filter(Boolean);
  const kept: Record<string, string> = {};
  r.headers.forEach((value, name) => {
    if (!VARYING.has(name)) kept[name] = value;
  });
  return {
    status: r.status,
    headers: kept,
    direct: r.headers.get("content-length") !== null && r.headers.get("transfer-encoding") === null,
    text,
    messages: events.map((e) => {
      expect(e).toMatch(/^event: message\ndata: /);
      return JSON.parse(e.slice(e.indexOf("data: ") + 6)) as Record<string, unknown>;
    }),
  };
}

const call = (id: number | string, name: string, args?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, ...(args === undefined ? {} : { arguments: args }) },
});

it("a single tools/call is answered directly, exactly as the SDK answers it", async () => {
  const catalog = (await (await fetch(new URL("/api/catalog", app.url))).json()) as { products: Array<{ id: string; plugin_id: string }> };
  const product = catalog.products[0]!;
  const cases: Array<[string, Record<string, unknown> | undefined]> = [
    ["browse_marketplace", { category: "audio-plugins", limit: 2 }],
    ["browse_marketplace", undefined],
    ["get_product_details", { product_id: product.id }],
    ["get_product_details", { product_id: "no-such-product" }],
    ["get_terms", {}],
    ["validate_license", { license_key: "ABCD-EFGH-JKLM-NPQR", machine_fingerprint: "a".repeat(64), plugin_id: product.plugin_id }],
    ["validate_license", { license_key: 42 }],
    ["browse_marketplace", { colour: "red" }],
    ["generate_license_integration", { language: "python", app_id: "com.example.app" }],
    // ACP tools: a refusal is a JSON-RPC error (-32000, ACP's Error as data) on both paths.
    ["get_checkout_session", { meta: { api_version: "2026-04-17" }, id: "cs_no_such_session" }],
    ["get_checkout_session", { meta: { api_version: "1999-01-01" }, id: "cs_no_such_session" }],
    ["cancel_checkout_session", { meta: { api_version: "2026-04-17", unknown_field: 1 }, id: "cs_no_such_session" }],
  ];
  for (const [i, [name, args]] of cases.entries()) {
    const direct = await post(call(i + 1, name, args));
    const sdk = await post([call(i + 1, name, args)]);
    const label = `${name} ${JSON.stringify(args)}`;
    expect(direct.direct, label).toBe(true);
    expect(sdk.direct, label).toBe(false);
    expect(direct.status, label).toBe(sdk.status);
    expect(direct.messages, label).toEqual(sdk.messages);
    expect(direct.headers, label).toEqual(sdk.headers);
    expect(direct.messages[0]!.id, label).toBe(i + 1);
    if (name.endsWith("checkout_session"))
      expect(direct.messages[0], label).toMatchObject({ error: { code: -32000, data: { type: "invalid_request" } } });
  }
});

it("a string id, another protocol revision and a Content-Type with parameters are answered directly too", async () => {
  for (const [id, headers] of [
    ["call-1", {}],
    [7, { "mcp-protocol-version": "2025-06-18" }],
    [8, { "mcp-protocol-version": "2024-11-05", "content-type": "application/json; charset=utf-8" }],
  ] as const) {
    const direct = await post(call(id, "get_terms", {}), headers);
    const sdk = await post([call(id, "get_terms", {})], headers);
    expect(direct.direct).toBe(true);
    expect(direct.messages).toEqual(sdk.messages);
    expect(direct.messages[0]!.id).toBe(id);
  }
});

it("what the direct path does not know goes to the SDK, which answers it as before", async () => {
  // An unknown tool: the SDK's protocol error, not a guess.
  const unknown = await post(call(1, "no_such_tool", {}));
  expect(unknown.direct).toBe(false);
  expect(unknown.messages[0]).toMatchObject({ id: 1, error: { code: -32602 } });
  // A protocol revision the SDK does not serve: its 400, as JSON.
  const version = await fetch(new URL("/api/mcp", app.url), {
    method: "POST",
    headers: { ...HEADERS, "mcp-protocol-version": "1999-01-01" },
    body: JSON.stringify(call(2, "get_terms", {})),
  });
  expect(version.status).toBe(400);
  // A client that does not accept server-sent events: the SDK's 406.
  const accept = await fetch(new URL("/api/mcp", app.url), {
    method: "POST",
    headers: { ...HEADERS, accept: "application/json" },
    body: JSON.stringify(call(3, "get_terms", {})),
  });
  expect(accept.status).toBe(406);
  // Not JSON at all: the SDK's parse error.
  const garbage = await fetch(new URL("/api/mcp", app.url), { method: "POST", headers: HEADERS, body: "{not json" });
  expect(garbage.status).toBe(400);
  expect(((await garbage.json()) as { error: { code: number } }).error.code).toBe(-32700);
  // A field of tools/call the direct path does not know (task-augmented calls): the SDK's answer.
  const task = await post({ ...call(4, "get_terms", {}), params: { name: "get_terms", arguments: {}, task: { ttl: 1000 } } });
  expect(task.direct).toBe(false);
  // A notification is accepted without an answer.
  const note = await fetch(new URL("/api/mcp", app.url), {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  expect(note.status).toBe(202);
});

it("the official SDK client works against the direct path end to end", async () => {
  const client = new Client({ name: "direct-check", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", app.url)));
  const terms = await client.callTool({ name: "get_terms", arguments: {} });
  expect(terms.isError).toBeFalsy();
  expect((terms.structuredContent as { pricing: { transaction_fee_percent: number } }).pricing.transaction_fee_percent).toBe(5);
  const refused = await client.callTool({ name: "get_product_details", arguments: { product_id: "no-such-product" } });
  expect(refused.isError).toBe(true);
  expect((refused.structuredContent as { code: string }).code).toBe("product_not_found");
  await client.close();
});
