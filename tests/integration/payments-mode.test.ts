import { afterAll, afterEach, describe, expect, it } from "vitest";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { POST as create } from "@/app/api/checkout/create/route";
import { GET as status } from "@/app/api/checkout/[session_id]/route";
import { POST as startForm } from "@/app/checkout/start/route";
import { POST as pay } from "@/app/checkout/[session_id]/pay/route";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { parseEnv, resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { paymentMode, paymentModeSummary } from "@/lib/payments/provider";
import { call, expectProblem } from "../helpers/http";

/**
 * Who takes payments. Test mode (a Pay button, no money) is a license for anyone who presses it, so it must only
 * ever be on when it is the deployment's chosen provider: never for an order left over from before Stripe was set
 * up, and in production only with PAYMENTS=test or when BASE_URL is this machine (a first local start, which no one
 * else can reach).
 */

const KEYS = ["NODE_ENV", "PAYMENTS", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_API_BASE", "BASE_URL"] as const;
/** A deployment others can reach: only there does a missing provider refuse checkout (a local start sells in test mode). */
const PUBLIC = "https://shop.example";
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));

function setEnv(vars: { [K in (typeof KEYS)[number]]?: string | undefined }) {
  const entries: Array<[string, string | undefined]> = Object.entries(vars);
  for (const [k, v] of entries) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();
}

afterEach(() => setEnv(saved));
afterAll(() => disconnectDb());

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let seq = 0;
const email = () => `mode-${run}-${++seq}@example.com`;

const product = () => getDb().product.findFirstOrThrow({ where: { status: "active" }, orderBy: { id: "asc" } });
const createRest = (productId: string, buyer = email()) =>
  call(create, "/api/checkout/create", { method: "POST", json: { product_id: productId, buyer_email: buyer } });
