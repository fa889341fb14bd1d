import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as listRoute, POST as createRoute } from "@/app/api/v1/checkout-links/route";
import { PATCH as updateRoute } from "@/app/api/v1/checkout-links/[id]/route";
import { GET as viewRoute } from "@/app/api/checkout-links/[developer_id]/[slug]/route";
import { POST as startRoute } from "@/app/api/checkout-links/[developer_id]/[slug]/checkout/route";
import { POST as formStart } from "@/app/(store)/developers/[id]/buy/[slug]/start/route";
import { POST as cancel } from "@/app/checkout/[session_id]/cancel/route";
import { POST as couponsRoute } from "@/app/api/v1/coupons/route";
import { callTool, sellerTools } from "@/lib/agents/tools";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { rateLimiter } from "@/lib/http/rate-limit";
import { applyPaymentEvent } from "@/lib/payments/apply-payment-event";
import { checkoutLinkSales } from "@/lib/selling/sales";
import { call, expectProblem } from "../helpers/http";
import { sellerToken } from "../helpers/seller-tokens";
import { createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

/**
 * Checkout links end to end through their routes: made by the seller (seller API), read and bought by anyone, on the
 * one checkout. The price to the cent on the order, the counters, expiry, the use limit under races, uses given back
 * when a checkout closes unpaid, and another seller's product or coupon refused.
 */

afterAll(() => disconnectDb());
beforeEach(() => rateLimiter().reset());

const run = randomUUID().slice(0, 8);
const db = () => getDb();

interface Seller {
  id: string;
  cookie: string;
  seats: string; // a per-seat product at 19.90 USD
  single: string; // a per-machine product at 15.00 USD
  coupon: string; // 15 % off, all products
}

async function newSeller(tag: string): Promise<Seller> {
  const email = `links-${tag}-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Link Studio ${tag} ${run}`, website: null, bio: "" });
  const seats = await createTestProduct(dev.id, `Seats ${tag} ${run}`, `com.links.seats${tag}${run}`, { seat_model: "per-seat", price_cents: 1990 });
  const single = await createTestProduct(dev.id, `Single ${tag} ${run}`, `com.links.single${tag}${run}`);
  const cookie = await sellerCookie(email);
  const code = `LINK${tag}${run}`.toUpperCase().slice(0, 20);
  const c = await call(couponsRoute, "/api/v1/coupons", {
    method: "POST",
    json: { code, kind: "percent", percent_off: 15 },
    headers: { cookie, origin: "http://localhost:3000" },
  });
  expect(c.status, c.text).toBe(201);
  return { id: dev.id, cookie, seats: seats.id, single: single.id, coupon: code };
}

const as = (s: Seller, extra: Record<string, string> = {}) => ({ cookie: s.cookie, origin: "http://localhost:3000", ...extra });
let n = 0;
const slug = () => `l-${run}-${++n}`;

function createLink(s: Seller, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call(createRoute, "/api/v1/checkout-links", { method: "POST", json: { name: "Test link", slug: slug(), ...body }, headers: as(s, headers) });
}

async function link(s: Seller, body: Record<string, unknown>) {
  const r = await createLink(s, body);
  expect(r.status, r.text).toBe(201);
  return r.body.link as { id: string; slug: string; url: string };
}

const view = (s: Seller, l: { slug: string }) =>
  call(viewRoute, `/api/checkout-links/${s.id}/${l.slug}`, { params: { developer_id: s.id, slug: l.slug } });
const start = (s: Seller, l: { slug: string }) =>
  call(startRoute, `/api/checkout-links/${s.id}/${l.slug}/checkout`, {
    method: "POST",
    json: { buyer_email: `buyer-${randomUUID().slice(0, 8)}@example.com` },
    params: { developer_id: s.id, slug: l.slug },
  });
const row = (id: string) => db().checkoutLink.findUniqueOrThrow({ where: { id } });
const orders = (linkId: string) => db().order.count({ where: { checkoutLinkId: linkId } });

