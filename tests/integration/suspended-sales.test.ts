import { renderToStaticMarkup } from "react-dom/server";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as pay } from "@/app/checkout/[session_id]/pay/route";
import { POST as webhook } from "@/app/api/webhooks/stripe/route";
import CheckoutSuccessPage from "@/app/checkout/[session_id]/success/page";
import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { createCheckout, openOrderData } from "@/lib/checkout/create-checkout";
import { buyableProduct, priceCheckout } from "@/lib/checkout/quote-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { createCoupon } from "@/lib/coupons/manage-coupons";
import { createCouponInputSchema } from "@/lib/coupons/schemas";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { ADMIN } from "@/lib/operations/admin";
import { restRoutes } from "@/lib/transports/rest";
import { call, type Reply } from "../helpers/http";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";
import { startStripeStub } from "../helpers/stripe-stub";

/**
 * A checkout opened before the operator suspends its seller or removes its listing never becomes a license: the
 * suspension or removal closes it (its coupon redemption given back, Stripe's session expired), and a payment that
 * arrives anyway (a checkout that slipped in while the suspension committed, a Stripe session paid just before it
 * expired) is refunded whole through the refund machinery, once, with no license issued. Both engines.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ADMIN_EMAIL = `ops-sales-${run}@example.com`;
const PRICE = 2000;
const saved = { ...process.env };
let adminCookie = "";
let seq = 0;

async function signIn(email: string): Promise<string> {
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const s = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? "");
  return `${s.cookieName}=${s.cookieValue}`;
}

/** An operator's console call over REST, as the console's API takes it. */
async function admin(id: "suspendSeller" | "removeProduct", target: string, reason: string): Promise<Reply> {
  const op = ADMIN.find((o) => o.id === id)!;
  const http = op.http!;
  const path = http.path.replace("{id}", encodeURIComponent(target));
  const headers = { cookie: adminCookie, [CLIENT_ADDRESS_HEADER]: "198.51.100.21" };
  return call(restRoutes(http.path)[http.method], path, { method: http.method, headers, params: { id: target }, json: { reason } });
}

/** A seller who may sell, with one paid listing and a coupon on it (10 % off, at most 5 uses). */
async function shop(name: string) {
  const n = ++seq;
  const dev = await sellingDeveloper(`sales-${name}-${n}-${run}@example.com`, { name: `Sales ${name} ${n} ${run}`, website: null, bio: "" });
  const product = await createTestProduct(dev.id, `Salesprobe ${name} ${n} ${run}`, `com.sales.${name}${n}${run}`, { price_cents: PRICE });
  const code = `HOLD${n}${run}`.slice(0, 32).toUpperCase();
  const coupon = await createCoupon(dev.id, createCouponInputSchema.parse({ code, kind: "percent", percent_off: 10, max_redemptions: 5 }));
  return { developerId: dev.id, productId: product.id, couponId: coupon.id, code };
}

const buyer = () => `sales-buyer-${++seq}-${run}@example.com`;
const redemptions = async (couponId: string) => (await getDb().coupon.findUniqueOrThrow({ where: { id: couponId } })).redemptions;
const order = (id: string) => getDb().order.findUniqueOrThrow({ where: { id }, include: { license: true, refunds: true } });
const pressPay = (id: string) => call(pay, `/checkout/${id}/pay`, { method: "POST", params: { session_id: id } });

/**
 * The checkout that slips past the closing: it read the listing (buyableProduct, priceCheckout) just before the
 * operator acted, and records its open order just after, exactly as createCheckout does in that instant.
 */
async function racingCheckout(productId: string) {
  const product = await buyableProduct(productId);
  const priced = await priceCheckout(product, 1);
  return async () =>
    (
      await getDb().order.create({
        data: openOrderData({
          product,
          priced,
          buyerEmail: buyer(),
          agentId: null,
          provider: "test",
          payoutAccountId: null,
          expiresAt: new Date(Date.now() + 3_600_000),
        }),
      })
    ).id;
}

/** The order's ledger adds up to nothing: the sale and its fee, then the refund of both. */
async function ledgerSum(orderId: string) {
  const rows = await getDb().ledgerEntry.findMany({ where: { orderId } });
  return { kinds: rows.map((r) => r.kind).sort(), sum: rows.reduce((s, r) => s + r.amountMinor, 0) };
}

/** What a payment refused and refunded leaves: no license nor its mail, the whole payment back once, the reason on record. */
async function expectRefusedAndRefunded(orderId: string, reason: "seller_suspended" | "product_removed") {
  const o = await order(orderId);
  expect(o.license).toBeNull();
  expect(await getDb().emailMessage.count({ where: { dedupeKey: `license:${orderId}` } })).toBe(0);
  expect(o.status).toBe("paid");
  expect(o.refundedCents).toBe(o.amountCents + (o.taxCents ?? 0));
  expect(o.refunds).toHaveLength(1);
  expect(o.refunds[0]).toMatchObject({ status: "succeeded", amountCents: o.refundedCents, initiatedBy: "operator", actorEmail: null });
  expect(o.refunds[0]!.reason).toMatch(new RegExp(`^${reason}: `));
  const mail = await getDb().emailMessage.findUniqueOrThrow({ where: { dedupeKey: `refund:${o.refunds[0]!.id}` } });
  expect(mail.to).toBe(o.buyerEmail);
  expect(mail.text).toContain("No license key was issued");
  const ledger = await ledgerSum(orderId);
  expect(ledger.kinds).toEqual(expect.arrayContaining(["sale", "platform_fee", "refund", "fee_refund"]));
  expect(ledger.sum).toBe(0);
  const events = await getDb().paymentEvent.findMany({ where: { orderId } });
  expect(events.map((e) => e.outcome)).toContainEqual(expect.stringContaining(reason));
  return o;
}

