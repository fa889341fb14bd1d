import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as discoveryRoute } from "@/app/.well-known/acp.json/route";
import { POST as delegateRoute } from "@/app/api/acp/agentic_commerce/delegate_payment/route";
import { POST as createRoute } from "@/app/api/acp/checkout_sessions/route";
import { GET as getRoute, POST as updateRoute } from "@/app/api/acp/checkout_sessions/[checkout_session_id]/route";
import { POST as completeRoute } from "@/app/api/acp/checkout_sessions/[checkout_session_id]/complete/route";
import { POST as cancelRoute } from "@/app/api/acp/checkout_sessions/[checkout_session_id]/cancel/route";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { POST as webCheckoutRoute } from "@/app/api/checkout/create/route";
import { newPlatformKey } from "@/lib/acp/platforms";
import { toolByName, toolParameters } from "@/lib/agents/tools";
import { createProduct } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { acpHeaders, delegateBody, expectAcpValid, testPaymentData } from "../helpers/acp";
import { call, type Reply } from "../helpers/http";
import { sellingDeveloper } from "../helpers/sellers";

// Issue 14: ACP checkout sessions (2026-04-17) over REST and MCP, in test mode. Every ACP body, success or error, is
// checked against the official JSON Schemas (tests/fixtures/acp-2026-04-17, byte-identical to the release).

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const saved = { ...process.env };
const fx = { perMachine: "", perSeat: "", eurProduct: "", coupon: "", devId: "", platformA: { id: "", key: "" }, platformB: { id: "", key: "" } };

type Opts = { key?: string | null; version?: string | null; platformKey?: string; requestId?: string };

function expectAcpError(r: Reply, status: number, code: string, param?: string) {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get("content-type")).toMatch(/^application\/json/);
  expect(r.body.code, r.text).toBe(code);
  if (param !== undefined) expect(r.body.param).toBe(param);
  expectAcpValid(r.body, "Error");
  expect(r.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
}

const base = "/api/acp/checkout_sessions";
const client = { [CLIENT_ADDRESS_HEADER]: "198.51.100.60" };
const create = (json: unknown, o: Opts = {}) => call(createRoute, base, { method: "POST", json, headers: { ...client, ...acpHeaders(o) } });
const get = (id: string, o: Opts = {}) =>
  call(getRoute, `${base}/${id}`, { headers: { ...client, ...acpHeaders({ ...o, key: null }) }, params: { checkout_session_id: id } });
const update = (id: string, json: unknown, o: Opts = {}) =>
  call(updateRoute, `${base}/${id}`, { method: "POST", json, headers: { ...client, ...acpHeaders(o) }, params: { checkout_session_id: id } });
const complete = (id: string, json: unknown, o: Opts = {}) =>
  call(completeRoute, `${base}/${id}/complete`, {
    method: "POST",
    json,
    headers: { ...client, ...acpHeaders(o) },
    params: { checkout_session_id: id },
  });
const cancel = (id: string, json: unknown = {}, o: Opts = {}) =>
  call(cancelRoute, `${base}/${id}/cancel`, { method: "POST", json, headers: { ...client, ...acpHeaders(o) }, params: { checkout_session_id: id } });

async function vault(sessionId: string, amount: number, o: { platformKey?: string; number?: string; currency?: string } = {}): Promise<string> {
  const r = await call(delegateRoute, "/api/acp/agentic_commerce/delegate_payment", {
    method: "POST",
    json: delegateBody(sessionId, amount, o.currency, o.number),
    headers: { ...client, ...acpHeaders({ platformKey: o.platformKey }) },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.id as string;
}

const email = (tag: string) => `acp-${tag}-${run}@example.com`;
const createBody = (productId: string, over: Record<string, unknown> = {}) => ({
  line_items: [{ id: productId }],
  currency: "usd",
  capabilities: { interventions: { supported: [] } },
  ...over,
});
const total = (s: { totals: Array<{ type: string; amount: number }> }) => s.totals.find((t) => t.type === "total")!.amount;

/** A ready session (buyer given) and a token for its total. */
async function readySession(tag: string, o: { platformKey?: string } = {}) {
  const r = await create(createBody(fx.perMachine, { buyer: { email: email(tag) } }), o);
  expect(r.status, r.text).toBe(201);
  expect(r.body.status).toBe("ready_for_payment");
  return r.body as { id: string; totals: Array<{ type: string; amount: number }> };
}

async function newPlatform(name: string) {
  const k = newPlatformKey();
  const id = `ap_${name}_${run}`;
  await getDb().agentPlatform.create({ data: { id, name: `${name} ${run}`, keyHash: k.keyHash, keyPrefix: k.keyPrefix, webhookSecret: "whsec_x" } });
  return { id, key: k.key };
}

beforeAll(async () => {
  process.env.ACP_ANONYMOUS = "on";
  process.env.PAYMENTS = "test";
  resetEnv();
  const dev = await sellingDeveloper(`acp-seller-${run}@example.com`, { name: `ACP Studio ${run}`, website: null, bio: "" });
  fx.devId = dev.id;
  const product = (n: string, seatModel: string, currency: string) =>
    createProduct(
      dev.id,
      productInputSchema.parse({
        name: `ACP ${n} ${run}`,
        description: "A product sold to agents over ACP in these tests.",
        plugin_id: `com.acp.${n}${run}`,
        price_cents: 2000,
        currency,
        category: "dev-tools",
        max_machines: 2,
        seat_model: seatModel,
        platforms: ["linux"],
        download_url: "https://example.com/download",
        icon_url: "/icons/tape-warmth.svg",
      }),
      { publish: true },
    );
  fx.perMachine = (await product("solo", "per-machine", "usd")).id;
  fx.perSeat = (await product("team", "per-seat", "usd")).id;
  fx.eurProduct = (await product("euro", "per-machine", "eur")).id;
  fx.coupon = `ACP${run}`.slice(0, 20).toUpperCase();
  await getDb().coupon.create({ data: { developerId: dev.id, code: fx.coupon, kind: "percent", percentOff: 25, productIds: [] } });
  fx.platformA = await newPlatform("alpha");
  await getDb().agentPlatform.update({ where: { id: fx.platformA.id }, data: { webhookUrl: "https://hooks.example.com/acp" } });
  fx.platformB = await newPlatform("beta");
});

afterAll(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) Reflect.deleteProperty(process.env, k);
  Object.assign(process.env, saved);
  resetEnv();
  await disconnectDb();
});

