import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import Stripe from "stripe";
import { POST as create } from "@/app/api/checkout/create/route";
import { GET as status } from "@/app/api/checkout/[session_id]/route";
import { POST as webhook } from "@/app/api/webhooks/stripe/route";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { createDeveloperProfile } from "@/lib/selling/developer-profile";
import { createProduct } from "@/lib/selling/products";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { call, expectProblem } from "../helpers/http";
import { startStripeStub } from "../helpers/stripe-stub";
import { SELLER_TRUST } from "../helpers/sellers";

const SECRET = "whsec_test_secret_for_the_suite";
let stub: Awaited<ReturnType<typeof startStripeStub>>;
let failStub = false;
const saved = { ...process.env };
const signer = new Stripe("sk_test_unused");

beforeAll(async () => {
  stub = await startStripeStub({ fail: () => failStub });
  process.env.STRIPE_SECRET_KEY = "sk_test_suite";
  process.env.STRIPE_WEBHOOK_SECRET = SECRET;
  process.env.STRIPE_API_BASE = stub.base;
  resetEnv();
});
beforeEach(() => {
  failStub = false;
});
afterAll(async () => {
  for (const k of ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_API_BASE"]) {
    if (saved[k] === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = saved[k];
  }
  resetEnv();
  await stub.close();
  await disconnectDb();
});

async function openStripeCheckout(email = `stripe-${Date.now()}-${Math.random()}@example.com`) {
  const p = await getDb().product.findFirstOrThrow({ where: { status: "active" }, orderBy: { priceCents: "asc" } });
  const r = await call(create, "/api/checkout/create", { method: "POST", json: { product_id: p.id, buyer_email: email, agent_id: "agent-s" } });
  expect(r.status, r.text).toBe(200);
  const order = await getDb().order.findUniqueOrThrow({ where: { id: r.body.session_id } });
  return { product: p, order, reply: r.body };
}

let eventSeq = 0;
function sessionEvent(
  type: string,
  order: { id: string; providerSessionId: string | null; amountCents: number },
  over: Record<string, unknown> = {},
) {
  return {
    id: `evt_test_${Date.now()}_${++eventSeq}`,
    object: "event",
    type,
    api_version: "2025-01-01",
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: order.providerSessionId,
        object: "checkout.session",
        payment_status: "paid",
        status: "complete",
        amount_total: order.amountCents,
        currency: "usd",
        client_reference_id: order.id,
        metadata: { order_id: order.id },
        ...over,
      },
    },
  };
}

function deliver(event: unknown, opts: { tamper?: (payload: string) => string; secret?: string; header?: string | null } = {}) {
  const payload = JSON.stringify(event);
  const header = opts.header !== undefined ? opts.header : signer.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? SECRET });
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (header !== null) headers["stripe-signature"] = header;
  return call(webhook, "/api/webhooks/stripe", { method: "POST", body: opts.tamper ? opts.tamper(payload) : payload, headers });
}

describe("Stripe Checkout sessions", () => {
  it("are created through the real SDK with the line item, the buyer, our session id and return URLs", async () => {
    const before = stub.requests.length;
    const { order, product, reply } = await openStripeCheckout("prefill@example.com");
    const req = stub.requests[before]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/checkout/sessions");
    expect(req.headers.authorization).toBe("Bearer sk_test_suite");
    expect(req.headers["idempotency-key"]).toBe(`checkout-${order.id}`);
    const f = req.form;
    expect(f.get("mode")).toBe("payment");
    expect(f.get("line_items[0][price_data][unit_amount]")).toBe(String(product.priceCents));
    expect(f.get("line_items[0][price_data][currency]")).toBe("usd");
    expect(f.get("line_items[0][price_data][product_data][name]")).toBe(product.name);
    expect(f.get("line_items[0][quantity]")).toBe("1");
    expect(f.get("customer_email")).toBe("prefill@example.com");
    expect(f.get("client_reference_id")).toBe(order.id);
    expect(f.get("metadata[order_id]")).toBe(order.id);
    expect(f.get("metadata[agent_id]")).toBe("agent-s");
    expect(f.get("success_url")).toBe(`http://localhost:3000/checkout/${order.id}/success`);
    expect(f.get("cancel_url")).toBe(`http://localhost:3000/checkout/${order.id}/cancelled`);
    expect(reply.url).toBe(`https://checkout.stripe.com/c/pay/${order.providerSessionId}`);
    expect(order).toMatchObject({ provider: "stripe", status: "open", checkoutUrl: reply.url });
    // A seller without a connected account (the demo catalogue): a plain charge to the platform, tax explicitly off.
    expect(f.get("payment_intent_data[transfer_data][destination]")).toBeNull();
    expect(f.get("payment_intent_data[application_fee_amount]")).toBeNull();
    expect(f.get("payment_intent_data[on_behalf_of]")).toBeNull();
    expect(f.get("automatic_tax[enabled]")).toBe("false");
    expect(order.payoutAccountId).toBeNull();
  });

  it("answer 502 and mark the order failed when Stripe cannot be reached", async () => {
    failStub = true;
    const p = await getDb().product.findFirstOrThrow({ where: { status: "active" } });
    const before = await getDb().order.count({ where: { status: "failed" } });
    const r = await call(create, "/api/checkout/create", { method: "POST", json: { product_id: p.id, buyer_email: "down@example.com" } });
    expectProblem(r, 502, "payment_provider_unavailable");
    expect(await getDb().order.count({ where: { status: "failed" } })).toBe(before + 1);
  });
});

