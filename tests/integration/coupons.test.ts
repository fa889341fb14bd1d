import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as create } from "@/app/api/checkout/create/route";
import { POST as quote } from "@/app/api/checkout/quote/route";
import { POST as cancel } from "@/app/checkout/[session_id]/cancel/route";
import { GET as listRoute, POST as createRoute } from "@/app/api/v1/coupons/route";
import { POST as deactivateRoute } from "@/app/api/v1/coupons/[id]/deactivate/route";
import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { createProduct } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { applyPaymentEvent } from "@/lib/payments/apply-payment-event";
import { call, expectProblem } from "../helpers/http";
import { sellingDeveloper } from "../helpers/sellers";

afterAll(() => disconnectDb());

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

interface Seller {
  id: string;
  cookie: string;
  usd: { id: string; priceCents: number };
  eur: { id: string; priceCents: number };
}

async function newSeller(): Promise<Seller> {
  const id = unique();
  const email = `coupons-${id}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Coupon Studio ${id}`, website: null, bio: "" });
  const product = (n: string, price: number, currency: "usd" | "eur") =>
    createProduct(
      dev.id,
      productInputSchema.parse({
        name: `Coupon ${n} ${id}`,
        description: "A product sold with discount codes in these tests.",
        plugin_id: `com.coupons.${n}${id}`,
        price_cents: price,
        currency,
        category: "desktop-apps",
        max_machines: 2,
        seat_model: "per-machine",
        platforms: ["linux"],
        download_url: "https://example.com/download",
        icon_url: "/icons/tape-warmth.svg",
      }),
      { publish: true },
    );
  const usd = await product("usd", 1990, "usd");
  const eur = await product("eur", 1000, "eur");
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  return {
    id: dev.id,
    cookie: `${session.cookieName}=${session.cookieValue}`,
    usd: { id: usd.id, priceCents: usd.priceCents },
    eur: { id: eur.id, priceCents: eur.priceCents },
  };
}

const asSeller = (s: Seller) => ({ cookie: s.cookie, origin: "http://localhost:3000" });

async function newCoupon(s: Seller, body: Record<string, unknown>) {
  const r = await call(createRoute, "/api/v1/coupons", { method: "POST", json: body, headers: asSeller(s) });
  expect(r.status, r.text).toBe(201);
  return r.body.coupon as { id: string; code: string; redemptions: number };
}

function checkout(productId: string, extra: Record<string, unknown> = {}) {
  return call(create, "/api/checkout/create", {
    method: "POST",
    json: { product_id: productId, buyer_email: `buyer-${unique()}@example.com`, ...extra },
  });
}

const redemptions = async (couponId: string) => (await getDb().coupon.findUniqueOrThrow({ where: { id: couponId } })).redemptions;

let s: Seller;
let other: Seller;
beforeAll(async () => {
  s = await newSeller();
  other = await newSeller();
});

