import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as delegateRoute } from "@/app/api/acp/agentic_commerce/delegate_payment/route";
import { POST as webhook } from "@/app/api/webhooks/stripe/route";
import { preparePayment, type PaymentRequest } from "@/lib/acp/payment";
import { fulfilOrder } from "@/lib/checkout/fulfil-order";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { AppError } from "@/lib/http/errors";
import { platformFeeCents } from "@/lib/pricing";
import { call } from "../helpers/http";
import { startStripeStub, type StubRequest } from "../helpers/stripe-stub";

// Issue 14: with Stripe configured, complete takes a Stripe Shared Payment Token and confirms a PaymentIntent with it.
// Against the local Stripe stand-in: the exact parameters sent, each refusal, abort's refund, and the webhooks that
// follow such a payment (no second fulfilment; refunds still find the order).

const SECRET = "whsec_acp_payments_suite";
const run = `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
const signer = new Stripe("sk_test_unused");
const saved = { ...process.env };
let stub: Awaited<ReturnType<typeof startStripeStub>>;
let productId = "";

/** The metadata of each PaymentIntent the stand-in made, as Stripe would return it when asked. */
const intentMetadata = new Map<string, Record<string, string>>();

/** The stand-in's PaymentIntent answers, chosen by the token: how Stripe answers each case. */
function paymentIntent(req: StubRequest, n: number): { status?: number; body: unknown } {
  const f = req.form;
  const metadata = Object.fromEntries([...f.entries()].filter(([k]) => k.startsWith("metadata[")).map(([k, v]) => [k.slice(9, -1), v]));
  intentMetadata.set(`pi_acp_${run}_${n}`, metadata);
  const token = f.get("payment_method_data[shared_payment_granted_token]") ?? "";
  const pi = (status: string, over: Record<string, unknown> = {}) => ({
    id: `pi_acp_${run}_${n}`,
    object: "payment_intent",
    amount: Number(f.get("amount")),
    currency: f.get("currency"),
    status,
    metadata,
    ...over,
  });
  if (token.startsWith("spt_declined")) {
    return {
      status: 402,
      body: {
        error: {
          type: "card_error",
          code: "card_declined",
          decline_code: "insufficient_funds",
          message: "Your card has insufficient funds.",
          payment_intent: pi("requires_payment_method"),
        },
      },
    };
  }
  if (token.startsWith("spt_revoked")) {
    return {
      status: 400,
      body: { error: { type: "invalid_request_error", code: "resource_missing", message: "The SharedPaymentToken has been revoked." } },
    };
  }
  if (token.startsWith("spt_unsupported")) {
    return {
      status: 400,
      body: {
        error: {
          type: "invalid_request_error",
          code: "parameter_unknown",
          param: "payment_method_data[shared_payment_granted_token]",
          message: "Received unknown parameter: payment_method_data[shared_payment_granted_token]",
        },
      },
    };
  }
  if (token.startsWith("spt_down")) return { status: 500, body: { error: { type: "api_error", message: "stub outage" } } };
  if (token.startsWith("spt_3ds")) return { body: pi("requires_action") };
  if (token.startsWith("spt_short")) return { body: pi("succeeded", { amount: Number(f.get("amount")) - 1 }) };
  return { body: pi("succeeded") };
}

beforeAll(async () => {
  stub = await startStripeStub({
    routes: {
      "POST /v1/payment_intents": paymentIntent,
      "POST /v1/payment_intents/": (req) => ({ body: { id: req.path.split("/")[3], object: "payment_intent", status: "canceled" } }),
      "GET /v1/payment_intents/": (req) => {
        const id = req.path.split("/")[3]!.split("?")[0]!;
        const metadata = intentMetadata.get(id);
        return metadata ? { body: { id, object: "payment_intent", status: "succeeded", metadata } } : null;
      },
      "POST /v1/refunds": (req, n) => ({
        body: { id: `re_acp_${n}`, object: "refund", status: "succeeded", payment_intent: req.form.get("payment_intent") },
      }),
    },
  });
  process.env.STRIPE_SECRET_KEY = "sk_test_acp_suite";
  process.env.STRIPE_WEBHOOK_SECRET = SECRET;
  process.env.STRIPE_API_BASE = stub.base;
  Reflect.deleteProperty(process.env, "PAYMENTS");
  resetEnv();
  productId = (await getDb().product.findFirstOrThrow({ where: { status: "active", priceCents: { gt: 0 } }, orderBy: { id: "asc" } })).id;
});
afterAll(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) Reflect.deleteProperty(process.env, k);
  Object.assign(process.env, saved);
  resetEnv();
  await stub.close();
  await disconnectDb();
});
let mark = 0;
beforeEach(() => {
  mark = stub.requests.length;
});
const sent = () => stub.requests.slice(mark);

let seq = 0;
const request = (token: string, over: Partial<PaymentRequest> = {}): PaymentRequest => ({
  checkoutSessionId: `acs_${run}`,
  platformId: null,
  orderId: `cs_${`${run}${++seq}`.padEnd(24, "0").slice(0, 24)}`,
  amountCents: 1999,
  currency: "usd",
  buyerEmail: "agent-buyer@example.com",
  payment: { token, provider: "stripe" },
  destination: null,
  metadata: { affiliate: "agent-x", order_id: "passed by the session code" },
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

describe("preparePayment with Stripe (Shared Payment Tokens)", () => {
  it("creates and confirms one PaymentIntent with the token: amount, currency, token, metadata, an idempotency key per order", async () => {
    const req = request("spt_1RgaZcFPC5QUO6ZCDVZuVA8q");
    const prepared = await preparePayment(req);
    expect(prepared.provider).toBe("stripe");
    expect(prepared.providerPaymentId).toMatch(/^pi_acp_/);
    const calls = sent();
    expect(calls).toHaveLength(1);
    const [c] = calls;
    expect([c!.method, c!.path]).toEqual(["POST", "/v1/payment_intents"]);
    expect(c!.headers.authorization).toBe("Bearer sk_test_acp_suite");
    expect(c!.headers["idempotency-key"]).toMatch(new RegExp(`^acp-pay-${req.orderId}-[0-9a-f]{16}$`));
    const f = c!.form;
    expect(f.get("amount")).toBe("1999");
    expect(f.get("currency")).toBe("usd");
    expect(f.get("confirm")).toBe("true");
    expect(f.get("payment_method_data[shared_payment_granted_token]")).toBe("spt_1RgaZcFPC5QUO6ZCDVZuVA8q");
    expect(f.get("payment_method_types[0]")).toBe("card");
    expect(f.get("receipt_email")).toBe("agent-buyer@example.com");
    expect(f.get("metadata[acp_order_id]")).toBe(req.orderId);
    expect(f.get("metadata[acp_checkout_session_id]")).toBe(req.checkoutSessionId);
    expect(f.get("metadata[affiliate]")).toBe("agent-x");
    // Not the hosted checkout's order_id, even when the caller's metadata has one: see lib/acp/stripe-spt.ts.
    expect(f.get("metadata[order_id]")).toBeNull();
    // No connected account: a plain charge.
    expect(f.get("transfer_data[destination]")).toBeNull();
    expect(f.get("application_fee_amount")).toBeNull();
    expect(f.get("on_behalf_of")).toBeNull();
    // Commit changes nothing at Stripe; the money is taken.
    await getDb().$transaction((tx) => prepared.commit(tx, req.orderId));
    expect(sent()).toHaveLength(1);
  });

  it("a connected seller's sale is a destination charge: transfer_data, application_fee_amount, on_behalf_of", async () => {
    const req = request("spt_destination_ok", {
      amountCents: 2500,
      currency: "eur",
      destination: { accountId: "acct_seller_1", applicationFeeCents: 125 },
    });
    await preparePayment(req);
    const f = sent()[0]!.form;
    expect(f.get("amount")).toBe("2500");
    expect(f.get("currency")).toBe("eur");
    expect(f.get("transfer_data[destination]")).toBe("acct_seller_1");
    expect(f.get("application_fee_amount")).toBe("125");
    expect(f.get("on_behalf_of")).toBe("acct_seller_1");
  });

  it("abort refunds the PaymentIntent (reversing the transfer and fee of a destination charge), best effort", async () => {
    const plain = await preparePayment(request("spt_abort_plain"));
    const dest = await preparePayment(request("spt_abort_dest", { destination: { accountId: "acct_seller_2", applicationFeeCents: 100 } }));
    mark = stub.requests.length;
    await plain.abort("license could not be issued");
    await dest.abort("license could not be issued");
    const refunds = sent();
    expect(refunds.map((r) => r.path)).toEqual(["/v1/refunds", "/v1/refunds"]);
    expect(refunds[0]!.form.get("payment_intent")).toBe(plain.providerPaymentId);
    expect(refunds[0]!.form.get("reverse_transfer")).toBeNull();
    expect(refunds[0]!.headers["idempotency-key"]).toBe(`acp-abort-${plain.providerPaymentId}`);
    expect(refunds[1]!.form.get("payment_intent")).toBe(dest.providerPaymentId);
    expect(refunds[1]!.form.get("reverse_transfer")).toBe("true");
    expect(refunds[1]!.form.get("refund_application_fee")).toBe("true");
  });

  it("refusals: declined 402, authentication needed 402 (cancelled), Stripe refusing the token 400, Stripe down 502, wrong tokens 400", async () => {
    const cases: Array<[PaymentRequest, string, number]> = [
      [request("spt_declined_1"), "payment_declined", 402],
      [request("spt_3ds_needed_1"), "payment_requires_action", 402],
      [request("spt_revoked_1"), "payment_token_invalid", 400],
      [request("spt_down_outage_1"), "payment_provider_unavailable", 502],
      // Stripe not taking the parameter is our configuration's fault, not the token's.
      [request("spt_unsupported_1"), "payment_provider_unavailable", 502],
      [request("spt_short_amount_1"), "payment_provider_unavailable", 502],
      [request("vt_000000000000000000000000"), "payment_token_invalid", 400],
      [request("pm_card_visa"), "payment_token_invalid", 400],
      [
        request("vt_000000000000000000000000", { payment: { token: "vt_000000000000000000000000", provider: "test" } }),
        "payment_provider_mismatch",
        400,
      ],
    ];
    for (const [req, code, status] of cases) {
      const e = await refusal(preparePayment(req));
      expect([e.code, e.status], req.payment.token).toEqual([code, status]);
    }
    const declined = await refusal(preparePayment(request("spt_declined_2")));
    expect(declined.detail).toContain("insufficient_funds");
    // The PaymentIntent that needs authentication is cancelled; the short one is refunded; tokens we refuse never reach Stripe.
    const paths = stub.requests.slice(mark).map((r) => `${r.method} ${r.path}`);
    expect(paths.filter((p) => /^POST \/v1\/payment_intents\/pi_.*\/cancel$/.test(p))).toHaveLength(1);
    expect(paths.filter((p) => p === "POST /v1/refunds")).toHaveLength(1);
    const tokens = stub.requests.slice(mark).map((r) => r.form.get("payment_method_data[shared_payment_granted_token]"));
    expect(tokens).not.toContain("vt_000000000000000000000000");
    expect(tokens).not.toContain("pm_card_visa");
  });

  it("the test vault is off with Stripe: delegate_payment answers 400 test_vault_unavailable", async () => {
    const r = await call(delegateRoute, "/api/acp/agentic_commerce/delegate_payment", {
      method: "POST",
      headers: { "idempotency-key": `k-${run}`, "api-version": "2026-04-17" },
      json: {
        payment_method: { type: "card", card_number_type: "fpan", number: "4242424242424242", display_card_funding_type: "credit", metadata: {} },
        allowance: {
          reason: "one_time",
          max_amount: 100,
          currency: "usd",
          checkout_session_id: "acs_x",
          merchant_id: "m",
          expires_at: new Date(Date.now() + 60_000).toISOString(),
        },
        risk_signals: [{ type: "card_testing", score: 0, action: "authorized" }],
        metadata: {},
      },
    });
    expect(r.status, r.text).toBe(400);
    // Not one of the six codes the delegate payment Error allows: invalid_card, ours at the end of the message.
    expect(r.body).toMatchObject({ type: "invalid_request", code: "invalid_card", message: expect.stringMatching(/\(test_vault_unavailable\)$/) });
  });
});

describe("Stripe webhooks after an ACP payment", () => {
  let eventSeq = 0;
  const event = (type: string, object: unknown) => ({
    id: `evt_acp_${run}_${++eventSeq}`,
    object: "event",
    type,
    api_version: "2026-10-28.endive",
    created: Math.floor(Date.now() / 1000),
    data: { object },
  });
  function deliver(e: unknown) {
    const payload = JSON.stringify(e);
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    return call(webhook, "/api/webhooks/stripe", {
      method: "POST",
      body: payload,
      headers: { "content-type": "application/json", "stripe-signature": header },
    });
  }

  /** An order as ACP's complete leaves it: paid through a PaymentIntent confirmed with a Shared Payment Token. */
  async function acpOrder() {
    const product = await getDb().product.findUniqueOrThrow({ where: { id: productId } });
    const req = request("spt_webhooks_ok", { amountCents: product.priceCents });
    const prepared = await preparePayment(req);
    await getDb().order.create({
      data: {
        id: req.orderId,
        productId,
        buyerEmail: `acp-${run}-${seq}@example.com`,
        provider: "stripe",
        quantity: 1,
        subtotalCents: product.priceCents,
        amountCents: product.priceCents,
        feeCents: platformFeeCents(product.priceCents),
        currency: product.currency,
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    await getDb().$transaction(async (tx) => {
      await prepared.commit(tx, req.orderId);
      await fulfilOrder(tx, req.orderId, new Date(), { providerPaymentId: prepared.providerPaymentId, taxCents: null });
    });
    return { orderId: req.orderId, pi: prepared.providerPaymentId, amount: product.priceCents, currency: product.currency };
  }

  it("payment_intent.succeeded and charge.succeeded for it are recorded and ignored: no second fulfilment", async () => {
    const o = await acpOrder();
    const before = await getDb().order.findUniqueOrThrow({ where: { id: o.orderId } });
    expect(before).toMatchObject({ status: "paid", providerPaymentId: o.pi });
    const pi = {
      id: o.pi,
      object: "payment_intent",
      status: "succeeded",
      amount: o.amount,
      currency: o.currency,
      metadata: { acp_order_id: o.orderId },
    };
    const charge = {
      id: `ch_${run}`,
      object: "charge",
      payment_intent: o.pi,
      amount: o.amount,
      amount_refunded: 0,
      currency: o.currency,
      metadata: {},
    };
    for (const e of [event("payment_intent.succeeded", pi), event("charge.succeeded", charge), event("payment_intent.created", pi)]) {
      const r = await deliver(e);
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ received: true, fulfilled: false, applied: false });
    }
    expect(await getDb().license.count({ where: { orderId: o.orderId } })).toBe(1);
    const after = await getDb().order.findUniqueOrThrow({ where: { id: o.orderId } });
    expect(after.paidAt).toEqual(before.paidAt);
  });

  it("a refund made in Stripe's dashboard finds the order by its PaymentIntent", async () => {
    const o = await acpOrder();
    const charge = {
      id: `ch_r_${run}`,
      object: "charge",
      payment_intent: o.pi,
      amount: o.amount,
      amount_refunded: o.amount,
      currency: o.currency,
      metadata: {},
    };
    const r = await deliver(event("charge.refunded", charge));
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ applied: true });
    expect((await getDb().order.findUniqueOrThrow({ where: { id: o.orderId } })).refundedCents).toBe(o.amount);
  });

  it("the refund of an aborted payment (its order never paid) is not this marketplace's business, not an event waiting forever", async () => {
    const req = request("spt_webhooks_aborted");
    const prepared = await preparePayment(req);
    // The order the payment was for, left unpaid (failed) because fulfilment failed.
    await getDb().order.create({
      data: {
        id: req.orderId,
        productId,
        buyerEmail: `acp-aborted-${run}@example.com`,
        provider: "stripe",
        status: "failed",
        quantity: 1,
        subtotalCents: 1999,
        amountCents: 1999,
        feeCents: platformFeeCents(1999),
        currency: "usd",
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    await prepared.abort("fulfilment failed");
    const charge = {
      id: `ch_a_${run}`,
      object: "charge",
      payment_intent: prepared.providerPaymentId,
      amount: 1999,
      amount_refunded: 1999,
      currency: "usd",
      metadata: {},
    };
    const r = await deliver(event("charge.refunded", charge));
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ applied: false });
  });
});