describe("Stripe webhooks", () => {
  it("fulfil a completed session once: one license, one e-mail, 2xx after the commit", async () => {
    const { order } = await openStripeCheckout();
    const event = sessionEvent("checkout.session.completed", order);
    const r = await deliver(event);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ received: true, applied: true, fulfilled: true, duplicate: false });
    const license = await getDb().license.findUniqueOrThrow({ where: { orderId: order.id } });
    expect(license.maxMachines).toBeGreaterThan(0);
    expect(await getDb().emailMessage.count({ where: { dedupeKey: `license:${order.id}` } })).toBe(1);
    const s = await call(status, "/x", { params: { session_id: order.id } });
    expect(s.body).toMatchObject({ status: "paid", provider: "stripe", license: { license_key: license.key } });

    const replay = await deliver(event);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ duplicate: true, fulfilled: false });
    expect(await getDb().license.count({ where: { orderId: order.id } })).toBe(1);
  });

  it("apply concurrent duplicate deliveries exactly once", async () => {
    const { order } = await openStripeCheckout();
    const event = sessionEvent("checkout.session.completed", order);
    const replies = await Promise.all(Array.from({ length: 8 }, () => deliver(event)));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(replies.filter((r) => r.body.fulfilled)).toHaveLength(1);
    expect(await getDb().license.count({ where: { orderId: order.id } })).toBe(1);
    expect(await getDb().emailMessage.count({ where: { dedupeKey: `license:${order.id}` } })).toBe(1);
    expect(await getDb().paymentEvent.count({ where: { id: `stripe:${event.id}` } })).toBe(1);
  });

  it("refuse forged, tampered, unsigned and stale deliveries with 400 and change nothing", async () => {
    const { order } = await openStripeCheckout();
    const event = sessionEvent("checkout.session.completed", order);
    const forged = await deliver(event, { secret: "whsec_attacker" });
    expectProblem(forged, 400, "invalid_signature");
    const tampered = await deliver(event, { tamper: (p) => p.replace(`"amount_total":${order.amountCents}`, '"amount_total":1') });
    expectProblem(tampered, 400, "invalid_signature");
    expectProblem(await deliver(event, { header: null }), 400, "invalid_signature");
    const stale = signer.webhooks.generateTestHeaderString({
      payload: JSON.stringify(event),
      secret: SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    expectProblem(await deliver(event, { header: stale }), 400, "invalid_signature");
    expect(await getDb().license.count({ where: { orderId: order.id } })).toBe(0);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe("open");
    expect(await getDb().paymentEvent.count({ where: { id: `stripe:${event.id}` } })).toBe(0);
  });

  it("handle delayed payments, failures, expiry and events out of order", async () => {
    const a = (await openStripeCheckout()).order;
    const pending = await deliver(sessionEvent("checkout.session.completed", a, { payment_status: "unpaid" }));
    expect(pending.body).toMatchObject({ fulfilled: false });
    expect((await getDb().order.findUniqueOrThrow({ where: { id: a.id } })).status).toBe("open");
    expect((await deliver(sessionEvent("checkout.session.async_payment_succeeded", a))).body.fulfilled).toBe(true);
    // An expiry arriving late never downgrades a paid order.
    await deliver(sessionEvent("checkout.session.expired", a, { status: "expired", payment_status: "unpaid" }));
    expect((await getDb().order.findUniqueOrThrow({ where: { id: a.id } })).status).toBe("paid");

    const b = (await openStripeCheckout()).order;
    await deliver(sessionEvent("checkout.session.async_payment_failed", b, { payment_status: "unpaid" }));
    expect((await getDb().order.findUniqueOrThrow({ where: { id: b.id } })).status).toBe("failed");

    const c = (await openStripeCheckout()).order;
    await deliver(sessionEvent("checkout.session.expired", c, { status: "expired", payment_status: "unpaid" }));
    expect((await getDb().order.findUniqueOrThrow({ where: { id: c.id } })).status).toBe("expired");
    // Money taken after expiry (the buyer finished paying) is still honoured.
    expect((await deliver(sessionEvent("checkout.session.completed", c))).body.fulfilled).toBe(true);
  });

  it("never fulfil a payment that does not match the order", async () => {
    const { order } = await openStripeCheckout();
    const r = await deliver(sessionEvent("checkout.session.completed", order, { amount_total: 1 }));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ fulfilled: false, reason: "amount_mismatch" });
    const other = await deliver(sessionEvent("checkout.session.completed", { ...order, providerSessionId: "cs_test_someone_else" }));
    expect(other.body).toMatchObject({ fulfilled: false, reason: "session_mismatch" });
    const unknown = await deliver(
      sessionEvent(
        "checkout.session.completed",
        { ...order, id: "cs_AAAAAAAAAAAAAAAAAAAAAAAA" },
        { metadata: { order_id: "cs_AAAAAAAAAAAAAAAAAAAAAAAA" }, client_reference_id: null },
      ),
    );
    expect(unknown.status).toBe(200);
    expect(unknown.body.reason).toBe("unknown_order");
    const ignored = await deliver({ ...sessionEvent("customer.created", order), data: { object: { id: "cus_1", object: "customer" } } });
    expect(ignored.status).toBe(200);
    expect(await getDb().license.count({ where: { orderId: order.id } })).toBe(0);
  });

  it("never fulfil a signed completion without an amount, in another currency, or not paid (answered 200: a retry would not change it)", async () => {
    const { order } = await openStripeCheckout();
    const refused = [
      [{ amount_total: null }, "amount_mismatch"],
      [{ currency: null }, "amount_mismatch"],
      [{ currency: "eur" }, "amount_mismatch"],
      [{ amount_total: order.amountCents + 1 }, "amount_mismatch"],
      [{ payment_status: "no_payment_required" }, "not_paid"],
      [{ payment_status: null }, "not_paid"],
    ] as const;
    for (const [over, reason] of refused) {
      const r = await deliver(sessionEvent("checkout.session.completed", order, over));
      expect(r.status, `${JSON.stringify(over)}: ${r.text}`).toBe(200);
      expect(r.body, JSON.stringify(over)).toMatchObject({ received: true, applied: false, fulfilled: false, reason });
    }
    // A delayed payment reported as succeeded while the session still says unpaid is not a payment either.
    const asyncUnpaid = await deliver(sessionEvent("checkout.session.async_payment_succeeded", order, { payment_status: "unpaid" }));
    expect(asyncUnpaid.body).toMatchObject({ fulfilled: false, reason: "not_paid" });

    expect(await getDb().license.count({ where: { orderId: order.id } })).toBe(0);
    expect(await getDb().emailMessage.count({ where: { dedupeKey: `license:${order.id}` } })).toBe(0);
    expect(await getDb().order.findUniqueOrThrow({ where: { id: order.id } })).toMatchObject({ status: "open", paidAt: null });

    // The order itself was never the problem: the genuine payment (amount, currency and status all right) fulfils it.
    const genuine = await deliver(sessionEvent("checkout.session.completed", order, { currency: "USD" }));
    expect(genuine.body).toMatchObject({ applied: true, fulfilled: true });
    expect(await getDb().license.count({ where: { orderId: order.id } })).toBe(1);
  });
});