describe("the vendored ACP JSON Schemas", () => {
  const official = process.env.ACP_SPEC_DIR ?? "/work/shared/reference/acp-2026-04-17";
  const present = existsSync(join(official, "spec/2026-04-17/json-schema"));
  it.skipIf(!present)(`are byte-identical to the official release (skipped: no ACP spec at ${official}; set ACP_SPEC_DIR)`, () => {
    const dir = join(official, "spec/2026-04-17/json-schema");
    const vendored = new URL("../fixtures/acp-2026-04-17/", import.meta.url);
    for (const name of readdirSync(dir)) expect(readFileSync(new URL(name, vendored)).equals(readFileSync(join(dir, name))), name).toBe(true);
    for (const name of ["LICENSE", "NOTICE"])
      expect(readFileSync(new URL(name, vendored)).equals(readFileSync(join(official, name))), name).toBe(true);
  });
});

describe("GET /.well-known/acp.json", () => {
  it("is the ACP discovery document: version, REST base URL, rest and mcp, services, currencies; public and cached an hour", async () => {
    const r = await call(discoveryRoute, "/.well-known/acp.json");
    expect(r.status, r.text).toBe(200);
    expectAcpValid(r.body, "DiscoveryResponse");
    expect(r.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(r.body).toMatchObject({
      protocol: { name: "acp", version: "2026-04-17", supported_versions: ["2026-04-17"] },
      api_base_url: "http://localhost:3000/api/acp",
      transports: ["rest", "mcp"],
      capabilities: { services: ["checkout", "orders", "delegate_payment"], supported_currencies: ["usd", "eur", "gbp"] },
    });
  });
});

describe("ACP checkout sessions over REST (test mode)", () => {
  it("create without a buyer: 201, not_ready_for_payment with a message naming $.buyer.email; totals without the fee or tax; Request-Id echoed", async () => {
    const requestId = `req-${run}`;
    const key = randomUUID();
    const r = await create(createBody(fx.perMachine), { requestId, key });
    expect(r.status, r.text).toBe(201);
    expectAcpValid(r.body, "CheckoutSession");
    expect(r.headers.get("request-id")).toBe(requestId);
    expect(r.headers.get("idempotency-key")).toBe(key);
    // Echoed on errors too, also those refused before the handler runs (no Idempotency-Key).
    const refused = await create(createBody(fx.perMachine), { requestId, key: null });
    expectAcpError(refused, 400, "idempotency_key_required");
    expect(refused.headers.get("request-id")).toBe(requestId);
    expect(r.body.id).toMatch(/^acs_[A-Za-z0-9]{24}$/);
    expect(r.body.status).toBe("not_ready_for_payment");
    expect(r.body.currency).toBe("usd");
    expect(r.body.protocol).toEqual({ version: "2026-04-17" });
    expect(r.body.line_items).toHaveLength(1);
    expect(r.body.line_items[0]).toMatchObject({ item: { id: fx.perMachine }, quantity: 1, unit_amount: 2000 });
    expect(Object.fromEntries(r.body.totals.map((t: { type: string; amount: number }) => [t.type, t.amount]))).toEqual({
      items_base_amount: 2000,
      discount: 0,
      subtotal: 2000,
      tax: 0,
      total: 2000,
    });
    expect(r.body.fulfillment_options).toEqual([expect.objectContaining({ type: "digital" })]);
    expect(r.body.capabilities.payment.handlers.map((h: { id: string }) => h.id)).toEqual(["test_card"]);
    const missing = r.body.messages.find((m: { type: string }) => m.type === "error");
    expect(missing).toMatchObject({ code: "missing", param: "$.buyer.email" });
    const info = r.body.messages.find((m: { type: string }) => m.type === "info");
    expect(info.content).toMatch(/5 % platform fee .* paid by the seller/);
    expect(info.content).toMatch(/Tax is not calculated/);
    const row = await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: r.body.id } });
    expect(row).toMatchObject({ platformId: null, status: "not_ready_for_payment", productId: fx.perMachine, quantity: 1, currency: "usd" });
  });

  it("the whole journey: update with the buyer → ready; delegate a token; complete → completed with the order carrying the key", async () => {
    const created = await create(createBody(fx.perMachine));
    const id = created.body.id as string;
    const ready = await update(id, { buyer: { email: email("journey"), first_name: "Ada" } });
    expect(ready.status, ready.text).toBe(200);
    expectAcpValid(ready.body, "CheckoutSession");
    expect(ready.body.status).toBe("ready_for_payment");
    expect(ready.body.buyer).toEqual({ email: email("journey"), first_name: "Ada" });
    expect(ready.body.messages.filter((m: { type: string }) => m.type === "error")).toEqual([]);

    const token = await vault(id, total(ready.body));
    const done = await complete(id, { payment_data: testPaymentData(token) });
    expect(done.status, done.text).toBe(200);
    expectAcpValid(done.body, "CheckoutSessionWithOrder");
    expect(done.body.status).toBe("completed");
    const order = done.body.order;
    expectAcpValid(order, "Order");
    expect(order.checkout_session_id).toBe(id);
    const delivery = order.fulfillments[0].digital_delivery;
    const license = await getDb().license.findFirstOrThrow({ where: { order: { id: order.id } } });
    expect(delivery.license_key).toBe(license.key);
    expect(delivery.receipt_url).toBe(`http://localhost:3000/api/receipt?key=${license.key}`);
    expect(delivery.credential_url).toBe(`http://localhost:3000/api/receipt/credential?key=${license.key}`);
    expect(delivery.activation_instructions).toMatch(/POST http:\/\/localhost:3000\/activate/);
    expect(order.status).toBe("completed");

    const row = await getDb().order.findUniqueOrThrow({ where: { id: order.id } });
    expect(row).toMatchObject({
      status: "paid",
      provider: "test",
      amountCents: 2000,
      feeCents: 100,
      buyerEmail: email("journey"),
      agentId: "acp:anonymous",
    });
    expect(row.providerPaymentId).toMatch(/^test_pay_/);
    expect(await getDb().emailMessage.count({ where: { dedupeKey: `license:${order.id}` } })).toBe(1);
    const session = await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id } });
    expect(session).toMatchObject({ status: "completed", orderId: order.id });
    // An anonymous agent has no webhook to tell.
    expect(await getDb().webhookDelivery.count({ where: { dedupeKey: { startsWith: `acp:${order.id}:` } } })).toBe(0);

    const again = await get(id);
    expect(again.status).toBe(200);
    expectAcpValid(again.body, "CheckoutSessionWithOrder");
    expect(again.body.order.fulfillments[0].digital_delivery.license_key).toBe(license.key);
    expect(again.body.capabilities.payment.handlers).toEqual([]);
  });

  it("a retried complete with the same Idempotency-Key replays the answer; the key with another body is 422 idempotency_conflict", async () => {
    const s = await readySession("replay");
    const token = await vault(s.id, total(s));
    const key = randomUUID();
    const first = await complete(s.id, { payment_data: testPaymentData(token) }, { key });
    expect(first.status, first.text).toBe(200);
    const replay = await complete(s.id, { payment_data: testPaymentData(token) }, { key });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.order.id).toBe(first.body.order.id);
    const conflict = await complete(s.id, { payment_data: testPaymentData("vt_000000000000000000000000") }, { key });
    expectAcpError(conflict, 422, "idempotency_conflict");
    expect(await getDb().order.count({ where: { buyerEmail: email("replay") } })).toBe(1);
  });

  it("refuses a missing or unsupported API-Version and a POST without Idempotency-Key, changing nothing", async () => {
    const before = await getDb().acpCheckoutSession.count();
    const missing = await create(createBody(fx.perMachine), { version: null });
    expectAcpError(missing, 400, "api_version_required");
    const old = await create(createBody(fx.perMachine), { version: "2025-09-29" });
    expectAcpError(old, 400, "unsupported_api_version");
    expect(old.body.message).toContain("2026-04-17");
    expectAcpError(await create(createBody(fx.perMachine), { key: null }), 400, "idempotency_key_required");
    expect(await getDb().acpCheckoutSession.count()).toBe(before);
    const s = await readySession("version");
    expectAcpError(await get(s.id, { version: "1999-01-01" }), 400, "unsupported_api_version");
    expectAcpError(await update(s.id, { buyer: { email: email("other") } }, { version: null }), 400, "api_version_required");
    expect((await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: s.id } })).buyer).toEqual({ email: email("version") });
  });

  it("refuses bad bodies with the field to blame: two products, an unknown product, another currency, seats on a per-machine product", async () => {
    const two = await create(createBody(fx.perMachine, { line_items: [{ id: fx.perMachine }, { id: fx.perSeat }] }));
    expectAcpError(two, 400, "multiple_items_not_supported", "$.line_items");
    expectAcpError(await create(createBody("no-such-product")), 400, "invalid_item_id", "$.line_items[0].id");
    expectAcpError(await create(createBody(fx.eurProduct)), 400, "currency_mismatch", "$.currency");
    expectAcpError(await create(createBody(fx.perMachine, { line_items: [{ id: fx.perMachine, quantity: 2 }] })), 400, "quantity_not_allowed");
    expectAcpError(await create({ line_items: [], currency: "usd" }), 400, "invalid_body");
    expectAcpError(await create(createBody(fx.perMachine, { buyer: { email: "not an email" } })), 400, "invalid_body", "$.buyer.email");
    expectAcpError(await create(createBody(fx.perMachine, { surprise: true })), 400, "invalid_body");
  });

  it("sells seats of a per-seat product: repeated ids and quantities add up; the order's license has max_machines × seats", async () => {
    const r = await create(
      createBody(fx.perSeat, { line_items: [{ id: fx.perSeat, quantity: 2 }, { id: fx.perSeat }], buyer: { email: email("seats") } }),
    );
    expect(r.status, r.text).toBe(201);
    expectAcpValid(r.body, "CheckoutSession");
    expect(r.body.line_items[0].quantity).toBe(3);
    expect(total(r.body)).toBe(6000);
    const token = await vault(r.body.id, 6000);
    const done = await complete(r.body.id, { payment_data: testPaymentData(token) });
    expect(done.status, done.text).toBe(200);
    expect(done.body.order.line_items[0].quantity).toMatchObject({ ordered: 3, current: 3, fulfilled: 3 });
    const license = await getDb().license.findFirstOrThrow({ where: { order: { id: done.body.order.id } } });
    expect(license.maxMachines).toBe(6);
  });

  it("applies a seller coupon from discounts.codes and rejects the others with the extension's reasons", async () => {
    const r = await create(
      createBody(fx.perMachine, { discounts: { codes: ["NOPE-NOT-A-CODE", fx.coupon.toLowerCase(), "ANOTHER"] }, buyer: { email: email("coupon") } }),
    );
    expect(r.status, r.text).toBe(201);
    expectAcpValid(r.body, "CheckoutSession");
    expect(r.body.discounts.applied).toEqual([expect.objectContaining({ code: fx.coupon, amount: 500 })]);
    expect(r.body.discounts.rejected).toEqual([
      expect.objectContaining({ code: "NOPE-NOT-A-CODE", reason: "discount_code_invalid" }),
      expect.objectContaining({ code: "ANOTHER", reason: "discount_code_combination_disallowed" }),
    ]);
    expect(
      r.body.messages.filter((m: { type: string }) => m.type === "warning").map((m: { code: string; param: string }) => [m.code, m.param]),
    ).toEqual([
      ["discount_code_invalid", "$.discounts.codes[0]"],
      ["discount_code_combination_disallowed", "$.discounts.codes[2]"],
    ]);
    expect(total(r.body)).toBe(1500);
    const token = await vault(r.body.id, 1500);
    const done = await complete(r.body.id, { payment_data: testPaymentData(token) });
    expect(done.status, done.text).toBe(200);
    const order = await getDb().order.findUniqueOrThrow({ where: { id: done.body.order.id } });
    expect(order).toMatchObject({ couponCode: fx.coupon, discountCents: 500, amountCents: 1500, feeCents: 75 });
    // Changing the codes: an empty list removes the discount.
    const s2 = await create(createBody(fx.perMachine, { discounts: { codes: [fx.coupon] } }));
    const cleared = await update(s2.body.id, { discounts: { codes: [] } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(total(cleared.body)).toBe(2000);
  });

  it("completing needs the buyer's e-mail (given before or with complete)", async () => {
    const s = await create(createBody(fx.perMachine));
    const token = await vault(s.body.id, 2000);
    expectAcpError(await complete(s.body.id, { payment_data: testPaymentData(token) }), 400, "buyer_email_required", "$.buyer.email");
    expect((await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: s.body.id } })).status).toBe("not_ready_for_payment");
    const done = await complete(s.body.id, { payment_data: testPaymentData(token), buyer: { email: email("late") } });
    expect(done.status, done.text).toBe(200);
    expect(done.body.buyer.email).toBe(email("late"));
  });

  it("cancel: canceled; then complete is 409 checkout_session_canceled, update 409, cancel again 405; nothing changes", async () => {
    const s = await readySession("cancel");
    const token = await vault(s.id, total(s));
    const c = await cancel(s.id, { intent_trace: { reason_code: "price_sensitivity", trace_summary: "Too dear." } });
    expect(c.status, c.text).toBe(200);
    expectAcpValid(c.body, "CheckoutSession");
    expect(c.body.status).toBe("canceled");
    expectAcpError(await complete(s.id, { payment_data: testPaymentData(token) }), 409, "checkout_session_canceled");
    expectAcpError(await update(s.id, { buyer: { email: email("x") } }), 409, "checkout_session_canceled");
    expectAcpError(await cancel(s.id), 405, "checkout_session_not_cancelable");
    const row = await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: s.id } });
    expect(row).toMatchObject({ status: "canceled", orderId: null, buyer: { email: email("cancel") } });
    expect(await getDb().order.count({ where: { buyerEmail: email("cancel") } })).toBe(0);
    expect((await getDb().delegatedPayment.findUniqueOrThrow({ where: { id: token } })).usedAt).toBeNull();
  });

  it("a completed session cannot be updated (409 checkout_session_completed), canceled (405) or completed again (409)", async () => {
    const s = await readySession("completed");
    const done = await complete(s.id, { payment_data: testPaymentData(await vault(s.id, total(s))) });
    expect(done.status).toBe(200);
    expectAcpError(await update(s.id, { buyer: { email: email("changed") } }), 409, "checkout_session_completed");
    expectAcpError(await cancel(s.id), 405, "checkout_session_not_cancelable");
    const second = await vault(s.id, total(s)).catch(() => null); // the vault refuses tokens for a completed session
    expect(second).toBeNull();
    expectAcpError(await complete(s.id, { payment_data: testPaymentData("vt_000000000000000000000000") }), 409, "checkout_session_completed");
    const row = await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: s.id } });
    expect(row.buyer).toEqual({ email: email("completed") });
    expect(await getDb().order.count({ where: { buyerEmail: email("completed") } })).toBe(1);
  });

  it("racing completes make exactly one order and one license; the others get 409 and change nothing", async () => {
    const s = await readySession("race");
    const tokens = await Promise.all(Array.from({ length: 6 }, () => vault(s.id, total(s))));
    const replies = await Promise.all(tokens.map((t) => complete(s.id, { payment_data: testPaymentData(t) })));
    const ok = replies.filter((r) => r.status === 200);
    expect(ok, replies.map((r) => r.text).join("\n")).toHaveLength(1);
    for (const r of replies.filter((x) => x.status !== 200)) {
      expect(r.status, r.text).toBe(409);
      expect(["checkout_session_in_progress", "checkout_session_completed"]).toContain(r.body.code);
      expectAcpValid(r.body, "Error");
    }
    const orders = await getDb().order.findMany({ where: { buyerEmail: email("race") } });
    expect(orders.map((o) => o.status)).toEqual(["paid"]);
    expect(await getDb().license.count({ where: { buyerEmail: email("race") } })).toBe(1);
    expect(await getDb().delegatedPayment.count({ where: { checkoutSessionId: s.id, usedAt: { not: null } } })).toBe(1);
    expect(ok[0]!.body.order.id).toBe(orders[0]!.id);
  });

  it("a completion abandoned mid-way (its process died) is taken over after two minutes, not stuck in_progress forever", async () => {
    const s = await readySession("abandoned");
    const token = await vault(s.id, total(s));
    // A claim that is still fresh is another request's: 409 and nothing changes.
    await getDb().acpCheckoutSession.update({ where: { id: s.id }, data: { status: "in_progress" } });
    expectAcpError(await complete(s.id, { payment_data: testPaymentData(token) }), 409, "checkout_session_in_progress");
    // The same claim three minutes old, with no order: its completion never committed.
    await getDb().acpCheckoutSession.update({ where: { id: s.id }, data: { updatedAt: new Date(Date.now() - 3 * 60_000) } });
    const r = await complete(s.id, { payment_data: testPaymentData(token) });
    expect(r.status, r.text).toBe(200);
    expect(r.body.status).toBe("completed");
    expect(await getDb().license.count({ where: { buyerEmail: email("abandoned") } })).toBe(1);
  });

  it("a declined payment leaves the session ready_for_payment and the order failed; another token then pays", async () => {
    const s = await readySession("declined");
    const declined = await vault(s.id, total(s), { number: "4000000000000002" });
    const r = await complete(s.id, { payment_data: testPaymentData(declined) });
    expectAcpError(r, 402, "payment_declined");
    expect((await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: s.id } })).status).toBe("ready_for_payment");
    expect((await getDb().order.findMany({ where: { buyerEmail: email("declined") } })).map((o) => o.status)).toEqual(["failed"]);
    expect(await getDb().license.count({ where: { buyerEmail: email("declined") } })).toBe(0);
    const retry = await complete(s.id, { payment_data: testPaymentData(await vault(s.id, total(s))) });
    expect(retry.status, retry.text).toBe(200);
  });

  it("refuses a payment handler this deployment does not offer, and purchase orders", async () => {
    const s = await readySession("handler");
    const token = await vault(s.id, total(s));
    expectAcpError(
      await complete(s.id, { payment_data: { ...testPaymentData(token), handler_id: "stripe_spt" } }),
      400,
      "payment_handler_unsupported",
      "$.payment_data.handler_id",
    );
    expectAcpError(await complete(s.id, { payment_data: { purchase_order_number: "PO-1" } }), 400, "payment_data_unsupported");
    expect((await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: s.id } })).status).toBe("ready_for_payment");
  });

  it("an expired session shows status expired and cannot be updated or completed (409 checkout_session_expired)", async () => {
    const s = await readySession("expired");
    const token = await vault(s.id, total(s));
    await getDb().acpCheckoutSession.update({ where: { id: s.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const r = await get(s.id);
    expect(r.status).toBe(200);
    expectAcpValid(r.body, "CheckoutSession");
    expect(r.body.status).toBe("expired");
    expectAcpError(await complete(s.id, { payment_data: testPaymentData(token) }), 409, "checkout_session_expired");
    expectAcpError(await update(s.id, { buyer: { email: email("y") } }), 409, "checkout_session_expired");
    expect(await getDb().order.count({ where: { buyerEmail: email("expired") } })).toBe(0);
  });

  it("unknown and foreign sessions are 404 checkout_session_not_found; a platform's sessions are its own", async () => {
    expectAcpError(await get("acs_000000000000000000000000"), 404, "checkout_session_not_found");
    expectAcpError(await get("not-an-id"), 400, "invalid_path");
    const mine = await create(createBody(fx.perMachine, { buyer: { email: email("platform") } }), { platformKey: fx.platformA.key });
    expect(mine.status, mine.text).toBe(201);
    expect((await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: mine.body.id } })).platformId).toBe(fx.platformA.id);
    expect((await get(mine.body.id, { platformKey: fx.platformA.key })).status).toBe(200);
    expectAcpError(await get(mine.body.id, { platformKey: fx.platformB.key }), 404, "checkout_session_not_found");
    expectAcpError(await get(mine.body.id), 404, "checkout_session_not_found");
    expectAcpError(
      await update(mine.body.id, { buyer: { email: email("thief") } }, { platformKey: fx.platformB.key }),
      404,
      "checkout_session_not_found",
    );
    expectAcpError(await cancel(mine.body.id, {}, { platformKey: fx.platformB.key }), 404, "checkout_session_not_found");
    expect((await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: mine.body.id } })).status).toBe("ready_for_payment");
    const r = await complete(
      mine.body.id,
      { payment_data: testPaymentData(await vault(mine.body.id, 2000, { platformKey: fx.platformA.key })) },
      { platformKey: fx.platformA.key },
    );
    expect(r.status, r.text).toBe(200);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: r.body.order.id } })).agentId).toBe(`acp:${fx.platformA.id}`);
    // The platform has a webhook URL: the completing transaction queued its order_create event, the full Order.
    const hook = await getDb().webhookDelivery.findUniqueOrThrow({ where: { dedupeKey: `acp:${r.body.order.id}:order_create` } });
    expect(hook).toMatchObject({ targetId: fx.platformA.id, url: "https://hooks.example.com/acp", eventType: "order_create" });
    const event = JSON.parse(hook.payload);
    expect(event.type).toBe("order_create");
    expectAcpValid(event.data, "Order");
    expect(event.data.fulfillments[0].digital_delivery.license_key).toBe(r.body.order.fulfillments[0].digital_delivery.license_key);
  });
});

