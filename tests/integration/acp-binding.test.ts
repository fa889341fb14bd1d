import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb } from "@/lib/db";
import { acpSchemaErrors, delegateBody } from "../helpers/acp-protocol";
import { startAppServer, type AppServer } from "../helpers/app-server";

/**
 * The Agentic Commerce Protocol as a client written strictly to its documents sees it, against the service in this
 * process (tests/helpers/app-server.ts), with the official MCP SDK client and plain HTTP:
 * - the ACP MCP binding's own examples (tests/fixtures/acp-2026-04-17/examples.mcp.agentic_checkout.json, vendored from
 *   the release) run as they are, but for the ids (a real product and session) and the payment instrument (the
 *   example's `{token}` is not a PaymentData instrument by the JSON Schema, which wants {type, credential}); every
 *   refusal is a JSON-RPC error -32000 with ACP's Error in `data`;
 * - one scripted session over REST and over MCP, a purchase and a dozen refusals each, every answer checked with ajv
 *   against the official JSON Schema of its endpoint (checkout: schema.agentic_checkout.json; delegate_payment:
 *   schema.delegate_payment.json, whose Error.code is a closed enum).
 */
const VERSION = "2026-04-17";
const examples = JSON.parse(
  readFileSync(new URL("../fixtures/acp-2026-04-17/examples.mcp.agentic_checkout.json", import.meta.url), "utf8"),
) as Record<string, { params?: { name: string; arguments: Record<string, any> }; error?: { code: number; data: Record<string, unknown> } }>;

let app: AppServer;
let client: Client;
let product: { id: string; price_cents: number };
beforeAll(async () => {
  app = await startAppServer();
  client = new Client({ name: "acp-binding-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", app.url)));
  const listings = await (await app.request.get("/api/marketplace/listings?sort=price_asc&limit=50")).json();
  product = listings.products.find((p: { seat_model: string; currency: string }) => p.seat_model === "per-machine" && p.currency === "usd");
  expect(product, "a per-machine product priced in usd").toBeDefined();
});
afterAll(async () => {
  await client.close();
  await app.close();
  await disconnectDb();
});

/** Every answer checked, by schema reference, and how many of each kind: the test's own tally. */
const checked: string[] = [];
function expectValid(body: unknown, ref: string, what: string): void {
  const errors = acpSchemaErrors(body, ref);
  expect(errors, `${what} (${ref}): ${errors}\n${JSON.stringify(body).slice(0, 1500)}`).toBeNull();
  checked.push(`${what} ${ref}`);
}
const CHECKOUT_ERROR = "checkout#/$defs/Error";
const DELEGATE_ERROR = "delegate#/$defs/Error";

/** A tool call that must succeed: its structured content. */
async function ok(name: string, args: Record<string, unknown>): Promise<any> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError ?? false, JSON.stringify(r).slice(0, 800)).toBe(false);
  return r.structuredContent;
}

/** A tool call that must be refused as the binding says: a JSON-RPC error -32000 whose data is ACP's Error. */
async function refused(name: string, args: Record<string, unknown>): Promise<{ message: string; data: any }> {
  let caught: unknown;
  try {
    const r = await client.callTool({ name, arguments: args });
    expect.fail(`${name} answered a result, not a JSON-RPC error: ${JSON.stringify(r).slice(0, 800)}`);
  } catch (error) {
    caught = error;
  }
  expect(caught, String(caught)).toBeInstanceOf(McpError);
  const e = caught as McpError;
  expect(e.code, e.message).toBe(-32000);
  expect(e.data, e.message).toBeTypeOf("object");
  const data = e.data as { message: string };
  // The JSON-RPC message is ACP's message (the SDK prefixes "MCP error -32000: " when it rethrows).
  expect(e.message).toContain(data.message);
  return { message: e.message, data };
}