describe("creating coupons (seller API)", () => {
  it("stores the code upper case, refuses a code the seller already has, and validates kind, scope and expiry", async () => {
    const code = `launch${unique()}`.slice(0, 20);
    const c = await newCoupon(s, { code, kind: "percent", percent_off: 15 });
    expect(c).toMatchObject({ code: code.toUpperCase(), kind: "percent", percent_off: 15, redemptions: 0, product_ids: [], active: true });
    const post = (body: Record<string, unknown>, who = s) =>
      call(createRoute, "/api/v1/coupons", { method: "POST", json: body, headers: asSeller(who) });
    expectProblem(await post({ code: code.toLowerCase(), kind: "percent", percent_off: 5 }), 409, "coupon_code_taken");
    // Another seller may use the same code for their own products.
    expect((await post({ code, kind: "percent", percent_off: 5 }, other)).status).toBe(201);
    expectProblem(await post({ code: "NOPE", kind: "percent", percent_off: 0 }), 400, "invalid_body");
    expectProblem(await post({ code: "NOPE", kind: "percent", percent_off: 101 }), 400, "invalid_body");
    expectProblem(await post({ code: "NOPE", kind: "amount", amount_off_cents: 500 }), 400, "invalid_body");
    expectProblem(await post({ code: "NOPE", kind: "percent", percent_off: 10, currency: "usd" }), 400, "invalid_body");
    expectProblem(await post({ code: "no pe", kind: "percent", percent_off: 10 }), 400, "invalid_body");
    expectProblem(await post({ code: "AB", kind: "percent", percent_off: 10 }), 400, "invalid_body");
    expectProblem(await post({ code: "PAST", kind: "percent", percent_off: 10, expires_at: "2020-01-01T00:00:00Z" }), 400, "invalid_body");
    // Scope: only the seller's own products.
    expectProblem(await post({ code: "THEIRS", kind: "percent", percent_off: 10, product_ids: [other.usd.id] }), 400, "invalid_product_ids");
    // Without the session cookie: 401; from another site: refused before anything is written.
    expect((await call(createRoute, "/api/v1/coupons", { method: "POST", json: { code: "X1X", kind: "percent", percent_off: 1 } })).status).toBe(401);
    const list = await call(listRoute, "/api/v1/coupons", { headers: asSeller(s) });
    expect(list.status).toBe(200);
    expect(list.body.coupons.map((x: { code: string }) => x.code)).toContain(code.toUpperCase());
    expect(list.body.coupons.map((x: { code: string }) => x.code)).not.toContain("NOPE");
  });

  it("deactivate: the seller's own coupon only (another seller's is 404), idempotent; a deactivated code is unknown to buyers", async () => {
    const c = await newCoupon(s, { code: `OFF${unique()}`.slice(0, 20), kind: "percent", percent_off: 10 });
    const path = `/api/v1/coupons/${c.id}/deactivate`;
    expectProblem(await call(deactivateRoute, path, { method: "POST", headers: asSeller(other), params: { id: c.id } }), 404, "coupon_not_found");
    const r = await call(deactivateRoute, path, { method: "POST", headers: asSeller(s), params: { id: c.id } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.coupon.active).toBe(false);
    expect((await call(deactivateRoute, path, { method: "POST", headers: asSeller(s), params: { id: c.id } })).status).toBe(200);
    expectProblem(await checkout(s.usd.id, { coupon_code: c.code }), 404, "coupon_not_found");
  });
});

describe("applying coupons at checkout (test mode)", () => {
  it("percent: rounds half up, the fee is 5 % of what is paid, the quote agrees, and the code is case-insensitive", async () => {
    const c = await newCoupon(s, { code: `PCT${unique()}`.slice(0, 20), kind: "percent", percent_off: 15 });
    // 15 % of 19.90 is 2.985: 2.99 off (half up), 16.91 paid, fee 5 % of 16.91 = 0.8455 → 0.85.
    const q = await call(quote, "/api/checkout/quote", { method: "POST", json: { product_id: s.usd.id, coupon_code: c.code.toLowerCase() } });
    expect(q.status, q.text).toBe(200);
    expect(q.body).toMatchObject({
      currency: "usd",
      quantity: 1,
      subtotal_cents: 1990,
      discount_cents: 299,
      amount_cents: 1691,
      fee_cents: 85,
      coupon_code: c.code,
      tax: "not_calculated",
    });
    const r = await checkout(s.usd.id, { coupon_code: c.code.toLowerCase() });
    expect(r.status, r.text).toBe(200);
    expect(r.body.amount_cents).toBe(1691);
    const order = await getDb().order.findUniqueOrThrow({ where: { id: r.body.session_id } });
    expect(order).toMatchObject({ subtotalCents: 1990, discountCents: 299, amountCents: 1691, feeCents: 85, couponId: c.id, couponCode: c.code });
    expect(order.payoutAccountId).toMatch(/^test_acct_/);
    expect(await redemptions(c.id)).toBe(1);

    // Paid: the ledger has the sale at list price, the discount and the fee on what was paid; the redemption stays.
    await payTestCheckout(order.id);
    const entries = await getDb().ledgerEntry.findMany({ where: { orderId: order.id }, orderBy: { key: "asc" } });
    expect(entries.map((e) => [e.kind, e.amountMinor, e.currency])).toEqual([
      ["discount", -299, "usd"],
      ["platform_fee", -85, "usd"],
      ["sale", 1990, "usd"],
    ]);
    expect(await redemptions(c.id)).toBe(1);
  });

  it("amount: in the product's currency only; never more than the price; refused below the minimum charge", async () => {
    const eur = await newCoupon(s, { code: `EUR${unique()}`.slice(0, 20), kind: "amount", amount_off_cents: 300, currency: "eur" });
    const r = await checkout(s.eur.id, { coupon_code: eur.code });
    expect(r.status, r.text).toBe(200);
    expect(await getDb().order.findUniqueOrThrow({ where: { id: r.body.session_id } })).toMatchObject({
      currency: "eur",
      subtotalCents: 1000,
      discountCents: 300,
      amountCents: 700,
      feeCents: 35,
    });
    // An amount in another currency is refused as any unusable code is (one answer: no hint that the code exists).
    const mismatch = await checkout(s.usd.id, { coupon_code: eur.code });
    expectProblem(mismatch, 404, "coupon_not_found");
    expect(mismatch.body.detail.replace(eur.code, "")).not.toMatch(/EUR|USD/);

    // 10.00 − 9.60 = 0.40 < 0.50; 100 % off → 0: both refused, and neither holds a redemption.
    const steep = await newCoupon(s, { code: `STEEP${unique()}`.slice(0, 20), kind: "amount", amount_off_cents: 960, currency: "eur" });
    const bad = await checkout(s.eur.id, { coupon_code: steep.code });
    expectProblem(bad, 400, "amount_below_minimum");
    expect(bad.body.detail).toContain("0.50");
    const free = await newCoupon(s, { code: `FREE${unique()}`.slice(0, 20), kind: "percent", percent_off: 100 });
    expectProblem(await checkout(s.usd.id, { coupon_code: free.code }), 400, "amount_below_minimum");
    expectProblem(
      await call(quote, "/api/checkout/quote", { method: "POST", json: { product_id: s.usd.id, coupon_code: free.code } }),
      400,
      "amount_below_minimum",
    );
    expect(await redemptions(steep.id)).toBe(0);
    expect(await redemptions(free.id)).toBe(0);
    // Exactly at the minimum is fine: 10.00 − 9.50 = 0.50.
    const edge = await newCoupon(s, { code: `EDGE${unique()}`.slice(0, 20), kind: "amount", amount_off_cents: 950, currency: "eur" });
    expect((await checkout(s.eur.id, { coupon_code: edge.code })).status).toBe(200);
  });

  it("refuses unknown, another seller's, expired and out-of-scope codes, all with the one answer coupon_not_found", async () => {
    expectProblem(await checkout(s.usd.id, { coupon_code: "NO-SUCH-CODE" }), 404, "coupon_not_found");
    const theirs = await newCoupon(other, { code: `THEIRS${unique()}`.slice(0, 20), kind: "percent", percent_off: 50 });
    expectProblem(await checkout(s.usd.id, { coupon_code: theirs.code }), 404, "coupon_not_found");

    const expiring = await newCoupon(s, {
      code: `EXP${unique()}`.slice(0, 20),
      kind: "percent",
      percent_off: 10,
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect((await checkout(s.usd.id, { coupon_code: expiring.code })).status).toBe(200);
    await getDb().coupon.update({ where: { id: expiring.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expectProblem(await checkout(s.usd.id, { coupon_code: expiring.code }), 404, "coupon_not_found");

    const scoped = await newCoupon(s, { code: `ONLY${unique()}`.slice(0, 20), kind: "percent", percent_off: 10, product_ids: [s.eur.id] });
    expectProblem(await checkout(s.usd.id, { coupon_code: scoped.code }), 404, "coupon_not_found");
    expect((await checkout(s.eur.id, { coupon_code: scoped.code })).status).toBe(200);

    expectProblem(await checkout(s.usd.id, { coupon_code: "bad code!" }), 400, "invalid_body");
  });

  it("holds the redemption limit under 10 concurrent checkouts (limit 3), and gives redemptions back exactly once", async () => {
    const c = await newCoupon(s, { code: `RACE${unique()}`.slice(0, 20), kind: "percent", percent_off: 20, max_redemptions: 3 });
    const replies = await Promise.all(Array.from({ length: 10 }, () => checkout(s.usd.id, { coupon_code: c.code })));
    const ok = replies.filter((r) => r.status === 200);
    expect(ok).toHaveLength(3);
    for (const r of replies.filter((x) => x.status !== 200)) expectProblem(r, 404, "coupon_not_found");
    expect(await redemptions(c.id)).toBe(3);
    expect(await getDb().order.count({ where: { couponId: c.id, status: "open" } })).toBe(3);

    // Cancelled (twice): one redemption back, once.
    const [first, second, third] = ok.map((r) => r.body.session_id as string);
    for (let i = 0; i < 2; i++) {
      const r = await call(cancel, `/checkout/${first}/cancel`, { method: "POST", params: { session_id: first! } });
      expect(r.status).toBe(303);
    }
    expect(await redemptions(c.id)).toBe(2);
    expect((await checkout(s.usd.id, { coupon_code: c.code })).status).toBe(200);
    expectProblem(await checkout(s.usd.id, { coupon_code: c.code }), 404, "coupon_not_found");

    // A checkout past its expiry (test mode sends no expiry event) gives its redemption back to the next buyer.
    await getDb().order.update({ where: { id: second! }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const again = await checkout(s.usd.id, { coupon_code: c.code });
    expect(again.status, again.text).toBe(200);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: second! } })).status).toBe("expired");
    expect(await redemptions(c.id)).toBe(3);

    // The payment of a checkout that was closed meanwhile still counts: the paid order takes its redemption back.
    const paid = await applyPaymentEvent({
      id: `late-pay:${second}`,
      provider: "test",
      type: "test.payment_succeeded",
      kind: "paid",
      orderId: second!,
      amountCents: 1592,
      currency: "usd",
      paymentStatus: "paid",
    });
    expect(paid.fulfilled).toBe(true);
    expect(await redemptions(c.id)).toBe(4);

    // Concurrent closes of one checkout (cancel racing expiry): released once.
    await Promise.all([
      call(cancel, `/checkout/${third}/cancel`, { method: "POST", params: { session_id: third! } }),
      applyPaymentEvent({ id: `exp:${third}`, provider: "test", type: "test.expired", kind: "expired", orderId: third! }),
      call(cancel, `/checkout/${third}/cancel`, { method: "POST", params: { session_id: third! } }),
    ]);
    expect(await redemptions(c.id)).toBe(3);
  });
});