let s: Seller;
let other: Seller;
beforeAll(async () => {
  s = await newSeller("a");
  other = await newSeller("b");
});

describe("making checkout links (seller API)", () => {
  it("refuses another seller's product or coupon, seats on a product sold one at a time, an interval on a one-time sale, a taken slug", async () => {
    expectProblem(await createLink(s, { product_id: other.seats }), 404, "product_not_found");
    expectProblem(await createLink(s, { product_id: s.seats, coupon_code: other.coupon }), 400, "coupon_not_found");
    expectProblem(await createLink(s, { product_id: s.seats, coupon_code: "NOSUCHCODE" }), 400, "coupon_not_found");
    expectProblem(await createLink(s, { product_id: s.single, quantity: 2 }), 400, "quantity_not_allowed");
    expectProblem(await createLink(s, { product_id: s.single, interval: "month" }), 400, "interval_not_offered");
    expectProblem(await createLink(s, { product_id: s.seats, quantity: 101 }), 400, "invalid_body");
    expectProblem(await createLink(s, { product_id: s.seats, slug: "Not A Slug" }), 400, "invalid_body");
    expectProblem(await createLink(s, { product_id: s.seats, expires_at: "2020-01-01T00:00:00Z" }), 400, "invalid_body");
    const made = await link(s, { product_id: s.seats });
    expectProblem(await createLink(s, { product_id: s.seats, slug: made.slug }), 409, "link_slug_taken");
    // Another seller may use the same slug: addresses are per seller.
    expect((await createLink(other, { product_id: other.seats, slug: made.slug })).status).toBe(201);
    // Without a session: 401; nothing was made for the refusals.
    expect(
      (await call(createRoute, "/api/v1/checkout-links", { method: "POST", json: { product_id: s.seats, name: "x", slug: slug() } })).status,
    ).toBe(401);
    expect(await db().checkoutLink.count({ where: { developerId: s.id } })).toBe(1);
  });

  it("answers a retried create with the same link (Idempotency-Key), and another body under the key with 422", async () => {
    const key = randomUUID();
    const body = { product_id: s.seats, name: "Retried", slug: slug() };
    const send = (b: Record<string, unknown>) =>
      call(createRoute, "/api/v1/checkout-links", { method: "POST", json: b, headers: as(s, { "idempotency-key": key }) });
    const first = await send(body);
    expect(first.status, first.text).toBe(201);
    const second = await send(body);
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body.link.id).toBe(first.body.link.id);
    expectProblem(await send({ ...body, slug: slug() }), 422, "idempotency_conflict");
    expect(await db().checkoutLink.count({ where: { developerId: s.id, name: "Retried" } })).toBe(1);
  });
});

describe("checkout links over MCP (seller token)", () => {
  it("creates a link with seller_create_checkout_link and lists it with seller_list_checkout_links; a read-only token may only list", async () => {
    const tool = (name: string) => sellerTools().find((t) => t.name === name)!;
    const ctx = (token: string) => ({
      transport: "mcp" as const,
      client: "203.0.113.9",
      requestId: "req",
      headers: new Headers({ authorization: `Bearer ${token}` }),
      origin: "http://localhost:3000",
    });
    const products = await sellerToken(s.id, ["products"]);
    const made = await callTool(
      tool("seller_create_checkout_link"),
      { product_id: s.seats, name: "From an agent", slug: slug(), quantity: 2 },
      ctx(products),
    );
    expect(made.text).toContain("Created checkout link From an agent");
    const id = (made.data as { link: { id: string; url: string } }).link.id;
    const listed = await callTool(tool("seller_list_checkout_links"), {}, ctx(await sellerToken(s.id, ["read"])));
    expect((listed.data as { links: Array<{ id: string }> }).links.map((l) => l.id)).toContain(id);
    await expect(
      callTool(tool("seller_create_checkout_link"), { product_id: s.seats, name: "x", slug: slug() }, ctx(await sellerToken(s.id, ["read"]))),
    ).rejects.toMatchObject({ status: 403 });
  });
});

