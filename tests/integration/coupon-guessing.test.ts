import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as createAcpRoute } from "@/app/api/acp/checkout_sessions/route";
import { POST as updateAcpRoute } from "@/app/api/acp/checkout_sessions/[checkout_session_id]/route";
import { POST as checkoutRoute } from "@/app/api/checkout/create/route";
import { POST as quoteRoute } from "@/app/api/checkout/quote/route";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { POST as startForm } from "@/app/checkout/start/route";
import { newPlatformKey } from "@/lib/acp/platforms";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER, rateLimiter } from "@/lib/http/rate-limit";
import { acpHeaders, expectAcpValid } from "../helpers/acp";
import { call, expectProblem, type Reply } from "../helpers/http";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

// Security review, issue 31, finding 1: coupon codes could be guessed without limit through ACP (update took 10 codes
// a call and declared no limits of its own; 200 updates tried 1,991 codes in 23 s and found a live one), and every
// refusal named its reason (unknown, expired, used up, not applicable): an oracle. Now every code tried counts against
// one budget (RATE_LIMIT_COUPON_TRY_PER_MIN, 30 a minute) per client address (per agent platform for a keyed agent)
// and per ACP session, shared by the quote, the hosted checkout (REST, MCP, the Buy form) and ACP create and update
// (REST and MCP), counted before any code is looked up; and an unusable code gets one answer whatever the reason.