let rpcId = 0;
/** A tool call's result, or (an ACP refusal, as the ACP MCP binding has it) the JSON-RPC error: code -32000, ACP's Error as data. */
async function mcp(
  name: string,
  args: unknown,
): Promise<{ isError?: boolean; structuredContent?: any; content: Array<{ text: string }>; error?: { code: number; message: string; data: any } }> {
  const request = new Request("http://localhost:3000/api/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...client },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name, arguments: args } }),
  });
  const text = await (await mcpPost(request)).text();
  const json = /^\s*\{/.test(text)
    ? JSON.parse(text)
    : JSON.parse(
        text
          .split("\n")
          .find((l) => l.startsWith("data:"))!
          .slice(5),
      );
  return json.result ?? { content: [], error: json.error };
}

describe("ACP checkout sessions over MCP (the ACP MCP binding)", () => {
  const meta = () => ({ api_version: "2026-04-17", idempotency_key: randomUUID(), request_id: "r-1", user_agent: "test" });

  it("publishes the five tools with {meta, id, payload} arguments and no $ref", () => {
    for (const name of [
      "create_checkout_session",
      "get_checkout_session",
      "update_checkout_session",
      "complete_checkout_session",
      "cancel_checkout_session",
    ]) {
      const t = toolByName(name)!;
      const params = toolParameters(t);
      expect(JSON.stringify(params), name).not.toContain("$ref");
      expect(Object.keys(params.properties as object).sort(), name).toEqual(
        name === "create_checkout_session" ? ["meta", "payload"] : name === "get_checkout_session" ? ["id", "meta"] : ["id", "meta", "payload"],
      );
      expect(params.required, name).toEqual(name === "cancel_checkout_session" ? ["meta", "id"] : expect.arrayContaining(["meta"]));
    }
  });

  it("create → update → delegate → complete → get, each result the ACP session (valid against the schema)", async () => {
    const created = await mcp("create_checkout_session", { meta: meta(), payload: createBody(fx.perMachine) });
    expect(created.isError ?? false, JSON.stringify(created)).toBe(false);
    expectAcpValid(created.structuredContent, "CheckoutSession");
    const id = created.structuredContent.id as string;
    const updated = await mcp("update_checkout_session", { meta: meta(), id, payload: { buyer: { email: email("mcp") } } });
    expectAcpValid(updated.structuredContent, "CheckoutSession");
    expect(updated.structuredContent.status).toBe("ready_for_payment");
    const token = await mcp("delegate_payment", { meta: meta(), payload: delegateBody(id, 2000) });
    expect(token.isError ?? false, JSON.stringify(token)).toBe(false);
    const done = await mcp("complete_checkout_session", { meta: meta(), id, payload: { payment_data: testPaymentData(token.structuredContent.id) } });
    expect(done.isError ?? false, JSON.stringify(done)).toBe(false);
    expectAcpValid(done.structuredContent, "CheckoutSessionWithOrder");
    const key = done.structuredContent.order.fulfillments[0].digital_delivery.license_key as string;
    expect(done.content[0]!.text).toContain(key);
    const got = await mcp("get_checkout_session", { meta: { api_version: "2026-04-17" }, id });
    expect(got.structuredContent.status).toBe("completed");
    const again = await mcp("cancel_checkout_session", { meta: meta(), id });
    expect(again.error).toMatchObject({ code: -32000, data: { type: "invalid_request", code: "checkout_session_not_cancelable" } });
  });

  it("reads the version from meta.api_version; meta.idempotency_key is optional, as the binding has it", async () => {
    const wrong = await mcp("create_checkout_session", {
      meta: { api_version: "2025-09-29", idempotency_key: randomUUID() },
      payload: createBody(fx.perMachine),
    });
    expect(wrong.error?.code).toBe(-32000);
    expect(wrong.error?.data.code).toBe("unsupported_api_version");
    expectAcpValid(wrong.error?.data, "Error");
    const noKey = await mcp("create_checkout_session", { meta: { api_version: "2026-04-17" }, payload: createBody(fx.perMachine) });
    expect(noKey.error, JSON.stringify(noKey.error)).toBeUndefined();
    expectAcpValid(noKey.structuredContent, "CheckoutSession");
    const noMeta = await mcp("get_checkout_session", { id: "acs_000000000000000000000000" });
    expect(noMeta.error).toMatchObject({ code: -32000, data: { type: "invalid_request", code: "invalid_body", param: "$.meta" } });
    const cancelled = await mcp("create_checkout_session", { meta: meta(), payload: createBody(fx.perMachine) });
    const c = await mcp("cancel_checkout_session", { meta: meta(), id: cancelled.structuredContent.id });
    expect(c.structuredContent.status).toBe("canceled");
  });
});