beforeAll(async () => {
  process.env.ADMIN_EMAILS = ADMIN_EMAIL;
  resetEnv();
  adminCookie = await signIn(ADMIN_EMAIL);
});

afterAll(async () => {
  for (const k of ["ADMIN_EMAILS", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_API_BASE"]) {
    if (saved[k] === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = saved[k];
  }
  resetEnv();
  await disconnectDb();
});

describe("test mode: a checkout opened before the operator acts", () => {
  it("suspending the seller closes it (its coupon redemption back); Pay then issues no license", async () => {
    const s = await shop("suspend");
    const { session_id } = await createCheckout({ product_id: s.productId, buyer_email: buyer(), coupon_code: s.code });
    expect(await redemptions(s.couponId)).toBe(1);

    const r = await admin("suspendSeller", s.developerId, "Selling counterfeit keys");
    expect(r.status, r.text).toBe(200);
    expect((await order(session_id)).status).toBe("cancelled");
    expect(await redemptions(s.couponId)).toBe(0);
    const audit = await getDb().auditEntry.findFirstOrThrow({ where: { targetId: s.developerId, action: "seller.suspend" } });
    expect(audit.detail).toMatchObject({ checkouts_closed: 1 });

    // The Pay button: refused (back to the checkout page, which says it is closed), nothing issued.
    const paid = await pressPay(session_id);
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`http://localhost:3000/checkout/${session_id}`);
    await expect(payTestCheckout(session_id)).rejects.toMatchObject({ status: 409, code: "checkout_cancelled" });
    const after = await order(session_id);
    expect(after.status).toBe("cancelled");
    expect(after.license).toBeNull();
    expect(await getDb().license.count({ where: { productId: s.productId } })).toBe(0);
    expect(await redemptions(s.couponId)).toBe(0);
  });

  it("a payment for a suspended seller's product that arrives anyway is refunded in full, once, and issues no license", async () => {
    const s = await shop("slip");
    const open = await racingCheckout(s.productId);
    expect((await admin("suspendSeller", s.developerId, "Chargebacks")).status).toBe(200);
    const orderId = await open();

    const paid = await pressPay(orderId);
    expect(paid.status).toBe(303);
    const o = await expectRefusedAndRefunded(orderId, "seller_suspended");
    expect(o.amountCents).toBe(PRICE);
    expect((await getDb().product.findUniqueOrThrow({ where: { id: s.productId } })).salesCount).toBe(0);
    // Where Pay lands: the page says the payment was refunded, instead of waiting for a key that will not come.
    expect(paid.headers.get("location")).toBe(`http://localhost:3000/checkout/${orderId}/success`);
    const page = renderToStaticMarkup(await CheckoutSuccessPage({ params: Promise.resolve({ session_id: orderId }) }));
    expect(page).toContain('data-testid="checkout-refunded"');
    expect(page).not.toContain("Waiting for payment confirmation");

    // Pressed again: the same payment, refunded once.
    await pressPay(orderId);
    expect(await payTestCheckout(orderId)).toMatchObject({ duplicate: true, fulfilled: false });
    expect(await getDb().refund.count({ where: { orderId } })).toBe(1);
    expect((await order(orderId)).license).toBeNull();
  });

  it("removing the listing closes it too, and a payment that arrives anyway is refunded, not licensed", async () => {
    const s = await shop("remove");
    const { session_id } = await createCheckout({ product_id: s.productId, buyer_email: buyer(), coupon_code: s.code });
    const open = await racingCheckout(s.productId);
    expect(await redemptions(s.couponId)).toBe(1);

    const r = await admin("removeProduct", s.productId, "Trademark complaint");
    expect(r.status, r.text).toBe(200);
    expect((await order(session_id)).status).toBe("cancelled");
    expect(await redemptions(s.couponId)).toBe(0);
    const audit = await getDb().auditEntry.findFirstOrThrow({ where: { targetId: s.productId, action: "product.remove" } });
    expect(audit.detail).toMatchObject({ checkouts_closed: 1 });

    const refused = await pressPay(session_id);
    expect(refused.headers.get("location")).toBe(`http://localhost:3000/checkout/${session_id}`);
    expect((await order(session_id)).license).toBeNull();

    const slipped = await open();
    await pressPay(slipped);
    await expectRefusedAndRefunded(slipped, "product_removed");
    await pressPay(slipped);
    expect(await getDb().refund.count({ where: { orderId: slipped } })).toBe(1);
    expect(await getDb().license.count({ where: { productId: s.productId } })).toBe(0);
  });
});

// --- Stripe, through the real SDK against the local stand-in ---

const SECRET = "whsec_suspended_sales";
const signer = new Stripe("sk_test_unused");

describe("Stripe: a session opened before the operator acts", () => {
  let stub: Awaited<ReturnType<typeof startStripeStub>>;
  let expireFails = false;
  const shops: Array<Awaited<ReturnType<typeof shop>>> = [];

  beforeAll(async () => {
    // Listed while test mode (and its payout account) is the provider; sold through Stripe as a plain charge.
    shops.push(await shop("stripe"), await shop("stripefail"));
    stub = await startStripeStub({
      routes: {
        "POST /v1/checkout/sessions/": (req) =>
          expireFails
            ? { status: 400, body: { error: { type: "invalid_request_error", message: "This Checkout Session is already complete." } } }
            : { body: { id: req.path.split("/")[4], object: "checkout.session", status: "expired", payment_status: "unpaid" } },
        "POST /v1/refunds": (req, n) => ({
          body: { id: `re_sales${n}`, object: "refund", amount: Number(req.form.get("amount")), status: "succeeded", metadata: {} },
        }),
      },
    });
    Object.assign(process.env, { STRIPE_SECRET_KEY: "sk_test_sales", STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_BASE: stub.base });
    resetEnv();
  });
  afterAll(async () => {
    for (const k of ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_API_BASE"]) {
      if (saved[k] === undefined) Reflect.deleteProperty(process.env, k);
      else process.env[k] = saved[k];
    }
    resetEnv();
    await stub.close();
  });

  const deliver = (event: unknown) => {
    const payload = JSON.stringify(event);
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    return call(webhook, "/api/webhooks/stripe", {
      method: "POST",
      body: payload,
      headers: { "content-type": "application/json", "stripe-signature": header },
    });
  };
  const completed = (o: { id: string; providerSessionId: string | null; amountCents: number }, pi: string) => ({
    id: `evt_sales_${run}_${++seq}`,
    object: "event",
    type: "checkout.session.completed",
    api_version: "2026-10-28.endive",
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: o.providerSessionId,
        object: "checkout.session",
        payment_status: "paid",
        status: "complete",
        amount_total: o.amountCents,
        currency: "usd",
        client_reference_id: o.id,
        metadata: { order_id: o.id },
        payment_intent: pi,
      },
    },
  });

  it("suspending the seller expires it; a completion that arrives anyway is refunded through Stripe once, with no license", async () => {
    const s = shops[0]!;
    const { session_id } = await createCheckout({ product_id: s.productId, buyer_email: buyer() });
    const opened = await order(session_id);
    expect(opened).toMatchObject({ provider: "stripe", status: "open" });
    const before = stub.requests.length;

    expect((await admin("suspendSeller", s.developerId, "Fraud reports")).status).toBe(200);
    expect((await order(session_id)).status).toBe("cancelled");
    const expired = stub.requests.slice(before).filter((r) => r.path === `/v1/checkout/sessions/${opened.providerSessionId}/expire`);
    expect(expired).toHaveLength(1);

    // The buyer paid just before the session expired: Stripe reports the completion.
    const pi = `pi_sales_${run}`;
    const event = completed(opened, pi);
    const r = await deliver(event);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ received: true, duplicate: false, fulfilled: false, reason: "seller_suspended" });
    const o = await expectRefusedAndRefunded(session_id, "seller_suspended");
    expect(o.providerPaymentId).toBe(pi);
    const asked = stub.requests.slice(before).filter((q) => q.method === "POST" && q.path === "/v1/refunds");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.form.get("payment_intent")).toBe(pi);
    expect(asked[0]!.form.get("amount")).toBe(String(o.amountCents));
    expect(asked[0]!.headers["idempotency-key"]).toBe(`refund-${o.refunds[0]!.id}`);
    expect(o.refunds[0]!.providerRefundId).toMatch(/^re_sales\d+$/);

    // Delivered again, and concurrently: the event is applied once, so the payment is refunded once.
    const again = await Promise.all([deliver(event), deliver(event)]);
    expect(again.map((a) => a.status)).toEqual([200, 200]);
    expect(again.every((a) => a.body.duplicate === true)).toBe(true);
    expect(stub.requests.slice(before).filter((q) => q.method === "POST" && q.path === "/v1/refunds")).toHaveLength(1);
    expect(await getDb().refund.count({ where: { orderId: session_id } })).toBe(1);
    expect(await getDb().license.count({ where: { orderId: session_id } })).toBe(0);
  });

  it("a removal whose session Stripe will not expire still succeeds and closes the order (the failure is logged)", async () => {
    const s = shops[1]!;
    const { session_id } = await createCheckout({ product_id: s.productId, buyer_email: buyer() });
    expireFails = true;
    try {
      const r = await admin("removeProduct", s.productId, "Malware report");
      expect(r.status, r.text).toBe(200);
      expect(r.body.product).toMatchObject({ status: "removed" });
    } finally {
      expireFails = false;
    }
    expect((await order(session_id)).status).toBe("cancelled");
  });
});