const BUDGET = 30;
const run = `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
const saved = { ...process.env };
const fx = { product: "", other: "", devId: "", live: "", platform: { id: "", key: "" } };
let ip = 0;
/** A fresh client address per case: budgets are per address. */
const nextClient = () => `203.0.113.${++ip}`;
const guess = () => `G${randomBytes(6).toString("hex").toUpperCase()}`;
const guesses = (n: number) => Array.from({ length: n }, guess);

/** Waits for a fresh one-minute window when less than `seconds` are left in this one, so no case straddles two. */
async function freshWindow(seconds = 20): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

type Client = { address: string; platformKey?: string };
const headersOf = (c: Client, post = true) => ({
  [CLIENT_ADDRESS_HEADER]: c.address,
  ...acpHeaders({ key: post ? undefined : null, platformKey: c.platformKey }),
});
const acpCreate = (c: Client, json: unknown) => call(createAcpRoute, "/api/acp/checkout_sessions", { method: "POST", json, headers: headersOf(c) });
const acpUpdate = (c: Client, id: string, json: unknown) =>
  call(updateAcpRoute, `/api/acp/checkout_sessions/${id}`, { method: "POST", json, headers: headersOf(c), params: { checkout_session_id: id } });
const quote = (c: Client, code?: string, productId = fx.product) =>
  call(quoteRoute, "/api/checkout/quote", {
    method: "POST",
    json: { product_id: productId, ...(code ? { coupon_code: code } : {}) },
    headers: { [CLIENT_ADDRESS_HEADER]: c.address },
  });
const checkout = (c: Client, code: string) =>
  call(checkoutRoute, "/api/checkout/create", {
    method: "POST",
    json: { product_id: fx.product, buyer_email: `guess-${run}@example.com`, coupon_code: code },
    headers: { [CLIENT_ADDRESS_HEADER]: c.address },
  });
const buyForm = (c: Client, code: string) =>
  call(startForm, "/checkout/start", {
    method: "POST",
    body: new URLSearchParams({ product_id: fx.product, buyer_email: `form-${run}@example.com`, coupon_code: code }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", [CLIENT_ADDRESS_HEADER]: c.address },
  });
const sessionBody = (codes?: string[]) => ({
  line_items: [{ id: fx.product }],
  currency: "usd",
  capabilities: { interventions: { supported: [] } },
  ...(codes ? { discounts: { codes } } : {}),
});

let rpcId = 0;
async function mcp(c: Client, name: string, args: unknown) {
  const response = await mcpPost(
    new Request("http://localhost:3000/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", [CLIENT_ADDRESS_HEADER]: c.address },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name, arguments: args } }),
    }),
  );
  const text = await response.text();
  const json = /^\s*\{/.test(text)
    ? JSON.parse(text)
    : JSON.parse(
        text
          .split("\n")
          .find((l) => l.startsWith("data:"))!
          .slice(5),
      );
  // An ACP refusal is the JSON-RPC error (code -32000, ACP's Error as data), as the ACP MCP binding has it.
  return (json.result ?? { content: [], error: json.error }) as {
    isError?: boolean;
    structuredContent?: any;
    content: Array<{ text: string }>;
    error?: { code: number; data: any };
  };
}

/** ACP's Error object for a spent budget: 429 rate_limited with Retry-After, in ACP's shape. */
function expectAcpRateLimited(r: Reply) {
  expect(r.status, r.text).toBe(429);
  expect(r.body).toMatchObject({ type: "invalid_request", code: "rate_limited" });
  expectAcpValid(r.body, "Error");
  expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
}

beforeAll(async () => {
  process.env.ACP_ANONYMOUS = "on";
  process.env.PAYMENTS = "test";
  process.env.RATE_LIMIT_COUPON_TRY_PER_MIN = String(BUDGET);
  resetEnv();
  const dev = await sellingDeveloper(`guess-${run}@example.com`, { name: `Guess Studio ${run}`, website: null, bio: "" });
  fx.devId = dev.id;
  fx.product = (await createTestProduct(dev.id, `Guess ${run}`, `com.guess.a${run}`, { price_cents: 2000, currency: "usd" })).id;
  fx.other = (await createTestProduct(dev.id, `Guess other ${run}`, `com.guess.b${run}`, { price_cents: 2000, currency: "usd" })).id;
  fx.live = `LIVE${run}`.slice(0, 24).toUpperCase();
  await getDb().coupon.create({ data: { developerId: dev.id, code: fx.live, kind: "percent", percentOff: 50, productIds: [] } });
  const k = newPlatformKey();
  fx.platform = { id: `ap_guess_${run}`, key: k.key };
  await getDb().agentPlatform.create({
    data: { id: fx.platform.id, name: `Guess platform ${run}`, keyHash: k.keyHash, keyPrefix: k.keyPrefix, webhookSecret: "whsec_x" },
  });
});

beforeEach(() => rateLimiter().reset());

afterAll(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) Reflect.deleteProperty(process.env, k);
  Object.assign(process.env, saved);
  resetEnv();
  rateLimiter().reset();
  await disconnectDb();
});

describe("one budget for trying coupon codes (issue 31, finding 1)", () => {
  it("100 ACP updates carrying 10 codes each from one client find no code: refused (429, ACP's Error) once 30 codes are spent", async () => {
    await freshWindow();
    const client = { address: nextClient() };
    const created = await acpCreate(client, sessionBody());
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const replies: Reply[] = [];
    for (let i = 0; i < 100; i++) {
      const codes = guesses(10);
      if (i === 50) codes[3] = fx.live; // the live code, well past the budget: never looked up
      replies.push(await acpUpdate(client, id, { discounts: { codes } }));
    }
    const ok = replies.filter((r) => r.status === 200);
    expect(ok).toHaveLength(BUDGET / 10);
    expect(replies.slice(0, BUDGET / 10).every((r) => r.status === 200)).toBe(true);
    for (const r of replies.slice(BUDGET / 10)) expectAcpRateLimited(r);
    for (const r of ok) expect(r.body.discounts.applied).toEqual([]);
    const row = await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id } });
    expect(row.couponCode).toBeNull();
    expect((row.metadata as { discount_codes?: string[] }).discount_codes).not.toContain(fx.live);
  }, 60_000);

  it("quote, checkout, the Buy form and ACP share it: part spent on quotes, ACP is refused; codeless calls still work", async () => {
    await freshWindow();
    const client = { address: nextClient() };
    for (let i = 0; i < 20; i++) expectProblem(await quote(client, guess()), 404, "coupon_not_found");
    expectProblem(await checkout(client, guess()), 404, "coupon_not_found");
    const form = await buyForm(client, guess());
    expect(new URL(form.headers.get("location")!).searchParams.get("buy_error")).toBe("coupon_not_found");
    // 22 spent: an ACP create carrying 10 more goes over, and is refused before anything is made.
    const before = await getDb().acpCheckoutSession.count();
    expectAcpRateLimited(await acpCreate(client, sessionBody(guesses(10))));
    expect(await getDb().acpCheckoutSession.count()).toBe(before);
    // Spent now, for every path of this client, even for the live code...
    expectProblem(await quote(client, fx.live), 429, "rate_limited");
    expectProblem(await checkout(client, fx.live), 429, "rate_limited");
    const refusedForm = await buyForm(client, fx.live);
    expect(new URL(refusedForm.headers.get("location")!).searchParams.get("buy_error")).toBe("rate_limited");
    // ...but a purchase without a code is not a guess, and another client has its own budget.
    expect((await quote(client)).status).toBe(200);
    expect((await acpCreate(client, sessionBody())).status).toBe(201);
    expect((await quote({ address: nextClient() }, fx.live)).status).toBe(200);
  });

  it("MCP's update_checkout_session and create_checkout_session spend the same budget as REST", async () => {
    await freshWindow();
    const client = { address: nextClient() };
    const meta = () => ({ api_version: "2026-04-17", idempotency_key: randomUUID() });
    const created = await mcp(client, "create_checkout_session", { meta: meta(), payload: sessionBody(guesses(10)) });
    expect(created.isError ?? false, JSON.stringify(created)).toBe(false);
    const id = created.structuredContent.id as string;
    for (let i = 0; i < 2; i++) {
      const r = await mcp(client, "update_checkout_session", { meta: meta(), id, payload: { discounts: { codes: guesses(10) } } });
      expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    }
    const refused = await mcp(client, "update_checkout_session", { meta: meta(), id, payload: { discounts: { codes: [fx.live] } } });
    expect(refused.error).toMatchObject({ code: -32000, data: { type: "invalid_request", code: "rate_limited" } });
    // And REST from the same address is refused as well.
    expectAcpRateLimited(await acpUpdate(client, id, { discounts: { codes: [fx.live] } }));
  });

  it("per ACP session too: many addresses on one anonymous session get 30 codes in all; a keyed platform has one budget, whatever its address", async () => {
    await freshWindow();
    const first = { address: nextClient() };
    const created = await acpCreate(first, sessionBody());
    const id = created.body.id as string;
    expect((await acpUpdate(first, id, { discounts: { codes: guesses(10) } })).status).toBe(200);
    expect((await acpUpdate({ address: nextClient() }, id, { discounts: { codes: guesses(10) } })).status).toBe(200);
    expect((await acpUpdate({ address: nextClient() }, id, { discounts: { codes: guesses(10) } })).status).toBe(200);
    expectAcpRateLimited(await acpUpdate({ address: nextClient() }, id, { discounts: { codes: guesses(1) } }));

    // A platform calling from many addresses: one budget.
    const platform = (address: string) => ({ address, platformKey: fx.platform.key });
    expect((await acpCreate(platform(nextClient()), sessionBody(guesses(10)))).status).toBe(201);
    expect((await acpCreate(platform(nextClient()), sessionBody(guesses(10)))).status).toBe(201);
    expect((await acpCreate(platform(nextClient()), sessionBody(guesses(10)))).status).toBe(201);
    expectAcpRateLimited(await acpCreate(platform(nextClient()), sessionBody(guesses(1))));
  });

  it("counts each distinct code once per call (case and repeats do not multiply it)", async () => {
    await freshWindow();
    const client = { address: nextClient() };
    const code = guess();
    const created = await acpCreate(client, sessionBody([code, code.toLowerCase(), code]));
    expect(created.status, created.text).toBe(201);
    for (let i = 0; i < 29; i++) expectProblem(await quote(client, guess()), 404, "coupon_not_found");
    expectProblem(await quote(client, guess()), 429, "rate_limited");
  });
});

describe("one answer for a code that cannot be used (issue 31, finding 1)", () => {
  it("unknown, deactivated, expired, used up, another product's and another currency's codes: the same refusal on quote, checkout and ACP", async () => {
    const db = getDb();
    const make = (code: string, data: Record<string, unknown> = {}) =>
      db.coupon.create({ data: { developerId: fx.devId, code, kind: "percent", percentOff: 10, productIds: [], ...data } });
    const codes = {
      unknown: `NONE${run}`.toUpperCase(),
      deactivated: `OFF${run}`.toUpperCase(),
      expired: `EXP${run}`.toUpperCase(),
      exhausted: `USED${run}`.toUpperCase(),
      otherProduct: `ONLY${run}`.toUpperCase(),
      otherCurrency: `EUR${run}`.toUpperCase(),
    };
    await make(codes.deactivated, { active: false });
    await make(codes.expired, { expiresAt: new Date(Date.now() - 60_000) });
    await make(codes.exhausted, { maxRedemptions: 1, redemptions: 1 });
    await make(codes.otherProduct, { productIds: [fx.other] });
    await make(codes.otherCurrency, { kind: "amount", percentOff: null, amountOffMinor: 300, currency: "eur" });

    const client = { address: nextClient() };
    const blank = (detail: string, code: string) => detail.replaceAll(code, "<code>");
    for (const route of ["quote", "checkout"] as const) {
      const details = new Set<string>();
      for (const code of Object.values(codes)) {
        const r = route === "quote" ? await quote(client, code) : await checkout(client, code);
        expectProblem(r, 404, "coupon_not_found");
        details.add(blank(r.body.detail, code));
      }
      expect([...details], route).toHaveLength(1);
    }
    const r = await acpCreate(client, sessionBody(Object.values(codes)));
    expect(r.status, r.text).toBe(201);
    expectAcpValid(r.body, "CheckoutSession");
    const rejected = r.body.discounts.rejected as Array<{ code: string; reason: string; message: string }>;
    expect(rejected.map((x) => x.reason)).toEqual(Object.values(codes).map(() => "discount_code_invalid"));
    expect(new Set(rejected.map((x) => blank(x.message, x.code))).size).toBe(1);
    // The Buy form names one code for all of them too.
    for (const code of Object.values(codes)) {
      const back = await buyForm(client, code);
      expect(new URL(back.headers.get("location")!).searchParams.get("buy_error"), code).toBe("coupon_not_found");
    }
  });
});