const meta = (extra: Record<string, unknown> = {}) => ({ api_version: VERSION, idempotency_key: randomUUID(), ...extra });
const card = (token: string) => ({ handler_id: "test_card", instrument: { type: "card", credential: { type: "vt", token } } });
const createPayload = (extra: Record<string, unknown> = {}) => ({
  line_items: [{ id: product.id }],
  currency: "usd",
  capabilities: { interventions: { supported: [] } },
  ...extra,
});

describe("the ACP MCP binding's examples, with the official MCP SDK client", () => {
  /** An example's arguments with a real product in the line items and a real session id. */
  function adapted(key: string, id?: string): Record<string, any> {
    const args = structuredClone(examples[key]!.params!.arguments);
    // The example's fixed key would replay its first answer (another run's session) for 24 hours: a fresh one.
    if (args.meta.idempotency_key !== undefined) args.meta.idempotency_key = `idem_${randomUUID()}`;
    if (args.payload?.line_items) args.payload.line_items = args.payload.line_items.map(() => ({ id: product.id }));
    if (id !== undefined) args.id = id;
    return args;
  }

  it("tools/list offers the five checkout tools (and delegate_payment), each with the binding's {meta, id, payload}", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const key of Object.keys(examples).filter((k) => examples[k]!.params)) {
      const { name, arguments: args } = examples[key]!.params!;
      const tool = byName.get(name);
      expect(tool, name).toBeDefined();
      expect(Object.keys(tool!.inputSchema.properties ?? {}).sort(), name).toEqual(expect.arrayContaining(Object.keys(args).sort()));
      // meta.idempotency_key is optional in the binding: only api_version is required.
      const metaSchema = (tool!.inputSchema.properties as Record<string, { required?: string[] }>).meta!;
      expect(metaSchema.required, name).toEqual(["api_version"]);
    }
    expect(byName.get("delegate_payment")).toBeDefined();
  });

  it("create → get → update → complete run as the examples are written; cancel too (no idempotency key); their results are ACP sessions", async () => {
    const created = await ok("create_checkout_session", adapted("create_checkout_session_request"));
    expectValid(created, "checkout#/$defs/CheckoutSession", "example create");
    const shape = examples.create_checkout_session_response as unknown as { result: Record<string, unknown> };
    for (const k of ["id", "protocol", "capabilities", "status", "currency", "line_items", "totals", "messages", "links"])
      expect(created, `create result has ${k} as the example does`).toHaveProperty(k);
    expect(shape.result).toHaveProperty("status");
    const id = created.id as string;

    // The binding's get and update examples send meta without an idempotency key.
    expect(examples.get_checkout_session_request!.params!.arguments.meta.idempotency_key).toBeUndefined();
    const got = await ok("get_checkout_session", adapted("get_checkout_session_request", id));
    expectValid(got, "checkout#/$defs/CheckoutSession", "example get");
    expect(got.id).toBe(id);
    const updated = await ok("update_checkout_session", adapted("update_checkout_session_request", id));
    expectValid(updated, "checkout#/$defs/CheckoutSession", "example update");

    const total = updated.totals.find((t: { type: string }) => t.type === "total").amount as number;
    const token = await ok("delegate_payment", { meta: meta(), payload: delegateBody(id, total) });
    expectValid(token, "delegate#/$defs/DelegatePaymentResponse", "delegate_payment");
    const complete = adapted("complete_checkout_session_request", id);
    // The example's instrument ({token}) is not one by the JSON Schema (PaymentData.instrument needs type and credential).
    complete.payload.payment_data = card(token.id);
    const done = await ok("complete_checkout_session", complete);
    expectValid(done, "checkout#/$defs/CheckoutSessionWithOrder", "example complete");
    expect(done.status).toBe("completed");
    expect(done.buyer.email).toBe(examples.complete_checkout_session_request!.params!.arguments.payload.buyer.email);
    expect(done.order.fulfillments[0].digital_delivery.license_key).toMatch(/^[A-Z0-9]{4}(-[A-Z0-9]{4}){3}$/);

    // cancel_checkout_session exactly as the binding's example: meta without idempotency_key (refused before issue 34).
    const other = await ok("create_checkout_session", adapted("create_checkout_session_request"));
    const cancelArgs = adapted("cancel_checkout_session_request", other.id);
    expect(cancelArgs.meta).toEqual({ api_version: VERSION });
    const canceled = await ok("cancel_checkout_session", cancelArgs);
    expectValid(canceled, "checkout#/$defs/CheckoutSession", "example cancel");
    expect(canceled.status).toBe("canceled");
    // Canceling the completed session is an ACP error in the JSON-RPC error's data.
    const notCancelable = await refused("cancel_checkout_session", adapted("cancel_checkout_session_request", id));
    expect(notCancelable.data).toMatchObject({ type: "invalid_request", code: "checkout_session_not_cancelable" });
    expectValid(notCancelable.data, CHECKOUT_ERROR, "example cancel refused");
  });

  it("error_invalid_request: a create without currency is -32000 with the ACP Error naming $.payload.currency", async () => {
    const args = adapted("create_checkout_session_request");
    delete args.payload.currency;
    const e = await refused("create_checkout_session", args);
    const expected = examples.error_invalid_request!.error!;
    expect(expected.code).toBe(-32000);
    expect(e.data).toMatchObject({ type: expected.data.type, param: expected.data.param });
    expectValid(e.data, CHECKOUT_ERROR, "example missing currency");
  });

  it("error_payment_declined: a declined card is -32000 with type processing_error, code payment_declined", async () => {
    const created = await ok("create_checkout_session", {
      meta: meta(),
      payload: createPayload({ buyer: { email: `declined-${randomUUID()}@e2e.example.com` } }),
    });
    const token = await ok("delegate_payment", { meta: meta(), payload: delegateBody(created.id, product.price_cents, "usd", "4000000000000002") });
    const e = await refused("complete_checkout_session", { meta: meta(), id: created.id, payload: { payment_data: card(token.id) } });
    const expected = examples.error_payment_declined!.error!;
    expect(e.data).toMatchObject({ type: expected.data.type, code: expected.data.code });
    expectValid(e.data, CHECKOUT_ERROR, "example payment declined");
  });

  it("a client written to the binding alone (raw JSON-RPC, no MCP SDK) buys, reading the session from result and refusals from error.data", async () => {
    let n = 0;
    /** One tools/call as the binding writes it; the answer's JSON-RPC message (from the server-sent event or JSON). */
    async function rpc(name: string, args: Record<string, unknown>): Promise<{ result?: any; error?: { code: number; message: string; data: any } }> {
      const r = await fetch(new URL("/api/mcp", app.url), {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++n, method: "tools/call", params: { name, arguments: args } }),
      });
      expect(r.status).toBe(200);
      const text = await r.text();
      const line = text.split("\n").find((l) => l.startsWith("data: "));
      const message = JSON.parse(line ? line.slice(6) : text) as { id: number; result?: any; error?: any };
      expect(message.id).toBe(n);
      return message;
    }
    /** The session as the binding returns it: the result's own fields (MCP's content and structuredContent set aside). */
    const session = (result: any) => {
      const { content: _content, structuredContent: _structured, ...rest } = result as Record<string, unknown>;
      return rest as any;
    };
    const created = await rpc("create_checkout_session", {
      meta: { api_version: VERSION },
      payload: createPayload({ buyer: { email: `strict-${randomUUID()}@e2e.example.com` } }),
    });
    expect(created.error).toBeUndefined();
    expect(created.result.status).toBe("ready_for_payment");
    expectValid(session(created.result), "checkout#/$defs/CheckoutSession", "strict create");
    const id = created.result.id as string;
    const total = (created.result.totals as Array<{ type: string; amount: number }>).find((t) => t.type === "total")!.amount;

    const wrongVersion = await rpc("get_checkout_session", { meta: { api_version: "1999-01-01" }, id });
    expect(wrongVersion.result).toBeUndefined();
    expect(wrongVersion.error).toMatchObject({ code: -32000, data: { type: "invalid_request", code: "unsupported_api_version" } });
    expectValid(wrongVersion.error!.data, CHECKOUT_ERROR, "strict version");

    const token = await rpc("delegate_payment", { meta: meta(), payload: delegateBody(id, total) });
    const done = await rpc("complete_checkout_session", { meta: { api_version: VERSION }, id, payload: { payment_data: card(token.result.id) } });
    expect(done.result.status).toBe("completed");
    expectValid(session(done.result), "checkout#/$defs/CheckoutSessionWithOrder", "strict complete");
    expect(done.result.order.fulfillments[0].digital_delivery.license_key).toMatch(/^[A-Z0-9]{4}(-[A-Z0-9]{4}){3}$/);

    const again = await rpc("complete_checkout_session", { meta: { api_version: VERSION }, id, payload: { payment_data: card(token.result.id) } });
    expect(again.error?.code).toBe(-32000);
    expect(again.error!.message).toBe(again.error!.data.message);
    expectValid(again.error!.data, CHECKOUT_ERROR, "strict completed twice");
  });

  it("unknown meta fields are ignored; a malformed tools/call (no tool of that name) stays the protocol's -32602", async () => {
    const created = await ok("create_checkout_session", {
      meta: meta({ user_agent: "AgentShop/1.0", accept_language: "en-US", signature: "sig", timestamp: new Date().toISOString(), future_header: 1 }),
      payload: createPayload(),
    });
    expectValid(created, "checkout#/$defs/CheckoutSession", "unknown meta");
    const e = await client.callTool({ name: "create_checkout_sessions", arguments: { meta: meta() } }).catch((error: unknown) => error);
    expect(e).toBeInstanceOf(McpError);
    expect((e as McpError).code).toBe(-32602);
  });
});