describe("Stripe Connect sales: destination charges, seats, coupons and tax", () => {
  const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  /** A seller whose Stripe Express account is ready (as account.updated would have left it), with a per-seat EUR product. */
  async function connectedSeller() {
    const id = unique();
    const dev = await createDeveloperProfile(`connect-${id}@example.com`, { ...SELLER_TRUST, name: `Connect Studio ${id}`, website: null, bio: "" });
    const account = await getDb().payoutAccount.create({
      data: {
        id: `acct_${id}`,
        developerId: dev.id,
        provider: "stripe",
        chargesEnabled: true,
        payoutsEnabled: true,
        detailsSubmitted: true,
        requirementsDue: [],
      },
    });
    const product = await createProduct(
      dev.id,
      productInputSchema.parse({
        name: `Team Mixer ${id}`,
        description: "A per-seat product sold through Stripe Connect in these tests.",
        plugin_id: `com.connect.p${id}`,
        price_cents: 2500,
        currency: "eur",
        category: "audio-plugins",
        max_machines: 1,
        seat_model: "per-seat",
        platforms: ["macos"],
        download_url: "https://example.com/download",
        icon_url: "/icons/tape-warmth.svg",
      }),
      { publish: true },
    );
    return { dev, account, product };
  }

  async function open(productId: string, extra: Record<string, unknown>) {
    const before = stub.requests.length;
    const r = await call(create, "/api/checkout/create", {
      method: "POST",
      json: { product_id: productId, buyer_email: `connect-${unique()}@example.com`, ...extra },
    });
    expect(r.status, r.text).toBe(200);
    const order = await getDb().order.findUniqueOrThrow({ where: { id: r.body.session_id } });
    return { order, form: stub.requests[before]!.form };
  }

  function withTax(on: boolean) {
    process.env.STRIPE_TAX = on ? "on" : "off";
    resetEnv();
  }

  it("send the seats at the discounted total as one line, a destination charge with the fee and on_behalf_of, and automatic tax with the seller liable", async () => {
    const { account, product, dev } = await connectedSeller();
    const code = `TEAM${unique()}`.slice(0, 20).toUpperCase();
    await getDb().coupon.create({ data: { developerId: dev.id, code, kind: "percent", percentOff: 20, productIds: [product.id] } });
    withTax(true);
    try {
      const { order, form: f } = await open(product.id, { quantity: 2, coupon_code: code.toLowerCase() });
      // 2 seats × 25.00 = 50.00, 20 % off = 40.00 paid, fee 5 % = 2.00.
      expect(order).toMatchObject({
        quantity: 2,
        subtotalCents: 5000,
        discountCents: 1000,
        amountCents: 4000,
        feeCents: 200,
        payoutAccountId: account.id,
      });
      expect(f.get("line_items[0][quantity]")).toBe("1");
      expect(f.get("line_items[0][price_data][unit_amount]")).toBe("4000");
      expect(f.get("line_items[0][price_data][currency]")).toBe("eur");
      expect(f.get("line_items[0][price_data][tax_behavior]")).toBe("exclusive");
      expect(f.get("line_items[0][price_data][product_data][name]")).toBe(`${product.name} — 2 seats (coupon ${code})`);
      expect(f.get("payment_intent_data[transfer_data][destination]")).toBe(account.id);
      expect(f.get("payment_intent_data[application_fee_amount]")).toBe("200");
      expect(f.get("payment_intent_data[on_behalf_of]")).toBe(account.id);
      expect(f.get("automatic_tax[enabled]")).toBe("true");
      expect(f.get("automatic_tax[liability][type]")).toBe("account");
      expect(f.get("automatic_tax[liability][account]")).toBe(account.id);
      expect(f.get("metadata[quantity]")).toBe("2");
      expect(f.get("metadata[coupon_code]")).toBe(code);

      // The completion carries the tax Stripe added on top. Tax standing in for part of the price is refused.
      const paid = { currency: "eur", payment_intent: `pi_${unique()}`, automatic_tax: { enabled: true, status: "complete" } };
      const noSubtotal = await deliver(
        sessionEvent("checkout.session.completed", order, { ...paid, amount_total: 4760, total_details: { amount_tax: 760 } }),
      );
      expect(noSubtotal.body).toMatchObject({ fulfilled: false, reason: "amount_mismatch" });
      const shifted = await deliver(
        sessionEvent("checkout.session.completed", order, { ...paid, amount_subtotal: 3240, amount_total: 4000, total_details: { amount_tax: 760 } }),
      );
      expect(shifted.body).toMatchObject({ fulfilled: false, reason: "amount_mismatch" });
      const genuine = await deliver(
        sessionEvent("checkout.session.completed", order, { ...paid, amount_subtotal: 4000, amount_total: 4760, total_details: { amount_tax: 760 } }),
      );
      expect(genuine.body, genuine.text).toMatchObject({ applied: true, fulfilled: true });

      const after = await getDb().order.findUniqueOrThrow({ where: { id: order.id } });
      expect(after).toMatchObject({ status: "paid", taxCents: 760, providerPaymentId: paid.payment_intent });
      const ledger = await getDb().ledgerEntry.findMany({ where: { orderId: order.id } });
      expect(Object.fromEntries(ledger.map((e) => [e.kind, [e.amountMinor, e.currency]]))).toEqual({
        sale: [5000, "eur"],
        discount: [-1000, "eur"],
        platform_fee: [-200, "eur"],
        tax: [760, "eur"],
      });
      const s = await call(status, "/x", { params: { session_id: order.id } });
      expect(s.body).toMatchObject({
        quantity: 2,
        subtotal_cents: 5000,
        discount_cents: 1000,
        coupon_code: code,
        amount_cents: 4000,
        tax_cents: 760,
      });
      expect(s.body.license.max_machines).toBe(2);
    } finally {
      withTax(false);
    }
  });

  it("without a coupon send the seats as the line's quantity; tax off is not calculated; an account that is not ready gets a plain charge", async () => {
    const { account, product } = await connectedSeller();
    const { order, form: f } = await open(product.id, { quantity: 3 });
    expect(f.get("line_items[0][quantity]")).toBe("3");
    expect(f.get("line_items[0][price_data][unit_amount]")).toBe("2500");
    expect(f.get("line_items[0][price_data][tax_behavior]")).toBeNull();
    expect(f.get("payment_intent_data[transfer_data][destination]")).toBe(account.id);
    expect(f.get("payment_intent_data[application_fee_amount]")).toBe("375");
    expect(f.get("automatic_tax[enabled]")).toBe("false");
    expect(f.get("automatic_tax[liability][type]")).toBeNull();
    const done = await deliver(
      sessionEvent("checkout.session.completed", order, {
        currency: "eur",
        amount_subtotal: 7500,
        amount_total: 7500,
        total_details: { amount_tax: 0 },
      }),
    );
    expect(done.body).toMatchObject({ fulfilled: true });
    expect((await getDb().order.findUniqueOrThrow({ where: { id: order.id } })).taxCents).toBeNull();

    await getDb().payoutAccount.update({ where: { id: account.id }, data: { payoutsEnabled: false } });
    const plain = await open(product.id, {});
    expect(plain.order.payoutAccountId).toBeNull();
    expect(plain.form.get("payment_intent_data[transfer_data][destination]")).toBeNull();
    expect(plain.form.get("payment_intent_data[on_behalf_of]")).toBeNull();
  });

  it("give a coupon's redemption back once when Stripe expires the session, also when the event is delivered twice", async () => {
    const { product, dev } = await connectedSeller();
    const code = `ONCE${unique()}`.slice(0, 20).toUpperCase();
    const coupon = await getDb().coupon.create({
      data: { developerId: dev.id, code, kind: "amount", amountOffMinor: 500, currency: "eur", productIds: [], maxRedemptions: 1 },
    });
    const { order } = await open(product.id, { coupon_code: code });
    expect(order.amountCents).toBe(2000);
    expectProblem(
      await call(create, "/api/checkout/create", {
        method: "POST",
        json: { product_id: product.id, buyer_email: "late@example.com", coupon_code: code },
      }),
      404,
      "coupon_not_found",
    );
    const expired = sessionEvent("checkout.session.expired", order, { status: "expired", payment_status: "unpaid", currency: "eur" });
    await Promise.all([deliver(expired), deliver(expired)]);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: order.id } })).status).toBe("expired");
    expect((await getDb().coupon.findUniqueOrThrow({ where: { id: coupon.id } })).redemptions).toBe(0);
    await open(product.id, { coupon_code: code });
    expect((await getDb().coupon.findUniqueOrThrow({ where: { id: coupon.id } })).redemptions).toBe(1);
  });
});
