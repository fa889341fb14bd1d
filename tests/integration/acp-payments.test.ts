import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as delegateRoute } from "@/app/api/acp/agentic_commerce/delegate_payment/route";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { preparePayment, type PaymentRequest } from "@/lib/acp/payment";
import { newPlatformKey } from "@/lib/acp/platforms";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { AppError } from "@/lib/http/errors";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { call, type Reply } from "../helpers/http";

// Issue 14: the built-in test vault (ACP delegate_payment) and the payment step of complete (preparePayment) for test
// mode. Every response is checked against the official JSON Schema (vendored from the ACP 2026-04-17 release).

const schema = JSON.parse(readFileSync(new URL("../fixtures/acp-2026-04-17/schema.delegate_payment.json", import.meta.url), "utf8")) as object;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(schema, "dp");
const validResponse = ajv.getSchema("dp#/$defs/DelegatePaymentResponse")!;
const validError = ajv.getSchema("dp#/$defs/Error")!;
const validRequest = ajv.getSchema("dp#/$defs/DelegatePaymentRequest")!;

const run = `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
const saved = { ...process.env };
let productId = "";
const platforms: Record<"a" | "b", { id: string; key: string }> = { a: { id: "", key: "" }, b: { id: "", key: "" } };

async function newPlatform(name: string) {
  const k = newPlatformKey();
  const id = `ap_${name}_${run}`;
  await getDb().agentPlatform.create({ data: { id, name: `${name} ${run}`, keyHash: k.keyHash, keyPrefix: k.keyPrefix, webhookSecret: "whsec_x" } });
  return { id, key: k.key };
}

let sessionSeq = 0;
async function newSession(over: { platformId?: string | null; currency?: string; status?: string; expiresAt?: Date } = {}) {
  const id = `acs_${run}_${++sessionSeq}`;
  await getDb().acpCheckoutSession.create({
    data: {
      id,
      platformId: over.platformId === undefined ? null : over.platformId,
      status: over.status ?? "ready_for_payment",
      productId,
      quantity: 1,
      currency: over.currency ?? "usd",
      expiresAt: over.expiresAt ?? new Date(Date.now() + 3_600_000),
    },
  });
  return id;
}

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

function body(sessionId: string, over: { card?: Record<string, unknown>; allowance?: Record<string, unknown>; top?: Record<string, unknown> } = {}) {
  return {
    payment_method: {
      type: "card",
      card_number_type: "fpan",
      virtual: false,
      number: "4242424242424242",
      exp_month: "11",
      exp_year: String(new Date().getUTCFullYear() + 2),
      name: "Jane Doe",
      cvc: "223",
      checks_performed: ["avs", "cvv"],
      iin: "424242",
      display_card_funding_type: "credit",
      display_brand: "visa",
      display_last4: "4242",
      metadata: { issuing_bank: "temp" },
      ...over.card,
    },
    allowance: {
      reason: "one_time",
      max_amount: 5000,
      currency: "usd",
      checkout_session_id: sessionId,
      merchant_id: "indie-license-market",
      expires_at: inAnHour(),
      ...over.allowance,
    },
    billing_address: { name: "Jane Doe", line_one: "1 Main St", city: "Springfield", state: "IL", country: "US", postal_code: "62701" },
    risk_signals: [{ type: "card_testing", score: 5, action: "authorized" }],
    metadata: { campaign: "q4" },
    ...over.top,
  };
}

function delegate(json: unknown, opts: { key?: string | null; version?: string | null; platformKey?: string; client?: string } = {}) {
  const headers: Record<string, string> = { [CLIENT_ADDRESS_HEADER]: opts.client ?? "198.51.100.40" };
  if (opts.key !== null) headers["idempotency-key"] = opts.key ?? randomUUID();
  if (opts.version !== null) headers["api-version"] = opts.version ?? "2026-04-17";
  if (opts.platformKey) headers.authorization = `Bearer ${opts.platformKey}`;
  return call(delegateRoute, "/api/acp/agentic_commerce/delegate_payment", { method: "POST", json, headers });
}

/**
 * An ACP Error object valid against the delegate payment schema, for the refusal we document as `code`: that code
 * when the schema's closed enum has it; otherwise the closest official one (invalid_card for a request to fix,
 * too_many_requests for a 429 or a failure on our side) with ours at the end of the message (README, ACP section).
 */
function expectAcpError(r: Reply, status: number, code: string, param?: string) {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get("content-type")).toMatch(/^application\/json/);
  const official = SPEC_CODES.has(code) ? code : status === 429 || status >= 500 ? "too_many_requests" : "invalid_card";
  expect(r.body).toMatchObject({ code: official, message: expect.any(String), type: status >= 500 ? expect.any(String) : "invalid_request" });
  if (official !== code) expect(r.body.message).toMatch(new RegExp(`\\(${code}\\)$`));
  if (param !== undefined) expect(r.body.param).toBe(param);
  expect(validError(r.body), JSON.stringify(validError.errors)).toBe(true);
  expect(r.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
}
const SPEC_CODES = new Set([
  "invalid_card",
  "duplicate_request",
  "idempotency_conflict",
  "too_many_requests",
  "idempotency_key_required",
  "idempotency_in_flight",
]);
function expectSchemaError(r: Reply) {
  expect(SPEC_CODES.has(r.body.code)).toBe(true);
  expect(validError(r.body), JSON.stringify(validError.errors)).toBe(true);
}

async function vault(sessionId: string, opts: { platformKey?: string; card?: Record<string, unknown>; allowance?: Record<string, unknown> } = {}) {
  const r = await delegate(body(sessionId, opts), { platformKey: opts.platformKey });
  expect(r.status, r.text).toBe(201);
  return r.body.id as string;
}

beforeAll(async () => {
  productId = (await getDb().product.findFirstOrThrow({ where: { status: "active" }, orderBy: { id: "asc" } })).id;
  platforms.a = await newPlatform("alpha");
  platforms.b = await newPlatform("beta");
  process.env.ACP_ANONYMOUS = "on";
  resetEnv();
});
afterAll(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) Reflect.deleteProperty(process.env, k);
  Object.assign(process.env, saved);
  resetEnv();
  await disconnectDb();
});

describe("POST /api/acp/agentic_commerce/delegate_payment (test vault)", () => {
  it("the spec's example request is valid against the official schema (our fixture is the protocol's)", () => {
    expect(validRequest(body("csn_example")), JSON.stringify(validRequest.errors)).toBe(true);
  });

  it("vaults a test card: 201 with a vt_ token, created and the metadata echoed, valid against the schema; never the number", async () => {
    const sessionId = await newSession();
    const key = randomUUID();
    const r = await delegate(body(sessionId), { key });
    expect(r.status, r.text).toBe(201);
    expect(validResponse(r.body), JSON.stringify(validResponse.errors)).toBe(true);
    expect(r.body.id).toMatch(/^vt_[A-Za-z0-9]{24}$/);
    expect(r.body.metadata).toEqual({ campaign: "q4", merchant_id: "indie-license-market", idempotency_key: key });
    expect(Math.abs(Date.parse(r.body.created) - Date.now())).toBeLessThan(60_000);
    const row = await getDb().delegatedPayment.findUniqueOrThrow({ where: { id: r.body.id } });
    expect(row).toMatchObject({ platformId: null, checkoutSessionId: sessionId, maxAmountCents: 5000, currency: "usd", usedAt: null });
    expect(row.card).toMatchObject({ brand: "visa", last4: "4242", funding: "credit", outcome: "succeeds" });
    // What was stored of the card and the request, without the ids and dates (random digits that may contain "223").
    const stored = JSON.stringify({ card: row.card, metadata: row.metadata, amount: row.maxAmountCents, currency: row.currency });
    expect(JSON.stringify(row)).not.toContain("4242424242424242");
    expect(stored).not.toContain("223");
  });

  it("a retry with the same Idempotency-Key replays the first token; another body under the key is 422 idempotency_conflict", async () => {
    const sessionId = await newSession();
    const key = randomUUID();
    const b = body(sessionId);
    const first = await delegate(b, { key });
    expect(first.status).toBe(201);
    // The same body (another key order is the same request).
    const again = await delegate(Object.fromEntries(Object.entries(b).reverse()), { key });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await getDb().delegatedPayment.count({ where: { checkoutSessionId: sessionId } })).toBe(1);
    const other = await delegate(body(sessionId, { allowance: { max_amount: 6000 } }), { key });
    expectAcpError(other, 422, "idempotency_conflict");
    expectSchemaError(other);
    expect(await getDb().delegatedPayment.count({ where: { checkoutSessionId: sessionId } })).toBe(1);
  });

  it("requires Idempotency-Key (400 idempotency_key_required) and API-Version (400, missing or unsupported)", async () => {
    const sessionId = await newSession();
    const noKey = await delegate(body(sessionId), { key: null });
    expectAcpError(noKey, 400, "idempotency_key_required");
    expectSchemaError(noKey);
    expectAcpError(await delegate(body(sessionId), { version: null }), 400, "api_version_required");
    const old = await delegate(body(sessionId), { version: "2025-09-29" });
    expectAcpError(old, 400, "unsupported_api_version");
    expect(old.body.message).toContain("2026-04-17");
    expect(await getDb().delegatedPayment.count({ where: { checkoutSessionId: sessionId } })).toBe(0);
  });

  it("refuses card numbers that fail Luhn or are not documented test cards, expired cards and mismatched display digits: 422 invalid_card", async () => {
    const sessionId = await newSession();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ number: "4242424242424241" }, "$.payment_method.number"],
      [{ number: "4111111111111111" }, "$.payment_method.number"], // a valid number, but not one of ours
      [{ number: "4242 4242 4242 424x" }, "$.payment_method.number"],
      [{ exp_month: "13" }, "$.payment_method.exp_month"],
      [{ exp_month: "01", exp_year: "2020" }, "$.payment_method.exp_year"],
      [{ exp_year: "26" }, "$.payment_method.exp_year"],
      [{ display_last4: "1111" }, "$.payment_method.display_last4"],
      [{ iin: "555555" }, "$.payment_method.iin"],
      [{ cvc: "12a" }, "$.payment_method.cvc"],
    ];
    for (const [card, param] of cases) {
      const r = await delegate(body(sessionId, { card }));
      expectAcpError(r, 422, "invalid_card", param);
      expectSchemaError(r);
    }
    expect(await getDb().delegatedPayment.count({ where: { checkoutSessionId: sessionId } })).toBe(0);
  });

  it("refuses malformed bodies with 400 and the offending field (unknown fields, missing risk signals, another reason)", async () => {
    const sessionId = await newSession();
    const b = body(sessionId);
    expectAcpError(await delegate({ ...b, extra: 1 }), 400, "invalid_body");
    expectAcpError(await delegate({ ...b, risk_signals: [] }), 400, "invalid_body", "$.risk_signals");
    expectAcpError(await delegate(body(sessionId, { allowance: { reason: "recurring" } })), 400, "invalid_body", "$.allowance.reason");
    expectAcpError(await delegate(body(sessionId, { allowance: { currency: "USD" } })), 400, "invalid_body", "$.allowance.currency");
    // A malformed card is the spec's invalid_card, still 400 and naming the field.
    expectAcpError(await delegate(body(sessionId, { card: { type: "bank" } })), 400, "invalid_card", "$.payment_method.type");
    expectAcpError(await delegate(body(sessionId, { card: { number: "4242\u00004242" } })), 400, "invalid_card", "$.payment_method.number");
    expect(await getDb().delegatedPayment.count({ where: { checkoutSessionId: sessionId } })).toBe(0);
  });

  it("the allowance must name an open session of the caller in its currency, expiring within 24 hours", async () => {
    const mine = await newSession({ platformId: platforms.a.id });
    const anonymous = await newSession();
    const canceled = await newSession({ status: "canceled" });
    const completed = await newSession({ status: "completed" });
    const expired = await newSession({ expiresAt: new Date(Date.now() - 1000) });
    const eur = await newSession({ currency: "eur" });
    const as = (platformKey?: string) => ({ platformKey });
    const r = (id: string, allowance: Record<string, unknown> = {}, platformKey?: string) => delegate(body(id, { allowance }), as(platformKey));
    expectAcpError(await r("acs_no_such_session"), 404, "checkout_session_not_found", "$.allowance.checkout_session_id");
    // Another platform's session, and a platform's session for an anonymous agent, are not found; and the reverse.
    expectAcpError(await r(mine, {}, platforms.b.key), 404, "checkout_session_not_found");
    expectAcpError(await r(mine), 404, "checkout_session_not_found");
    expectAcpError(await r(anonymous, {}, platforms.a.key), 404, "checkout_session_not_found");
    expectAcpError(await r(canceled), 409, "checkout_session_not_open");
    expectAcpError(await r(completed), 409, "checkout_session_not_open");
    expectAcpError(await r(expired), 409, "checkout_session_not_open");
    expectAcpError(await r(eur), 422, "invalid_allowance", "$.allowance.currency");
    expectAcpError(await r(anonymous, { expires_at: new Date(Date.now() - 1000).toISOString() }), 422, "invalid_allowance", "$.allowance.expires_at");
    expectAcpError(
      await r(anonymous, { expires_at: new Date(Date.now() + 25 * 3_600_000).toISOString() }),
      422,
      "invalid_allowance",
      "$.allowance.expires_at",
    );
    const blocked = await delegate(body(anonymous, { top: { risk_signals: [{ type: "card_testing", score: 99, action: "blocked" }] } }));
    expectAcpError(blocked, 422, "payment_blocked");
    // The right caller gets its token.
    expect((await r(mine, {}, platforms.a.key)).status).toBe(201);
    expect((await r(eur, { currency: "eur" })).status).toBe(201);
  });

  it("an unknown platform key is 401; without a key, 401 when anonymous agents are off", async () => {
    const sessionId = await newSession();
    expectAcpError(await delegate(body(sessionId), { platformKey: `acpk_${"x".repeat(43)}` }), 401, "unauthorized");
    process.env.ACP_ANONYMOUS = "off";
    resetEnv();
    try {
      expectAcpError(await delegate(body(sessionId)), 401, "unauthorized");
    } finally {
      process.env.ACP_ANONYMOUS = "on";
      resetEnv();
    }
  });

  it("is off when Stripe takes the payments: 400 test_vault_unavailable points at Shared Payment Tokens", async () => {
    const sessionId = await newSession();
    process.env.STRIPE_SECRET_KEY = "sk_test_vault_off";
    resetEnv();
    try {
      const r = await delegate(body(sessionId));
      expectAcpError(r, 400, "test_vault_unavailable");
      expect(r.body.message).toMatch(/Shared Payment Token/);
    } finally {
      Reflect.deleteProperty(process.env, "STRIPE_SECRET_KEY");
      resetEnv();
    }
    expect(await getDb().delegatedPayment.count({ where: { checkoutSessionId: sessionId } })).toBe(0);
  });
});

describe("the delegate_payment MCP tool", () => {
  let rpc = 0;
  async function tool(args: unknown) {
    const request = new Request("http://localhost:3000/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", [CLIENT_ADDRESS_HEADER]: "198.51.100.41" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++rpc, method: "tools/call", params: { name: "delegate_payment", arguments: args } }),
    });
    const text = await (await mcpPost(request)).text();
    const json = /^\s*[[{]/.test(text)
      ? JSON.parse(text)
      : JSON.parse(
          text
            .split("\n")
            .find((l) => l.startsWith("data:"))!
            .slice(5),
        );
    // A refusal is the JSON-RPC error (code -32000, ACP's Error as data), as the ACP MCP binding has it.
    return (json.result ?? { content: [], error: json.error }) as {
      isError?: boolean;
      structuredContent?: any;
      content: Array<{ text: string }>;
      error?: { code: number; data: any };
    };
  }

  it("vaults with {meta, payload} as the ACP MCP binding has it; the idempotency key in meta replays", async () => {
    const sessionId = await newSession();
    const meta = { api_version: "2026-04-17", idempotency_key: randomUUID(), request_id: "req_1" };
    const payload = body(sessionId);
    const first = await tool({ meta, payload });
    expect(first.isError ?? false, JSON.stringify(first)).toBe(false);
    expect(validResponse(first.structuredContent), JSON.stringify(validResponse.errors)).toBe(true);
    expect(first.structuredContent.id).toMatch(/^vt_/);
    // A retry (another request id) replays the same token.
    const again = await tool({ meta: { ...meta, request_id: "req_2" }, payload });
    expect(again.structuredContent?.id).toBe(first.structuredContent.id);
    expect(await getDb().delegatedPayment.count({ where: { checkoutSessionId: sessionId } })).toBe(1);
  });

  it("refuses a wrong meta.api_version and a bad card with the same codes as REST", async () => {
    const sessionId = await newSession();
    const v = await tool({ meta: { api_version: "2020-01-01", idempotency_key: randomUUID() }, payload: body(sessionId) });
    expect(v.error?.code).toBe(-32000);
    // Not one of the delegate payment Error codes: invalid_card, our code at the end of the message.
    expect(v.error?.data).toMatchObject({ type: "invalid_request", code: "invalid_card", param: "$.meta.api_version" });
    expect(v.error?.data.message).toContain("(unsupported_api_version)");
    expect(validError(v.error?.data), JSON.stringify(validError.errors)).toBe(true);
    const c = await tool({
      meta: { api_version: "2026-04-17", idempotency_key: randomUUID() },
      payload: body(sessionId, { card: { number: "4242424242424241" } }),
    });
    expect(c.error).toMatchObject({ code: -32000, data: { code: "invalid_card" } });
    expect(validError(c.error?.data), JSON.stringify(validError.errors)).toBe(true);
    const noKey = await tool({ meta: { api_version: "2026-04-17" }, payload: body(sessionId) });
    expect(noKey.error).toMatchObject({ code: -32000, data: { code: "idempotency_key_required" } });
    expect(await getDb().delegatedPayment.count({ where: { checkoutSessionId: sessionId } })).toBe(0);
  });
});

describe("preparePayment (test mode)", () => {
  const request = (sessionId: string, token: string, over: Partial<PaymentRequest> = {}): PaymentRequest => ({
    checkoutSessionId: sessionId,
    platformId: null,
    orderId: `cs_${run}_${randomBytes(4).toString("hex")}`,
    amountCents: 1500,
    currency: "usd",
    buyerEmail: "buyer@example.com",
    payment: { token, provider: "test" },
    destination: null,
    metadata: {},
    ...over,
  });
  async function refusal(p: Promise<unknown>): Promise<AppError> {
    const e = await p.then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  const commit = (prepared: Awaited<ReturnType<typeof preparePayment>>, orderId: string) =>
    getDb().$transaction(async (tx) => prepared.commit(tx, orderId));

  it("accepts the caller's unused token for its session within the allowance; commit spends it once", async () => {
    const sessionId = await newSession();
    const token = await vault(sessionId);
    const req = request(sessionId, token, { amountCents: 5000 });
    const prepared = await preparePayment(req);
    expect(prepared).toMatchObject({ provider: "test", providerPaymentId: `test_pay_${token}` });
    await commit(prepared, req.orderId);
    const row = await getDb().delegatedPayment.findUniqueOrThrow({ where: { id: token } });
    expect(row.usedAt).toBeInstanceOf(Date);
    expect(row.orderId).toBe(req.orderId);
    // Reused: refused before and at commit.
    const again = await refusal(preparePayment(request(sessionId, token)));
    expect([again.code, again.status]).toEqual(["payment_token_used", 409]);
    const late = await refusal(commit(prepared, "cs_other"));
    expect([late.code, late.status]).toEqual(["payment_token_used", 409]);
    expect((await getDb().delegatedPayment.findUniqueOrThrow({ where: { id: token } })).orderId).toBe(req.orderId);
  });

  it("refuses expired, over-allowance (amount or currency), foreign-session, foreign, unknown and declined tokens, changing nothing", async () => {
    const sessionId = await newSession();
    const other = await newSession();
    const token = await vault(sessionId);
    const platformSession = await newSession({ platformId: platforms.a.id });
    const platformToken = await vault(platformSession, { platformKey: platforms.a.key });
    const declined = await vault(sessionId, { card: { number: "4000000000000002", iin: "400000", display_last4: "0002" } });
    const expiring = await vault(sessionId);
    await getDb().delegatedPayment.update({ where: { id: expiring }, data: { expiresAt: new Date(Date.now() - 1000) } });

    const cases: Array<[PaymentRequest, string, number]> = [
      [request(sessionId, expiring), "payment_token_expired", 422],
      [request(sessionId, token, { amountCents: 5001 }), "payment_token_over_allowance", 422],
      [request(sessionId, token, { currency: "eur" }), "payment_token_over_allowance", 422],
      [request(other, token), "payment_token_wrong_session", 422],
      // Another platform's token (and a platform's token used anonymously) is as good as unknown.
      [request(platformSession, platformToken, { platformId: platforms.b.id }), "payment_token_invalid", 400],
      [request(platformSession, platformToken), "payment_token_invalid", 400],
      [request(sessionId, token, { platformId: platforms.a.id }), "payment_token_invalid", 400],
      [request(sessionId, "vt_000000000000000000000000"), "payment_token_invalid", 400],
      [request(sessionId, "tok_visa"), "payment_token_invalid", 400],
      [request(sessionId, declined), "payment_declined", 402],
      [request(sessionId, token, { payment: { token, provider: "stripe" } }), "payment_provider_mismatch", 400],
    ];
    for (const [req, code, status] of cases) {
      const e = await refusal(preparePayment(req));
      expect([e.code, e.status], `${req.payment.token} ${code}`).toEqual([code, status]);
    }
    const rows = await getDb().delegatedPayment.findMany({ where: { id: { in: [token, platformToken, declined, expiring] } } });
    expect(rows.every((r) => r.usedAt === null)).toBe(true);
    // Still good for what it was made for.
    expect((await preparePayment(request(sessionId, token))).provider).toBe("test");
    expect((await preparePayment(request(platformSession, platformToken, { platformId: platforms.a.id }))).provider).toBe("test");
  });

  it("racing completes with one token: both may prepare, exactly one commit wins", async () => {
    const sessionId = await newSession();
    const token = await vault(sessionId);
    const reqs = Array.from({ length: 5 }, () => request(sessionId, token));
    const prepared = await Promise.all(reqs.map((r) => preparePayment(r)));
    const results = await Promise.allSettled(prepared.map((p, i) => commit(p, reqs[i]!.orderId)));
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "payment_token_used", status: 409 });
    }
    const row = await getDb().delegatedPayment.findUniqueOrThrow({ where: { id: token } });
    expect(reqs.map((r) => r.orderId)).toContain(row.orderId);
  });
});