describe("the same refusal on both MCP paths", () => {
  it("a batch (answered by the SDK's server, not the direct path) carries the ACP refusal as the JSON-RPC error too", async () => {
    const call = (id: number, args: Record<string, unknown>) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "get_checkout_session", arguments: args },
    });
    const r = await fetch(new URL("/api/mcp", app.url), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-03-26" },
      body: JSON.stringify([
        call(1, { meta: { api_version: VERSION }, id: "acs_000000000000000000000000" }),
        call(2, { meta: { api_version: "1999-01-01" }, id: "acs_000000000000000000000000" }),
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "browse_marketplace", arguments: { limit: 0 } } },
      ]),
    });
    expect(r.status).toBe(200);
    const text = await r.text();
    const messages = (
      text.trimStart().startsWith("[") || text.trimStart().startsWith("{")
        ? [JSON.parse(text)]
        : text
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => JSON.parse(l.slice(5)))
    )
      .flat()
      .sort((a: { id: number }, b: { id: number }) => a.id - b.id);
    expect(messages.map((m: { id: number }) => m.id)).toEqual([1, 2, 3]);
    expect(messages[0].error).toMatchObject({ code: -32000, data: { type: "invalid_request", code: "checkout_session_not_found", param: "$.id" } });
    expect(messages[0].error.message).toBe(messages[0].error.data.message);
    expectValid(messages[0].error.data, CHECKOUT_ERROR, "batch not found");
    expect(messages[1].error).toMatchObject({ code: -32000, data: { code: "unsupported_api_version", param: "$.meta.api_version" } });
    expectValid(messages[1].error.data, CHECKOUT_ERROR, "batch version");
    // Any other tool's refusal stays an isError result.
    expect(messages[2].result).toMatchObject({ isError: true, structuredContent: { code: "invalid_body" } });
  });
});

