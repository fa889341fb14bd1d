import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getBundleRoute, PUT as putBundleRoute } from "@/app/api/v1/products/[id]/bundle/route";
import { POST as createRoute } from "@/app/api/checkout/create/route";
import { POST as quoteRoute } from "@/app/api/checkout/quote/route";
import { POST as acpCreateRoute } from "@/app/api/acp/checkout_sessions/route";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { proratedPrice } from "@/lib/bundles/bundle-sale";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { validateLicense } from "@/lib/licensing/validate-license";
import { getProduct } from "@/lib/marketplace/get-product";
import { refundOrder } from "@/lib/refunds/refund-order";
import { simulateTestDispute } from "@/lib/refunds/test-disputes";
import { getCheckoutStatus } from "@/lib/checkout/get-checkout";
import { issueLicense } from "@/lib/licensing/issue-license";
import { acpHeaders } from "../helpers/acp";
import { call, expectProblem } from "../helpers/http";
import { fingerprint } from "../helpers/licenses";
import { buyerCookie, createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const seller = { id: "", email: `bundle-seller-${run}@example.com`, cookie: "" };
const other = { id: "", email: `bundle-other-${run}@example.com` };
/** Three items with their own prices and machines, and the bundle's price (less than their sum). */
const ITEMS = [
  { key: "a", price: 1000, machines: 1 },
  { key: "b", price: 2000, machines: 2 },
  { key: "c", price: 3333, machines: 3 },
] as const;
const BUNDLE_PRICE = 4999;
const items: Array<{ id: string; pluginId: string; price: number; machines: number }> = [];
let bundleId = "";
let seq = 0;

const putBundle = (id: string, body: unknown, cookie = seller.cookie) =>
  call(putBundleRoute, `/api/v1/products/${id}/bundle`, { method: "PUT", json: body, headers: { cookie }, params: { id } });

const openCheckout = (body: Record<string, unknown>, key?: string, cookie?: string) =>
  call(createRoute, "/api/checkout/create", {
    method: "POST",
    json: body,
    headers: { ...(key ? { "idempotency-key": key } : {}), ...(cookie ? { cookie } : {}) },
  });

const buyer = () => `bundle-buyer-${run}-${++seq}@example.com`;

async function bundleLicenses(orderId: string) {
  return getDb().license.findMany({ where: { bundleOrderId: orderId }, include: { product: true, events: true }, orderBy: { productId: "asc" } });
}

beforeAll(async () => {
  const dev = await sellingDeveloper(seller.email, { name: `Bundle Studio ${run}`, website: null, bio: "" });
  seller.id = dev.id;
  seller.cookie = await sellerCookie(seller.email);
  for (const item of ITEMS) {
    const p = await createTestProduct(dev.id, `Item ${item.key.toUpperCase()} ${run}`, `com.bundles.${item.key}${run}`, {
      price_cents: item.price,
      max_machines: item.machines,
    });
    items.push({ id: p.id, pluginId: p.pluginId, price: item.price, machines: item.machines });
  }
  // Sold by the seat, so one purchase of two seats gives each item's license twice its machines.
  const bundle = await createTestProduct(dev.id, `Studio Bundle ${run}`, `com.bundles.all${run}`, {
    price_cents: BUNDLE_PRICE,
    seat_model: "per-seat",
  });
  bundleId = bundle.id;
  other.id = (await sellingDeveloper(other.email, { name: `Other Bundle Studio ${run}`, website: null, bio: "" })).id;
});

afterAll(async () => {
  await disconnectDb();
});

describe("bundles", () => {
  it("a seller makes a product a bundle of their products; the store and the API list the items", async () => {
    const r = await putBundle(bundleId, { product_ids: items.map((i) => i.id), prorate: true });
    expect(r.status, r.text).toBe(200);
    expect(r.body.bundle).toMatchObject({
      product_id: bundleId,
      is_bundle: true,
      prorate: true,
      price_cents: BUNDLE_PRICE,
      list_total_cents: 1000 + 2000 + 3333,
      items: items.map((i) => ({ product_id: i.id, price_cents: i.price, max_machines: i.machines, status: "active" })),
    });
    // Setting the same list again is harmless: the same bundle, nothing more.
    const again = await putBundle(bundleId, { product_ids: items.map((i) => i.id), prorate: true });
    expect(again.status).toBe(200);
    expect(await getDb().bundleItem.count({ where: { bundleId } })).toBe(3);
    const read = await call(getBundleRoute, `/api/v1/products/${bundleId}/bundle`, { headers: { cookie: seller.cookie }, params: { id: bundleId } });
    expect(read.body.bundle.items.map((i: { product_id: string }) => i.product_id)).toEqual(items.map((i) => i.id));
    const details = await getProduct(bundleId);
    expect(details.bundle?.items.map((i) => i.id)).toEqual(items.map((i) => i.id));
    expect((await getProduct(items[0]!.id)).bundle).toBeUndefined();
  });

  it("refuses bad bundles with a coded answer and changes nothing", async () => {
    const foreign = await createTestProduct(other.id, `Foreign ${run}`, `com.bundles.foreign${run}`);
    const sub = await createTestProduct(seller.id, `Sub ${run}`, `com.bundles.sub${run}`, {
      pricing_model: "subscription",
      monthly_price_cents: 900,
    });
    const other2 = await createTestProduct(seller.id, `Outer ${run}`, `com.bundles.outer${run}`);
    const [a, b] = items;
    expectProblem(await putBundle(other2.id, { product_ids: [a!.id, foreign.id] }), 404, "bundle_item_not_found");
    expectProblem(await putBundle(other2.id, { product_ids: [a!.id, bundleId] }), 400, "bundle_nested");
    // A product already included in a bundle cannot become a bundle either.
    expectProblem(await putBundle(a!.id, { product_ids: [b!.id, other2.id] }), 400, "bundle_nested");
    expectProblem(await putBundle(other2.id, { product_ids: [a!.id] }), 400, "bundle_too_small");
    expectProblem(await putBundle(other2.id, { product_ids: [a!.id, sub.id] }), 400, "bundle_item_not_one_time");
    expectProblem(await putBundle(sub.id, { product_ids: [a!.id, b!.id] }), 400, "bundle_pricing_not_supported");
    expectProblem(await putBundle(other2.id, { product_ids: [a!.id, other2.id] }), 400, "bundle_includes_itself");
    expectProblem(await putBundle(other2.id, { product_ids: [a!.id, a!.id] }), 400, "invalid_body");
    expectProblem(await putBundle(foreign.id, { product_ids: [a!.id, b!.id] }), 404, "product_not_found");
    expect(await getDb().bundleItem.count({ where: { bundleId: { in: [other2.id, sub.id, foreign.id] } } })).toBe(0);
    expect(await getDb().bundleItem.count({ where: { bundleId } })).toBe(3);
  });

  it("sells at its price and issues one license per item, each with its own machines × seats, on its own product", async () => {
    const email = buyer();
    const quote = await call(quoteRoute, "/api/checkout/quote", { method: "POST", json: { product_id: bundleId, quantity: 2 } });
    expect(quote.status, quote.text).toBe(200);
    expect(quote.body).toMatchObject({ amount_cents: BUNDLE_PRICE * 2, bundle: { prorated: false, reduction_cents: 0 } });
    const opened = await openCheckout({ product_id: bundleId, buyer_email: email, quantity: 2 }, `bundle-${run}-sale`);
    expect(opened.status, opened.text).toBe(200);
    expect(opened.body.amount_cents).toBe(BUNDLE_PRICE * 2);
    const salesBefore = (await getDb().product.findUniqueOrThrow({ where: { id: bundleId } })).salesCount;
    await payTestCheckout(opened.body.session_id);

    const order = await getDb().order.findUniqueOrThrow({ where: { id: opened.body.session_id }, include: { license: true } });
    expect(order).toMatchObject({ status: "paid", amountCents: BUNDLE_PRICE * 2, license: null });
    const licenses = await bundleLicenses(order.id);
    expect(licenses.map((l) => l.productId).sort()).toEqual(items.map((i) => i.id).sort());
    expect((await getDb().product.findUniqueOrThrow({ where: { id: bundleId } })).salesCount).toBe(salesBefore + 1);
    for (const l of licenses) {
      const item = items.find((i) => i.id === l.productId)!;
      expect(l).toMatchObject({ buyerEmail: email, source: "purchase", maxMachines: item.machines * 2, isActive: true, orderId: null });
      expect(l.events.find((e) => e.type === "issued")?.detail).toMatchObject({ bundle_order_id: order.id, bundle_product_id: bundleId });
      const machine = fingerprint();
      expect((await activateMachine({ license_key: l.key, machine_fingerprint: machine, plugin_id: item.pluginId })).code).toBe("ACTIVATED");
      expect((await validateLicense({ license_key: l.key, machine_fingerprint: machine, plugin_id: item.pluginId })).code).toBe("VALID");
      // Not a license of the other items, nor of the bundle product.
      const elsewhere = items.find((i) => i.id !== l.productId)!;
      expect((await validateLicense({ license_key: l.key, machine_fingerprint: machine, plugin_id: elsewhere.pluginId })).code).toBe(
        "PRODUCT_MISMATCH",
      );
    }
    // One e-mail lists every key.
    const mail = await getDb().emailMessage.findUniqueOrThrow({ where: { dedupeKey: `license:${order.id}` } });
    for (const l of licenses) expect(mail.text).toContain(l.key);

    // A full refund ends all three; validation says so at once (the license cache does not hide it).
    const refund = await refundOrder({
      orderId: order.id,
      reason: "Changed my mind",
      actor: { kind: "seller", developerId: seller.id, email: seller.email },
    });
    expect(refund.full).toBe(true);
    for (const l of await bundleLicenses(order.id)) {
      expect(l).toMatchObject({ isActive: false, revocation: "refunded" });
      const item = items.find((i) => i.id === l.productId)!;
      const machine = (await getDb().activation.findFirstOrThrow({ where: { licenseId: l.id } })).fingerprint;
      expect((await validateLicense({ license_key: l.key, machine_fingerprint: machine, plugin_id: item.pluginId })).code).toBe("REFUNDED");
    }
  });

  it("a partial refund leaves the licenses working, as for any order", async () => {
    const opened = await openCheckout({ product_id: bundleId, buyer_email: buyer() });
    await payTestCheckout(opened.body.session_id);
    await refundOrder({
      orderId: opened.body.session_id,
      amountCents: 500,
      reason: "Goodwill",
      actor: { kind: "seller", developerId: seller.id, email: seller.email },
    });
    const licenses = await bundleLicenses(opened.body.session_id);
    expect(licenses).toHaveLength(3);
    expect(licenses.every((l) => l.isActive)).toBe(true);
  });

  it("a dispute suspends every license of the bundle's order, and winning it reinstates them; the status lists the keys", async () => {
    const opened = await openCheckout({ product_id: bundleId, buyer_email: buyer() });
    await payTestCheckout(opened.body.session_id);
    const status = await getCheckoutStatus(opened.body.session_id);
    expect(status.license).toBeNull();
    expect(status.bundle_licenses?.map((l) => l.product_id).sort()).toEqual(items.map((i) => i.id).sort());
    const admin = { email: `bundle-admin-${run}@example.com` };
    await simulateTestDispute(opened.body.session_id, "open", admin);
    expect((await bundleLicenses(opened.body.session_id)).map((l) => l.revocation)).toEqual(["disputed", "disputed", "disputed"]);
    await simulateTestDispute(opened.body.session_id, "won", admin);
    expect((await bundleLicenses(opened.body.session_id)).every((l) => l.isActive && l.revocation === null)).toBe(true);
  });

  it("an idempotent retry opens one order", async () => {
    const email = buyer();
    const key = `bundle-${run}-retry`;
    const first = await openCheckout({ product_id: bundleId, buyer_email: email }, key);
    const second = await openCheckout({ product_id: bundleId, buyer_email: email }, key);
    expect(second.status).toBe(200);
    expect(second.body.session_id).toBe(first.body.session_id);
    expect(await getDb().order.count({ where: { buyerEmail: email } })).toBe(1);
  });

  it("prorates for a buyer who holds an item: the price to the cent, and licenses only for the others", async () => {
    const email = buyer();
    const held = items[1]!; // 2000 of 6333
    await issueLicense(getDb(), { productId: held.id, buyerEmail: email, maxMachines: held.machines, source: "purchase" });
    // 4999 × 4333 / 6333 = 3420.33… → 3420 (half up, exact integers).
    const expected = 3420;
    expect(proratedPrice(BUNDLE_PRICE, 6333 - 2000, 6333, "usd")).toBe(expected);
    // Typing the address is not enough: what an address holds is told only to its signed-in holder.
    const stranger = await call(quoteRoute, "/api/checkout/quote", { method: "POST", json: { product_id: bundleId, buyer_email: email } });
    expect(stranger.body).toMatchObject({ amount_cents: BUNDLE_PRICE, bundle: { prorated: false, reduction_cents: 0 } });
    const elsewhere = await openCheckout({ product_id: bundleId, buyer_email: email }, `bundle-${run}-prorate-stranger`);
    expect(elsewhere.body.amount_cents).toBe(BUNDLE_PRICE);
    const otherBuyer = await buyerCookie(buyer());
    const signedInOther = await call(quoteRoute, "/api/checkout/quote", {
      method: "POST",
      json: { product_id: bundleId, buyer_email: email },
      headers: { cookie: otherBuyer },
    });
    expect(signedInOther.body).toMatchObject({ amount_cents: BUNDLE_PRICE, bundle: { prorated: false } });

    const cookie = await buyerCookie(email);
    const quote = await call(quoteRoute, "/api/checkout/quote", {
      method: "POST",
      json: { product_id: bundleId, buyer_email: email },
      headers: { cookie },
    });
    expect(quote.body).toMatchObject({ amount_cents: expected, bundle: { prorated: true, reduction_cents: BUNDLE_PRICE - expected } });
    expect(quote.body.bundle.items.find((i: { product_id: string }) => i.product_id === held.id).held).toBe(true);

    const opened = await openCheckout({ product_id: bundleId, buyer_email: email }, `bundle-${run}-prorate`, cookie);
    expect(opened.body.amount_cents).toBe(expected);
    await payTestCheckout(opened.body.session_id);
    const licenses = await bundleLicenses(opened.body.session_id);
    expect(licenses.map((l) => l.productId).sort()).toEqual(
      items
        .filter((i) => i !== held)
        .map((i) => i.id)
        .sort(),
    );
    expect(await getDb().license.count({ where: { buyerEmail: email, productId: held.id } })).toBe(1);
  });

  it("rounds half up and never goes below the smallest card payment", () => {
    expect(proratedPrice(1001, 1, 2, "usd")).toBe(501); // 500.5 → 501
    expect(proratedPrice(1000, 1, 3, "usd")).toBe(333); // 333.33 → 333
    expect(proratedPrice(1000, 1, 1000, "usd")).toBe(50); // 1 → the 0.50 minimum
    expect(proratedPrice(2 ** 40, 3, 7, "usd")).toBe(Math.round((2 ** 40 * 3) / 7));
  });

  it("refuses to open a checkout while an item is removed (409 naming it) and creates no order", async () => {
    const email = buyer();
    const removed = items[2]!;
    await getDb().product.update({ where: { id: removed.id }, data: { status: "removed" } });
    try {
      const r = await openCheckout({ product_id: bundleId, buyer_email: email }, `bundle-${run}-removed`);
      expectProblem(r, 409, "bundle_item_unavailable");
      expect(r.body.detail).toContain(removed.id);
      expect(await getDb().order.count({ where: { buyerEmail: email } })).toBe(0);
      const quote = await call(quoteRoute, "/api/checkout/quote", { method: "POST", json: { product_id: bundleId } });
      expectProblem(quote, 409, "bundle_item_unavailable");
      // An agent over ACP meets the same refusal before any session exists.
      const sessions = await getDb().acpCheckoutSession.count();
      const acp = await call(acpCreateRoute, "/api/acp/checkout_sessions", {
        method: "POST",
        json: { line_items: [{ id: bundleId }], currency: "usd", capabilities: { interventions: { supported: [] } }, buyer: { email } },
        headers: { [CLIENT_ADDRESS_HEADER]: "198.51.100.62", ...acpHeaders() },
      });
      expect(acp.status, acp.text).toBe(409);
      expect(acp.body.message).toContain(removed.id);
      expect(await getDb().acpCheckoutSession.count()).toBe(sessions);
    } finally {
      await getDb().product.update({ where: { id: removed.id }, data: { status: "active" } });
    }
  });

  it("a payment arriving after an item was removed issues nothing and is refunded whole", async () => {
    const email = buyer();
    const opened = await openCheckout({ product_id: bundleId, buyer_email: email });
    const removed = items[0]!;
    await getDb().product.update({ where: { id: removed.id }, data: { status: "removed" } });
    try {
      await payTestCheckout(opened.body.session_id).catch(() => undefined);
      expect(await getDb().license.count({ where: { buyerEmail: email } })).toBe(0);
      const order = await getDb().order.findUniqueOrThrow({ where: { id: opened.body.session_id } });
      expect(order.status).toBe("paid");
      expect(order.refundedCents).toBe(order.amountCents);
    } finally {
      await getDb().product.update({ where: { id: removed.id }, data: { status: "active" } });
    }
  });
});