describe("security review, issue 31", () => {
  /** A usd product of the fixture seller at `price`, seat model as given. */
  async function productAt(tag: string, price: number, seatModel = "per-machine") {
    const p = await createProduct(
      fx.devId,
      productInputSchema.parse({
        name: `ACP ${tag} ${run}`,
        description: "A product sold to agents over ACP in these tests.",
        plugin_id: `com.acp.${tag}${run}`,
        price_cents: price,
        currency: "usd",
        category: "dev-tools",
        max_machines: 1,
        seat_model: seatModel,
        platforms: ["linux"],
        download_url: "https://example.com/download",
        icon_url: "/icons/tape-warmth.svg",
      }),
      { publish: true },
    );
    return p.id;
  }

  /** Nothing of a purchase happened for this buyer: no order, no license, no mail, the token unused, the session open. */
  async function nothingCharged(sessionId: string, buyer: string, token: string) {
    expect(await getDb().order.count({ where: { buyerEmail: buyer } })).toBe(0);
    expect(await getDb().license.count({ where: { buyerEmail: buyer } })).toBe(0);
    expect(await getDb().emailMessage.count({ where: { to: buyer } })).toBe(0);
    expect((await getDb().delegatedPayment.findUniqueOrThrow({ where: { id: token } })).usedAt).toBeNull();
    expect(await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: sessionId } })).toMatchObject({
      status: "ready_for_payment",
      orderId: null,
    });
  }

  it("finding 2: complete refuses a total the agent was not shown (the coupon used up meanwhile), charging nothing; after a GET it charges the new total", async () => {
    const product = await productAt("race799", 799);
    const code = `RACE${run}`.slice(0, 20).toUpperCase();
    const coupon = await getDb().coupon.create({
      data: { developerId: fx.devId, code, kind: "amount", amountOffMinor: 399, currency: "usd", productIds: [], maxRedemptions: 1 },
    });
    const buyer = email("shown");
    const shown = await create(createBody(product, { discounts: { codes: [code] }, buyer: { email: buyer } }));
    expect(shown.status, shown.text).toBe(201);
    expect(total(shown.body)).toBe(400);
    // Another buyer's order takes the coupon's last redemption meanwhile.
    const other = await call(webCheckoutRoute, "/api/checkout/create", {
      method: "POST",
      json: { product_id: product, buyer_email: `other-${run}@example.com`, coupon_code: code },
      headers: client,
    });
    expect(other.status, other.text).toBe(200);
    expect((await getDb().coupon.findUniqueOrThrow({ where: { id: coupon.id } })).redemptions).toBe(1);
    // The agent's token allows more than it was shown (the allowance alone never decided the price).
    const token = await vault(shown.body.id, 1000);

    const refused = await complete(shown.body.id, { payment_data: testPaymentData(token) });
    expectAcpError(refused, 409, "checkout_session_total_changed");
    expect(refused.body.type).toBe("invalid_request");
    expect(refused.body.message).toContain("$4.00");
    expect(refused.body.message).toContain("$7.99");
    expect(refused.body.message).toContain(`/api/acp/checkout_sessions/${shown.body.id}`);
    await nothingCharged(shown.body.id, buyer, token);
    // Refused again, as long as the agent has not looked.
    expectAcpError(await complete(shown.body.id, { payment_data: testPaymentData(token) }), 409, "checkout_session_total_changed");
    await nothingCharged(shown.body.id, buyer, token);

    // The agent reads the session: the new total, the code rejected; that total is now what complete charges.
    const reread = await get(shown.body.id);
    expect(reread.status, reread.text).toBe(200);
    expectAcpValid(reread.body, "CheckoutSession");
    expect(total(reread.body)).toBe(799);
    expect(reread.body.discounts.rejected).toEqual([expect.objectContaining({ code, reason: "discount_code_invalid" })]);
    const done = await complete(shown.body.id, { payment_data: testPaymentData(token) });
    expect(done.status, done.text).toBe(200);
    expect(done.body.status).toBe("completed");
    const order = await getDb().order.findUniqueOrThrow({ where: { id: done.body.order.id } });
    expect(order).toMatchObject({ amountCents: 799, discountCents: 0, couponCode: null, status: "paid" });
    expect(await getDb().license.count({ where: { buyerEmail: buyer } })).toBe(1);
  });

  it("finding 2: a price change is refused the same way; an update (not only a GET) shows the new total and complete then charges it", async () => {
    const product = await productAt("repriced", 799);
    const buyer = email("repriced");
    const s = await create(createBody(product, { buyer: { email: buyer } }));
    expect(total(s.body)).toBe(799);
    const token = await vault(s.body.id, 1000);
    await getDb().product.update({ where: { id: product }, data: { priceCents: 899 } });
    expectAcpError(await complete(s.body.id, { payment_data: testPaymentData(token) }), 409, "checkout_session_total_changed");
    await nothingCharged(s.body.id, buyer, token);
    const updated = await update(s.body.id, { order_notes: "confirmed at the new price" });
    expect(updated.status, updated.text).toBe(200);
    expect(total(updated.body)).toBe(899);
    const done = await complete(s.body.id, { payment_data: testPaymentData(token) });
    expect(done.status, done.text).toBe(200);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: done.body.order.id } })).amountCents).toBe(899);
  });

  it("finding 3: at most 100 seats, as on the web, REST and MCP: 101 refused on create and update, 100 accepted for a per-seat product", async () => {
    const product = await productAt("hundred", 100, "per-seat");
    const body = (quantity: number) => createBody(product, { line_items: [{ id: product, quantity }] });
    expectAcpError(await create(body(101)), 400, "invalid_body", "$.line_items[0].quantity");
    expectAcpError(await create(body(1000)), 400, "invalid_body", "$.line_items[0].quantity");
    // Repeated ids add up: 60 + 41 is 101.
    const split = await create(
      createBody(product, {
        line_items: [
          { id: product, quantity: 60 },
          { id: product, quantity: 41 },
        ],
      }),
    );
    expectAcpError(split, 400, "quantity_too_large", "$.line_items[0].quantity");
    expect(split.body.message).toContain("100");

    const hundred = await create({ ...body(100), buyer: { email: email("hundred") } });
    expect(hundred.status, hundred.text).toBe(201);
    expectAcpValid(hundred.body, "CheckoutSession");
    expect(hundred.body.line_items[0].quantity).toBe(100);
    expect(total(hundred.body)).toBe(10_000);
    expectAcpError(await update(hundred.body.id, { line_items: [{ id: product, quantity: 101 }] }), 400, "invalid_body", "$.line_items[0].quantity");
    expectAcpError(
      await update(hundred.body.id, { line_items: [{ id: product, quantity: 100 }, { id: product }] }),
      400,
      "quantity_too_large",
      "$.line_items[0].quantity",
    );
    expect((await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: hundred.body.id } })).quantity).toBe(100);
    const done = await complete(hundred.body.id, { payment_data: testPaymentData(await vault(hundred.body.id, 10_000)) });
    expect(done.status, done.text).toBe(200);
    expect((await getDb().license.findFirstOrThrow({ where: { order: { id: done.body.order.id } } })).maxMachines).toBe(100);
  });
});