describe("a scripted session over REST and over MCP: every ACP answer valid against the official schema of its endpoint", () => {
  const api = "/api/acp";
  type Answer = { status: number; body: any; allow?: string | null };

  async function rest(
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
    headers: Record<string, string | undefined> = {},
  ): Promise<Answer> {
    const h = new Headers({
      "API-Version": VERSION,
      ...(method === "POST" ? { "Idempotency-Key": randomUUID(), "Content-Type": "application/json" } : {}),
    });
    // A header given as undefined is left out.
    for (const [k, v] of Object.entries(headers)) {
      if (v === undefined) h.delete(k);
      else h.set(k, v);
    }
    const r = await fetch(new URL(`${api}${path}`, app.url), {
      method,
      headers: h,
      body: typeof body === "string" ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: JSON.parse(text), allow: r.headers.get("allow") };
  }

  /** A REST refusal: its status and ACP Error code, valid against the endpoint's schema. */
  function restRefusal(a: Answer, status: number, code: string, ref: string, what: string) {
    expect(a.status, `${what}: ${JSON.stringify(a.body)}`).toBe(status);
    expect(a.body.code, what).toBe(code);
    expectValid(a.body, ref, `REST ${what}`);
    return a.body;
  }

  it("REST: a purchase and 22 refusals of 19 kinds", async () => {
    const start = checked.length;
    // 1. No API-Version; 2. an unsupported one (with supported_versions).
    restRefusal(
      await rest("POST", "/checkout_sessions", createPayload(), { "API-Version": undefined }),
      400,
      "api_version_required",
      CHECKOUT_ERROR,
      "no version",
    );
    const unsupported = restRefusal(
      await rest("POST", "/checkout_sessions", createPayload(), { "API-Version": "2025-09-29" }),
      400,
      "unsupported_api_version",
      CHECKOUT_ERROR,
      "old version",
    );
    expect(unsupported.supported_versions).toEqual([VERSION]);
    // 3. No Idempotency-Key on a POST (REST requires it).
    restRefusal(
      await rest("POST", "/checkout_sessions", createPayload(), { "Idempotency-Key": undefined }),
      400,
      "idempotency_key_required",
      CHECKOUT_ERROR,
      "no key",
    );
    // 4. A body that is not JSON; 5. a missing required field.
    restRefusal(await rest("POST", "/checkout_sessions", "{not json"), 400, "invalid_json", CHECKOUT_ERROR, "not json");
    const missing = restRefusal(
      await rest("POST", "/checkout_sessions", { line_items: [{ id: product.id }] }),
      400,
      "invalid_body",
      CHECKOUT_ERROR,
      "no currency",
    );
    expect(missing.param).toBe("$.currency");
    // 5b. Not JSON by its Content-Type; a body over the endpoint's cap (32 KiB).
    restRefusal(
      await rest("POST", "/checkout_sessions", JSON.stringify(createPayload()), { "Content-Type": "text/plain" }),
      415,
      "unsupported_media_type",
      CHECKOUT_ERROR,
      "text body",
    );
    restRefusal(
      await rest("POST", "/checkout_sessions", JSON.stringify(createPayload({ order_notes: "x".repeat(40_000) }))),
      413,
      "body_too_large",
      CHECKOUT_ERROR,
      "large body",
    );
    // 6. An unknown product.
    restRefusal(
      await rest("POST", "/checkout_sessions", createPayload({ line_items: [{ id: "no-such-product" }] })),
      400,
      "invalid_item_id",
      CHECKOUT_ERROR,
      "unknown item",
    );
    // 7. An unknown session.
    restRefusal(
      await rest("GET", "/checkout_sessions/acs_000000000000000000000000"),
      404,
      "checkout_session_not_found",
      CHECKOUT_ERROR,
      "unknown session",
    );

    const created = await rest("POST", "/checkout_sessions", createPayload());
    expect(created.status).toBe(201);
    expectValid(created.body, "checkout#/$defs/CheckoutSession", "REST create");
    const id = created.body.id as string;
    // 8. The same idempotency key with another body.
    const key = randomUUID();
    const first = await rest(
      "POST",
      `/checkout_sessions/${id}`,
      { buyer: { email: `rest-${randomUUID()}@e2e.example.com` } },
      { "Idempotency-Key": key },
    );
    expect(first.status).toBe(200);
    expectValid(first.body, "checkout#/$defs/CheckoutSession", "REST update");
    restRefusal(
      await rest("POST", `/checkout_sessions/${id}`, { order_notes: "other" }, { "Idempotency-Key": key }),
      422,
      "idempotency_conflict",
      CHECKOUT_ERROR,
      "key conflict",
    );
    const total = first.body.totals.find((t: { type: string }) => t.type === "total").amount as number;

    // delegate_payment's refusals: codes from its schema's closed enum, param naming the field, our code in the message.
    // 9. Not a test card.
    const notTest = restRefusal(
      await rest("POST", "/agentic_commerce/delegate_payment", delegateBody(id, total, "usd", "4111111111111111")),
      422,
      "invalid_card",
      DELEGATE_ERROR,
      "not a test card",
    );
    expect(notTest.param).toBe("$.payment_method.number");
    // 10. An allowance already expired.
    const expired = delegateBody(id, total);
    expired.allowance.expires_at = new Date(Date.now() - 60_000).toISOString();
    const allowance = restRefusal(
      await rest("POST", "/agentic_commerce/delegate_payment", expired),
      422,
      "invalid_card",
      DELEGATE_ERROR,
      "expired allowance",
    );
    expect(allowance).toMatchObject({ type: "invalid_request", param: "$.allowance.expires_at" });
    expect(allowance.message).toContain("(invalid_allowance)");
    // 11. A session that is not the caller's (none).
    const none = restRefusal(
      await rest("POST", "/agentic_commerce/delegate_payment", delegateBody("acs_000000000000000000000000", total)),
      404,
      "invalid_card",
      DELEGATE_ERROR,
      "no session",
    );
    expect(none).toMatchObject({ param: "$.allowance.checkout_session_id" });
    expect(none.message).toContain("(checkout_session_not_found)");
    // 12. A risk signal that blocks.
    const risky = delegateBody(id, total);
    risky.risk_signals = [{ type: "card_testing", score: 99, action: "blocked" }];
    const blocked = restRefusal(await rest("POST", "/agentic_commerce/delegate_payment", risky), 422, "invalid_card", DELEGATE_ERROR, "blocked");
    expect(blocked).toMatchObject({ param: "$.risk_signals" });
    expect(blocked.message).toContain("(payment_blocked)");
    // 13. Not JSON, and no key, on delegate_payment.
    restRefusal(await rest("POST", "/agentic_commerce/delegate_payment", "[1,"), 400, "invalid_card", DELEGATE_ERROR, "delegate not json");
    restRefusal(
      await rest("POST", "/agentic_commerce/delegate_payment", delegateBody(id, total), { "Idempotency-Key": undefined }),
      400,
      "idempotency_key_required",
      DELEGATE_ERROR,
      "delegate no key",
    );
    // 14. A token that does not exist.
    restRefusal(
      await rest("POST", `/checkout_sessions/${id}/complete`, { payment_data: card("vt_doesnotexist000000000000") }),
      400,
      "payment_token_invalid",
      CHECKOUT_ERROR,
      "bad token",
    );

    const token = await rest("POST", "/agentic_commerce/delegate_payment", delegateBody(id, total));
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    expectValid(token.body, "delegate#/$defs/DelegatePaymentResponse", "REST delegate_payment");
    const done = await rest("POST", `/checkout_sessions/${id}/complete`, { payment_data: card(token.body.id) });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expectValid(done.body, "checkout#/$defs/CheckoutSessionWithOrder", "REST complete");
    const got = await rest("GET", `/checkout_sessions/${id}`);
    expectValid(got.body, "checkout#/$defs/CheckoutSessionWithOrder", "REST get");
    // 15. Completed: not again, not canceled.
    restRefusal(
      await rest("POST", `/checkout_sessions/${id}/complete`, { payment_data: card(token.body.id) }),
      409,
      "checkout_session_completed",
      CHECKOUT_ERROR,
      "complete twice",
    );
    restRefusal(
      await rest("POST", `/checkout_sessions/${id}/cancel`, {}),
      405,
      "checkout_session_not_cancelable",
      CHECKOUT_ERROR,
      "cancel completed",
    );
    // 16. A method the path does not serve: refused as an ACP Error too (405, with Allow), not as a problem document.
    const put = restRefusal(await rest("PUT", "/checkout_sessions", {}), 405, "method_not_allowed", CHECKOUT_ERROR, "unsupported method");
    expect(put.type).toBe("invalid_request");
    const del = await rest("DELETE", `/checkout_sessions/${id}`);
    restRefusal(del, 405, "method_not_allowed", CHECKOUT_ERROR, "unsupported method on a session");
    expect(del.allow).toBe("GET, POST");
    // delegate_payment's schema has six codes: the refusal takes the one for a request to fix, ours in the message.
    const delegate = restRefusal(
      await rest("PUT", "/agentic_commerce/delegate_payment", {}),
      405,
      "invalid_card",
      DELEGATE_ERROR,
      "unsupported method, delegate",
    );
    expect(delegate.message).toMatch(/\(method_not_allowed\)$/);
    expect(checked.length - start).toBeGreaterThanOrEqual(23);
  });

  it("MCP: the same purchase and 16 refusals, each a JSON-RPC error whose data is valid against the endpoint's Error schema", async () => {
    const start = checked.length;
    const mcpRefusal = async (name: string, args: Record<string, unknown>, code: string, ref: string, what: string) => {
      const e = await refused(name, args);
      expect(e.data.code, `${what}: ${JSON.stringify(e.data)}`).toBe(code);
      expectValid(e.data, ref, `MCP ${what}`);
      return e.data;
    };
    // 1. No api_version (the argument check names it); 2. an unsupported one.
    const noVersion = await mcpRefusal(
      "create_checkout_session",
      { meta: {}, payload: createPayload() },
      "invalid_body",
      CHECKOUT_ERROR,
      "no version",
    );
    expect(noVersion.param).toBe("$.meta.api_version");
    const old = await mcpRefusal(
      "create_checkout_session",
      { meta: meta({ api_version: "2025-09-29" }), payload: createPayload() },
      "unsupported_api_version",
      CHECKOUT_ERROR,
      "old version",
    );
    expect(old).toMatchObject({ param: "$.meta.api_version", supported_versions: [VERSION] });
    // 3. No meta at all; 4. an argument the tool does not take.
    await mcpRefusal("get_checkout_session", { id: "acs_000000000000000000000000" }, "invalid_body", CHECKOUT_ERROR, "no meta");
    const extra = await mcpRefusal(
      "create_checkout_session",
      { meta: meta(), payload: createPayload(), surprise: true },
      "invalid_body",
      CHECKOUT_ERROR,
      "unknown argument",
    );
    expect(extra.param).toBe("$.surprise");
    const inPayload = await mcpRefusal(
      "create_checkout_session",
      { meta: meta(), payload: createPayload({ surprise: true }) },
      "invalid_body",
      CHECKOUT_ERROR,
      "unknown payload field",
    );
    expect(inPayload.param).toBe("$.payload.surprise");
    // 5. An unknown product: the handler's field, under $.payload.
    const item = await mcpRefusal(
      "create_checkout_session",
      { meta: meta(), payload: createPayload({ line_items: [{ id: "no-such-product" }] }) },
      "invalid_item_id",
      CHECKOUT_ERROR,
      "unknown item",
    );
    expect(item.param).toBe("$.payload.line_items[0].id");
    // 6. An unknown session.
    await mcpRefusal(
      "get_checkout_session",
      { meta: { api_version: VERSION }, id: "acs_000000000000000000000000" },
      "checkout_session_not_found",
      CHECKOUT_ERROR,
      "unknown session",
    );

    const created = await ok("create_checkout_session", { meta: meta(), payload: createPayload() });
    expectValid(created, "checkout#/$defs/CheckoutSession", "MCP create");
    const id = created.id as string;
    // 7. The same idempotency key with other arguments.
    const key = randomUUID();
    const first = await ok("update_checkout_session", {
      meta: { api_version: VERSION, idempotency_key: key },
      id,
      payload: { buyer: { email: `mcp-${randomUUID()}@e2e.example.com` } },
    });
    expectValid(first, "checkout#/$defs/CheckoutSession", "MCP update");
    await mcpRefusal(
      "update_checkout_session",
      { meta: { api_version: VERSION, idempotency_key: key }, id, payload: { order_notes: "other" } },
      "idempotency_conflict",
      CHECKOUT_ERROR,
      "key conflict",
    );
    const total = first.totals.find((t: { type: string }) => t.type === "total").amount as number;

    // delegate_payment over MCP: the same six codes; its idempotency key stays required (the binding does not cover it).
    // 8. Not a test card; 9. an allowance expired; 10. no such session; 11. blocked; 12. no key.
    const notTest = await mcpRefusal(
      "delegate_payment",
      { meta: meta(), payload: delegateBody(id, total, "usd", "4111111111111111") },
      "invalid_card",
      DELEGATE_ERROR,
      "not a test card",
    );
    expect(notTest.param).toBe("$.payload.payment_method.number");
    const expired = delegateBody(id, total);
    expired.allowance.expires_at = new Date(Date.now() - 60_000).toISOString();
    const allowance = await mcpRefusal("delegate_payment", { meta: meta(), payload: expired }, "invalid_card", DELEGATE_ERROR, "expired allowance");
    expect(allowance.param).toBe("$.payload.allowance.expires_at");
    const none = await mcpRefusal(
      "delegate_payment",
      { meta: meta(), payload: delegateBody("acs_000000000000000000000000", total) },
      "invalid_card",
      DELEGATE_ERROR,
      "no session",
    );
    expect(none.message).toContain("(checkout_session_not_found)");
    const risky = delegateBody(id, total);
    risky.risk_signals = [{ type: "card_testing", score: 99, action: "blocked" }];
    await mcpRefusal("delegate_payment", { meta: meta(), payload: risky }, "invalid_card", DELEGATE_ERROR, "blocked");
    await mcpRefusal(
      "delegate_payment",
      { meta: { api_version: VERSION }, payload: delegateBody(id, total) },
      "idempotency_key_required",
      DELEGATE_ERROR,
      "delegate no key",
    );
    // 13. A token that does not exist.
    await mcpRefusal(
      "complete_checkout_session",
      { meta: meta(), id, payload: { payment_data: card("vt_doesnotexist000000000000") } },
      "payment_token_invalid",
      CHECKOUT_ERROR,
      "bad token",
    );

    const token = await ok("delegate_payment", { meta: meta(), payload: delegateBody(id, total) });
    expectValid(token, "delegate#/$defs/DelegatePaymentResponse", "MCP delegate_payment");
    // complete without an idempotency key (the binding allows it): a session completes once, so a retry is refused.
    const done = await ok("complete_checkout_session", { meta: { api_version: VERSION }, id, payload: { payment_data: card(token.id) } });
    expectValid(done, "checkout#/$defs/CheckoutSessionWithOrder", "MCP complete");
    const got = await ok("get_checkout_session", { meta: { api_version: VERSION }, id });
    expectValid(got, "checkout#/$defs/CheckoutSessionWithOrder", "MCP get");
    // 14. Completed: a retry without a key does not charge again; cancel is refused.
    await mcpRefusal(
      "complete_checkout_session",
      { meta: { api_version: VERSION }, id, payload: { payment_data: card(token.id) } },
      "checkout_session_completed",
      CHECKOUT_ERROR,
      "complete twice",
    );
    await mcpRefusal(
      "cancel_checkout_session",
      { meta: { api_version: VERSION }, id },
      "checkout_session_not_cancelable",
      CHECKOUT_ERROR,
      "cancel completed",
    );
    expect(checked.length - start).toBeGreaterThanOrEqual(20);
  });
});