describe("buying through a checkout link (test mode)", () => {
  it("sells with the preset coupon and seats at the right price, and counts the visit, the checkout and the sale", async () => {
    const l = await link(s, { product_id: s.seats, quantity: 3, coupon_code: s.coupon.toLowerCase() });
    expect(l.url).toMatch(new RegExp(`/developers/${s.id}/buy/${l.slug}$`));

    // 3 × 19.90 = 59.70; 15 % of it is 8.955 → 8.96 (half up); 50.74 paid; the fee 5 % of 50.74 = 2.537 → 2.54.
    const v = await view(s, l);
    expect(v.status, v.text).toBe(200);
    expect(v.body.quote).toMatchObject({
      currency: "usd",
      unit_price_cents: 1990,
      quantity: 3,
      subtotal_cents: 5970,
      coupon_code: s.coupon,
      discount_cents: 896,
      amount_cents: 5074,
      fee_cents: 254,
    });
    expect((await row(l.id)).visits).toBe(1);

    const r = await start(s, l);
    expect(r.status, r.text).toBe(200);
    expect(r.body.amount_cents).toBe(5074);
    const order = await db().order.findUniqueOrThrow({ where: { id: r.body.session_id } });
    expect(order).toMatchObject({
      checkoutLinkId: l.id,
      quantity: 3,
      subtotalCents: 5970,
      discountCents: 896,
      amountCents: 5074,
      feeCents: 254,
      couponCode: s.coupon,
      currency: "usd",
      status: "open",
    });
    expect(await row(l.id)).toMatchObject({ visits: 1, checkouts: 1, uses: 1, sales: 0 });

    await payTestCheckout(order.id);
    expect(await row(l.id)).toMatchObject({ visits: 1, checkouts: 1, uses: 1, sales: 1 });
    const license = await db().license.findFirstOrThrow({ where: { orderId: order.id } });
    expect(license.maxMachines).toBe(2 * 3);

    const sales = (await checkoutLinkSales(s.id)).find((x) => x.id === l.id);
    expect(sales).toMatchObject({ visits: 1, checkouts: 1, sales: 1, revenue_cents: 5074, revenue_display: "$50.74 USD" });

    const list = await call(listRoute, "/api/v1/checkout-links", { headers: as(s) });
    expect(list.status).toBe(200);
    expect(list.body.links.find((x: { id: string }) => x.id === l.id)).toMatchObject({ visits: 1, checkouts: 1, sales: 1, uses: 1 });
    // Another seller's list does not show it.
    const theirs = await call(listRoute, "/api/v1/checkout-links", { headers: as(other) });
    expect(theirs.body.links.map((x: { id: string }) => x.id)).not.toContain(l.id);
  });

  it("refuses an expired link (410) and a turned-off one (404), opening no order", async () => {
    const l = await link(s, { product_id: s.single, expires_at: new Date(Date.now() + 3600_000).toISOString() });
    await db().checkoutLink.update({ where: { id: l.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expectProblem(await view(s, l), 410, "checkout_link_expired");
    expectProblem(await start(s, l), 410, "checkout_link_expired");
    expect(await orders(l.id)).toBe(0);

    const off = await link(s, { product_id: s.single });
    // Another seller cannot change it; its seller turns it off.
    const patch = (who: Seller, body: Record<string, unknown>) =>
      call(updateRoute, `/api/v1/checkout-links/${off.id}`, { method: "PATCH", json: body, headers: as(who), params: { id: off.id } });
    expectProblem(await patch(other, { active: false }), 404, "checkout_link_not_found");
    const r = await patch(s, { active: false, name: "Renamed" });
    expect(r.status, r.text).toBe(200);
    expect(r.body.link).toMatchObject({ active: false, name: "Renamed" });
    expectProblem(await view(s, off), 404, "checkout_link_not_found");
    expectProblem(await start(s, off), 404, "checkout_link_not_found");
    expectProblem(await view(s, { slug: `nothing-${run}` }), 404, "checkout_link_not_found");
    expect(await orders(off.id)).toBe(0);
    expect((await row(off.id)).visits).toBe(0);
  });

  it("holds a use per open checkout: a used-up link is refused (409) with no order, and a use comes back when a checkout expires or is cancelled", async () => {
    const l = await link(s, { product_id: s.single, max_uses: 1 });
    const first = await start(s, l);
    expect(first.status, first.text).toBe(200);
    expectProblem(await start(s, l), 409, "checkout_link_used_up");
    expectProblem(await view(s, l), 409, "checkout_link_used_up");
    expect(await orders(l.id)).toBe(1);
    expect(await row(l.id)).toMatchObject({ uses: 1, checkouts: 1 });

    // The first checkout runs past its expiry unpaid (test mode sends no expiry event): the next buyer gets its use.
    await db().order.update({ where: { id: first.body.session_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const second = await start(s, l);
    expect(second.status, second.text).toBe(200);
    expect((await db().order.findUniqueOrThrow({ where: { id: first.body.session_id } })).status).toBe("expired");
    expect(await row(l.id)).toMatchObject({ uses: 1, checkouts: 2 });

    // Cancelled (twice): the use comes back once.
    for (let i = 0; i < 2; i++) {
      const c = await call(cancel, `/checkout/${second.body.session_id}/cancel`, { method: "POST", params: { session_id: second.body.session_id } });
      expect(c.status).toBe(303);
    }
    expect((await row(l.id)).uses).toBe(0);

    // The expired checkout is paid after all: the paid order takes its use again, past the limit, and is a sale.
    const paid = await applyPaymentEvent({
      id: `late-pay:${first.body.session_id}`,
      provider: "test",
      type: "test.payment_succeeded",
      kind: "paid",
      orderId: first.body.session_id,
      amountCents: 1500,
      currency: "usd",
      paymentStatus: "paid",
    });
    expect(paid.fulfilled).toBe(true);
    expect(await row(l.id)).toMatchObject({ uses: 1, sales: 1 });
    expectProblem(await start(s, l), 409, "checkout_link_used_up");
  });

  it("lets only one of two concurrent checkouts through a link with one use", async () => {
    const l = await link(s, { product_id: s.seats, max_uses: 1, coupon_code: s.coupon, quantity: 2 });
    const couponBefore = (await db().coupon.findFirstOrThrow({ where: { developerId: s.id, code: s.coupon } })).redemptions;
    const results = await Promise.all([start(s, l), start(s, l)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses, results.map((r) => r.text).join("\n")).toEqual([200, 409]);
    expectProblem(
      results.find((r) => r.status === 409)!,
      409,
      "checkout_link_used_up",
    );
    expect(await orders(l.id)).toBe(1);
    expect(await row(l.id)).toMatchObject({ uses: 1, checkouts: 1 });
    // The refused checkout holds no coupon redemption either.
    expect((await db().coupon.findFirstOrThrow({ where: { developerId: s.id, code: s.coupon } })).redemptions).toBe(couponBefore + 1);
  });

  it("the page's Buy form opens the checkout, and sends a refused buyer back to the link's page with the reason", async () => {
    const l = await link(s, { product_id: s.single, max_uses: 1 });
    const post = (email: string) =>
      call(formStart, `/developers/${s.id}/buy/${l.slug}/start`, {
        method: "POST",
        body: new URLSearchParams({ buyer_email: email }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
        params: { id: s.id, slug: l.slug },
      });
    const bad = await post("not an address");
    expect(bad.status).toBe(303);
    expect(bad.headers.get("location")).toContain(`/developers/${s.id}/buy/${l.slug}?buy_error=invalid_email`);
    const ok = await post(`form-${run}@example.com`);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toMatch(/\/checkout\/cs_/);
    const used = await post(`form2-${run}@example.com`);
    expect(used.headers.get("location")).toContain("buy_error=checkout_link_used_up");
    expect(await orders(l.id)).toBe(1);
  });
});