const payButton = (id: string) => call(pay, `/checkout/${id}/pay`, { method: "POST", params: { session_id: id } });
const buyForm = (productId: string, buyer = email()) =>
  call(startForm, "/checkout/start", {
    method: "POST",
    body: new URLSearchParams({ product_id: productId, buyer_email: buyer }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });

let rpcId = 0;
async function mcpTool(name: string, args: Record<string, unknown>) {
  const response = await mcpPost(
    new Request("http://localhost:3000/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", [CLIENT_ADDRESS_HEADER]: "198.51.100.7" },
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
  return json.result as { isError?: boolean; content: Array<{ text: string }>; structuredContent?: { url: string; session_id: string } };
}

async function orderState(id: string) {
  const order = await getDb().order.findUniqueOrThrow({ where: { id } });
  return {
    status: order.status,
    paidAt: order.paidAt,
    licenses: await getDb().license.count({ where: { orderId: id } }),
    emails: await getDb().emailMessage.count({ where: { dedupeKey: `license:${id}` } }),
    events: await getDb().paymentEvent.count({ where: { orderId: id } }),
  };
}

describe("a test-mode order once test mode is no longer the provider", () => {
  it("cannot be paid after Stripe is configured: the Pay button is refused, the order stays unpaid, no key", async () => {
    // Opened while the deployment ran in test mode (no Stripe key, not production).
    setEnv({ NODE_ENV: "test", PAYMENTS: undefined, STRIPE_SECRET_KEY: undefined });
    const p = await product();
    const opened = await createRest(p.id);
    expect(opened.status, opened.text).toBe(200);
    const id = opened.body.session_id as string;
    expect((await getDb().order.findUniqueOrThrow({ where: { id } })).provider).toBe("test");

    // The operator then sets up Stripe (a restart with the key).
    setEnv({ STRIPE_SECRET_KEY: "sk_test_mode_switch" });
    expect(paymentMode().provider).toBe("stripe");

    const r = await payButton(id);
    expect(r.status).toBe(303);
    // Back to the session's page (which says it can no longer be paid), not to the success page with a key.
    expect(r.headers.get("location")).toBe(`http://localhost:3000/checkout/${id}`);
    expect(await orderState(id)).toEqual({ status: "open", paidAt: null, licenses: 0, emails: 0, events: 0 });
    await expect(payTestCheckout(id)).rejects.toMatchObject({ status: 409, code: "test_mode_off" });
    expect(await orderState(id)).toMatchObject({ status: "open", licenses: 0, events: 0 });

    // An agent following up is not told to pay there either.
    const s = await call(status, `/api/checkout/${id}`, { params: { session_id: id } });
    expect(s.body).toMatchObject({ status: "open", provider: "test", url: null, license: null });

    // The refusal is the mode, not the order: back in test mode the same session pays (the test can fail).
    setEnv({ STRIPE_SECRET_KEY: undefined });
    const paid = await payButton(id);
    expect(paid.headers.get("location")).toBe(`http://localhost:3000/checkout/${id}/success`);
    expect(await orderState(id)).toMatchObject({ status: "paid", licenses: 1, emails: 1 });
  });

  it("cannot be paid once a production deployment drops PAYMENTS=test", async () => {
    setEnv({ NODE_ENV: "production", PAYMENTS: "test", STRIPE_SECRET_KEY: undefined, BASE_URL: PUBLIC });
    const p = await product();
    const opened = await createRest(p.id);
    expect(opened.status, opened.text).toBe(200);
    const id = opened.body.session_id as string;

    setEnv({ PAYMENTS: undefined });
    expect((await payButton(id)).headers.get("location")).toBe(`${PUBLIC}/checkout/${id}`);
    expect(await orderState(id)).toMatchObject({ status: "open", licenses: 0, events: 0 });
  });
});

describe("production without a payment provider", () => {
  it("refuses paid checkout on REST, both MCP tools and the Buy form, and creates no order", async () => {
    setEnv({ NODE_ENV: "production", PAYMENTS: undefined, STRIPE_SECRET_KEY: undefined, BASE_URL: PUBLIC });
    expect(paymentMode()).toMatchObject({ provider: null });
    const p = await product();
    const before = await getDb().order.count({ where: { productId: p.id } });

    const rest = await createRest(p.id);
    expectProblem(rest, 503, "checkout_not_configured");
    expect(rest.body.detail).toMatch(/not configured/i);

    for (const tool of ["purchase_license", "agent_checkout"]) {
      const args =
        tool === "agent_checkout" ? { product_id: p.id, buyer_email: email(), agent_id: "mode-agent" } : { product_id: p.id, buyer_email: email() };
      const result = await mcpTool(tool, args);
      expect(result.isError, JSON.stringify(result)).toBe(true);
      expect(result.content[0]!.text).toMatch(/^checkout_not_configured: /);
    }

    const form = await buyForm(p.id);
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toMatch(new RegExp(`/products/${p.id}\\?buy_error=not_configured#buy$`));

    expect(await getDb().order.count({ where: { productId: p.id } })).toBe(before);
  });

  it("PAYMENTS=stripe without STRIPE_SECRET_KEY is not configured either: no fallback to test mode", async () => {
    setEnv({ NODE_ENV: "development", PAYMENTS: "stripe", STRIPE_SECRET_KEY: undefined });
    expect(paymentMode()).toMatchObject({ provider: null });
    expectProblem(await createRest((await product()).id), 503, "checkout_not_configured");
    expect(paymentModeSummary()).toMatch(/NOT CONFIGURED.*PAYMENTS=stripe/);
  });

  it("sells through test mode with the explicit PAYMENTS=test opt-in", async () => {
    setEnv({ NODE_ENV: "production", PAYMENTS: "test", STRIPE_SECRET_KEY: undefined });
    const p = await product();

    const rest = await createRest(p.id);
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.url).toBe(`http://localhost:3000/checkout/${rest.body.session_id}`);
    const paid = await payButton(rest.body.session_id);
    expect(paid.headers.get("location")).toBe(`http://localhost:3000/checkout/${rest.body.session_id}/success`);
    expect(await orderState(rest.body.session_id)).toMatchObject({ status: "paid", licenses: 1 });

    const tool = await mcpTool("purchase_license", { product_id: p.id, buyer_email: email() });
    expect(tool.isError ?? false, JSON.stringify(tool)).toBe(false);
    expect(tool.structuredContent?.url).toMatch(/^http:\/\/localhost:3000\/checkout\/cs_/);

    const form = await buyForm(p.id);
    expect(form.headers.get("location")).toMatch(/^http:\/\/localhost:3000\/checkout\/cs_[A-Za-z0-9]{24}$/);
  });
});

describe("a first local start (`npm install && npm start`: production, BASE_URL on this machine, no provider)", () => {
  it("sells in test mode: REST, the Buy form and the Pay button issue a license", async () => {
    setEnv({ NODE_ENV: "production", PAYMENTS: undefined, STRIPE_SECRET_KEY: undefined, BASE_URL: undefined });
    expect(paymentMode()).toMatchObject({ provider: "test", local: true });
    const p = await product();
    const rest = await createRest(p.id);
    expect(rest.status, rest.text).toBe(200);
    const paid = await payButton(rest.body.session_id);
    expect(paid.headers.get("location")).toMatch(new RegExp(`/checkout/${rest.body.session_id}/success$`));
    expect(await orderState(rest.body.session_id)).toMatchObject({ status: "paid", licenses: 1 });
    expect((await buyForm(p.id)).headers.get("location")).toMatch(/\/checkout\/cs_[A-Za-z0-9]{24}$/);
  });
});

describe("the payment mode", () => {
  const mode = (vars: Record<string, string>) => paymentMode(parseEnv(vars)).provider;

  it("is decided by PAYMENTS, then the Stripe key, then NODE_ENV and BASE_URL; a public production deployment never defaults to test mode", () => {
    expect(mode({ NODE_ENV: "production", BASE_URL: PUBLIC })).toBeNull();
    expect(mode({ BASE_URL: PUBLIC })).toBeNull(); // NODE_ENV defaults to production
    expect(mode({ NODE_ENV: "production", BASE_URL: "http://192.168.1.20:3000" })).toBeNull(); // reachable from the network
    // `npm start` on a laptop: production, BASE_URL on this machine (the default), no provider: test mode, bannered.
    expect(mode({ NODE_ENV: "production" })).toBe("test");
    expect(mode({ NODE_ENV: "production", BASE_URL: "http://127.0.0.1:8080" })).toBe("test");
    expect(mode({ NODE_ENV: "production", BASE_URL: "http://[::1]:3000" })).toBe("test");
    expect(mode({ NODE_ENV: "production", PAYMENTS: "test" })).toBe("test");
    expect(mode({ NODE_ENV: "production", STRIPE_SECRET_KEY: "sk_live_x" })).toBe("stripe");
    expect(mode({ NODE_ENV: "production", PAYMENTS: "stripe" })).toBeNull();
    expect(mode({ NODE_ENV: "production", PAYMENTS: "stripe", STRIPE_SECRET_KEY: "sk_live_x" })).toBe("stripe");
    expect(mode({ NODE_ENV: "production", PAYMENTS: "test", STRIPE_SECRET_KEY: "sk_live_x" })).toBe("test");
    expect(mode({ NODE_ENV: "development" })).toBe("test");
    expect(mode({ NODE_ENV: "test", STRIPE_SECRET_KEY: "sk_test_x" })).toBe("stripe");
  });

  it("is stated in one startup line", () => {
    expect(paymentModeSummary(parseEnv({ NODE_ENV: "production", BASE_URL: PUBLIC }))).toMatch(/^payments: NOT CONFIGURED/);
    expect(paymentModeSummary(parseEnv({ NODE_ENV: "production" }))).toMatch(
      /^payments: TEST MODE \(no STRIPE_SECRET_KEY, BASE_URL http:\/\/localhost:\d+ is this machine\)/,
    );
    expect(paymentModeSummary(parseEnv({ NODE_ENV: "production", PAYMENTS: "test" }))).toMatch(/^payments: TEST MODE \(PAYMENTS=test\)/);
    expect(paymentModeSummary(parseEnv({ NODE_ENV: "development" }))).toMatch(/^payments: TEST MODE/);
    expect(paymentModeSummary(parseEnv({ STRIPE_SECRET_KEY: "sk_x", STRIPE_WEBHOOK_SECRET: "whsec_x" }))).toBe("payments: Stripe");
    expect(paymentModeSummary(parseEnv({ STRIPE_SECRET_KEY: "sk_x" }))).toMatch(/STRIPE_WEBHOOK_SECRET is not set/);
  });
});
