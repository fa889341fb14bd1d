import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as discoveryRoute } from "@/app/.well-known/acp.json/route";
import { POST as createRoute } from "@/app/api/acp/checkout_sessions/route";
import { POST as completeRoute } from "@/app/api/acp/checkout_sessions/[checkout_session_id]/complete/route";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { acpHeaders, expectAcpValid } from "../helpers/acp";
import { call } from "../helpers/http";
import { startStripeStub, type StubRequest } from "../helpers/stripe-stub";

// Issue 14: with Stripe configured, an ACP session offers the Stripe Shared Payment Token handler (not the test vault)
// and complete confirms a PaymentIntent for the session's total with the token; against the local Stripe stand-in.

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const saved = { ...process.env };
let stub: Awaited<ReturnType<typeof startStripeStub>>;
let productId = "";
let price = 0;

function paymentIntent(req: StubRequest, n: number): { status?: number; body: unknown } {
  const f = req.form;
  const token = f.get("payment_method_data[shared_payment_granted_token]") ?? "";
  const pi = (status: string) => ({
    id: `pi_sess_${run}_${n}`,
    object: "payment_intent",
    amount: Number(f.get("amount")),
    currency: f.get("currency"),
    status,
  });
  if (token.startsWith("spt_declined"))
    return {
      status: 402,
      body: {
        error: {
          type: "card_error",
          code: "card_declined",
          decline_code: "generic_decline",
          message: "Declined.",
          payment_intent: pi("requires_payment_method"),
        },
      },
    };
  return { body: pi("succeeded") };
}

const client = { [CLIENT_ADDRESS_HEADER]: "198.51.100.70" };
const email = (tag: string) => `acp-stripe-${tag}-${run}@example.com`;
const create = (tag: string) =>
  call(createRoute, "/api/acp/checkout_sessions", {
    method: "POST",
    json: { line_items: [{ id: productId }], currency: "usd", buyer: { email: email(tag) }, capabilities: {} },
    headers: { ...client, ...acpHeaders() },
  });
const complete = (id: string, handler: string, token: string) =>
  call(completeRoute, `/api/acp/checkout_sessions/${id}/complete`, {
    method: "POST",
    json: { payment_data: { handler_id: handler, instrument: { type: "card", credential: { type: "spt", token } } } },
    headers: { ...client, ...acpHeaders({ key: randomUUID() }) },
    params: { checkout_session_id: id },
  });

beforeAll(async () => {
  stub = await startStripeStub({
    routes: {
      "POST /v1/payment_intents": paymentIntent,
      "POST /v1/payment_intents/": (req) => ({ body: { id: req.path.split("/")[3], object: "payment_intent", status: "canceled" } }),
    },
  });
  process.env.STRIPE_SECRET_KEY = "sk_test_acp_sessions";
  process.env.STRIPE_WEBHOOK_SECRET = "whsec_acp_sessions";
  process.env.STRIPE_API_BASE = stub.base;
  Reflect.deleteProperty(process.env, "PAYMENTS");
  resetEnv();
  const p = await getDb().product.findFirstOrThrow({
    where: { status: "active", currency: "usd", seatModel: "per-machine", priceCents: { gt: 100 } },
  });
  productId = p.id;
  price = p.priceCents;
});
afterAll(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) Reflect.deleteProperty(process.env, k);
  Object.assign(process.env, saved);
  resetEnv();
  await stub.close();
  await disconnectDb();
});

describe("ACP checkout sessions with Stripe", () => {
  it("offer the Stripe Shared Payment Token handler only; discovery no longer lists the test vault", async () => {
    const r = await create("handler");
    expect(r.status, r.text).toBe(201);
    expectAcpValid(r.body, "CheckoutSession");
    expect(r.body.capabilities.payment.handlers).toEqual([
      expect.objectContaining({ id: "stripe_spt", psp: "stripe", config: expect.objectContaining({ environment: "test" }) }),
    ]);
    const d = await call(discoveryRoute, "/.well-known/acp.json");
    expectAcpValid(d.body, "DiscoveryResponse");
    expect(d.body.capabilities.services).toEqual(["checkout", "orders"]);
  });

  it("complete with a Shared Payment Token confirms a PaymentIntent for the total and fulfils the order", async () => {
    const s = await create("paid");
    const before = stub.requests.length;
    const r = await complete(s.body.id, "stripe_spt", `spt_ok_${run}`);
    expect(r.status, r.text).toBe(200);
    expectAcpValid(r.body, "CheckoutSessionWithOrder");
    const intents = stub.requests.slice(before).filter((q) => q.method === "POST" && q.path === "/v1/payment_intents");
    expect(intents).toHaveLength(1);
    expect(intents[0]!.form.get("amount")).toBe(String(price));
    expect(intents[0]!.form.get("currency")).toBe("usd");
    expect(intents[0]!.form.get("receipt_email")).toBe(email("paid"));
    const order = await getDb().order.findUniqueOrThrow({ where: { id: r.body.order.id } });
    expect(order).toMatchObject({ status: "paid", provider: "stripe", amountCents: price });
    expect(order.providerPaymentId).toMatch(new RegExp(`^pi_sess_${run}_\\d+$`));
    expect(r.body.order.fulfillments[0].digital_delivery.license_key).toMatch(/^[A-Z0-9]{4}(-[A-Z0-9]{4}){3}$/);
  });

  it("a declined token is 402 payment_declined; the session stays ready_for_payment and the order is closed", async () => {
    const s = await create("declined");
    const r = await complete(s.body.id, "stripe_spt", `spt_declined_${run}`);
    expect(r.status, r.text).toBe(402);
    expectAcpValid(r.body, "Error");
    expect(r.body.code).toBe("payment_declined");
    expect((await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id: s.body.id } })).status).toBe("ready_for_payment");
    expect((await getDb().order.findMany({ where: { buyerEmail: email("declined") } })).map((o) => o.status)).toEqual(["failed"]);
    expect(await getDb().license.count({ where: { buyerEmail: email("declined") } })).toBe(0);
  });

  it("the test vault's handler is refused while Stripe takes the payments", async () => {
    const s = await create("vault");
    const r = await complete(s.body.id, "test_card", "vt_000000000000000000000000");
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({ code: "payment_handler_unsupported", param: "$.payment_data.handler_id" });
    expect(await getDb().order.count({ where: { buyerEmail: email("vault") } })).toBe(0);
  });
});
