import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PATCH as offerRoute } from "@/app/api/v1/upgrade-offers/[id]/route";
import { GET as listOffersRoute, POST as offersRoute } from "@/app/api/v1/upgrade-offers/route";
import { POST as upgradeCheckoutRoute } from "@/app/api/upgrades/checkout/route";
import { POST as quoteRoute } from "@/app/api/upgrades/quote/route";
import { POST as refundRoute } from "@/app/api/v1/orders/[id]/refunds/route";
import { GET as eventsRoute } from "@/app/api/v1/licenses/[id]/events/route";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { CLIENT_ADDRESS_HEADER, rateLimiter } from "@/lib/http/rate-limit";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { validateLicense } from "@/lib/licensing/validate-license";
import { platformFeeCents } from "@/lib/pricing";
import { call, expectProblem } from "../helpers/http";
import { fingerprint } from "../helpers/licenses";
import { buyerCookie, createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

/**
 * Upgrades and cross-grades, end to end on the real checkout: a seller offers Standard → Pro, a buyer proves the
 * Standard license (by key, or signed in by its id), pays the difference (or a set price), gets one Pro license from
 * one order, and the Standard license is retired (UPGRADED, machines released) or kept as the offer says; a full
 * refund of the upgrade ends Pro and brings Standard back; both licenses' event logs tell the story.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ORIGIN = "http://localhost:3000";
const STANDARD = 2900;
const PRO = 7900;
const fx = {
  seller: "",
  cookie: "",
  other: "",
  otherCookie: "",
  standard: "",
  standardPlugin: `com.upgrades.std${run}`,
  pro: "",
  proPlugin: `com.upgrades.pro${run}`,
  lite: "",
  euro: "",
  foreign: "",
  difference: "",
  fixed: "",
};
let seq = 0;

const seller = (method: "GET" | "POST", body?: unknown, cookie = fx.cookie) =>
  method === "GET"
    ? call(listOffersRoute, "/api/v1/upgrade-offers", { headers: { cookie } })
    : call(offersRoute, "/api/v1/upgrade-offers", { method: "POST", json: body, headers: { cookie, origin: ORIGIN } });

const patchOffer = (id: string, body: unknown, cookie = fx.cookie) =>
  call(offerRoute, `/api/v1/upgrade-offers/${id}`, { method: "PATCH", json: body, headers: { cookie, origin: ORIGIN }, params: { id } });

const quote = (body: unknown, headers: Record<string, string> = {}) =>
  call(quoteRoute, "/api/upgrades/quote", { method: "POST", json: body, headers: { [CLIENT_ADDRESS_HEADER]: "198.51.100.61", ...headers } });

const upgrade = (body: unknown, headers: Record<string, string> = {}) =>
  call(upgradeCheckoutRoute, "/api/upgrades/checkout", {
    method: "POST",
    json: body,
    headers: { [CLIENT_ADDRESS_HEADER]: "198.51.100.61", ...headers },
  });

/** A Standard license bought and paid through the checkout (with `seats` seats), activated on one machine. */
async function buyStandard(quantity = 1, productId = fx.standard, plugin = fx.standardPlugin) {
  const buyer = `upgrade-buyer-${run}-${++seq}@example.com`;
  const { session_id } = await createCheckout({ product_id: productId, buyer_email: buyer, quantity });
  await payTestCheckout(session_id);
  const order = await getDb().order.findUniqueOrThrow({ where: { id: session_id }, include: { license: true } });
  const machine = fingerprint(`upgrade-${run}-${seq}`);
  expect((await activateMachine({ license_key: order.license!.key, machine_fingerprint: machine, plugin_id: plugin })).activated).toBe(true);
  return { order, license: order.license!, machine, buyer };
}

/** Pays an upgrade's checkout and returns its order with the new license. */
async function pay(sessionId: string) {
  await payTestCheckout(sessionId);
  return getDb().order.findUniqueOrThrow({ where: { id: sessionId }, include: { license: true } });
}

const validate = (key: string, machine: string, plugin = fx.standardPlugin) =>
  validateLicense({ license_key: key, machine_fingerprint: machine, plugin_id: plugin });

const events = async (licenseId: string) => {
  const r = await call(eventsRoute, `/api/v1/licenses/${licenseId}/events`, { headers: { cookie: fx.cookie }, params: { id: licenseId } });
  expect(r.status, r.text).toBe(200);
  return r.body.events as Array<{ type: string; detail: Record<string, unknown> }>;
};

beforeAll(async () => {
  const email = `upgrade-seller-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Upgrade Studio ${run}`, website: null, bio: "" });
  fx.seller = dev.id;
  fx.cookie = await sellerCookie(email);
  const seats = { seat_model: "per-seat", max_machines: 2 };
  fx.standard = (await createTestProduct(dev.id, `Tape Standard ${run}`, fx.standardPlugin, { price_cents: STANDARD, ...seats })).id;
  fx.pro = (await createTestProduct(dev.id, `Tape Pro ${run}`, fx.proPlugin, { price_cents: PRO, ...seats })).id;
  fx.lite = (await createTestProduct(dev.id, `Tape Lite ${run}`, `com.upgrades.lite${run}`, { price_cents: 1900 })).id;
  fx.euro = (await createTestProduct(dev.id, `Tape Euro ${run}`, `com.upgrades.eur${run}`, { price_cents: 5000, currency: "eur" })).id;
  const otherEmail = `upgrade-other-${run}@example.com`;
  const other = await sellingDeveloper(otherEmail, { name: `Other Upgrades ${run}`, website: null, bio: "" });
  fx.other = other.id;
  fx.otherCookie = await sellerCookie(otherEmail);
  fx.foreign = (await createTestProduct(other.id, `Foreign ${run}`, `com.upgrades.foreign${run}`, { price_cents: 9900 })).id;
});

beforeEach(() => rateLimiter().reset());

afterAll(() => disconnectDb());

describe("upgrade offers (seller API)", () => {
  it("creates, refuses bad pairs with their codes, lists and changes offers", async () => {
    const created = await seller("POST", { from_product_id: fx.standard, to_product_id: fx.pro, pricing: "difference" });
    expect(created.status, created.text).toBe(201);
    expect(created.body.offer).toMatchObject({ pricing: "difference", price_cents: null, retire_source: true, active: true, paid_upgrades: 0 });
    expect(created.body.offer.from_product).toMatchObject({ id: fx.standard, price_cents: STANDARD });
    fx.difference = created.body.offer.id;

    expectProblem(
      await seller("POST", { from_product_id: fx.standard, to_product_id: fx.pro, pricing: "fixed", price_cents: 100 }),
      409,
      "upgrade_offer_exists",
    );
    expectProblem(
      await seller("POST", { from_product_id: fx.standard, to_product_id: fx.euro, pricing: "difference" }),
      400,
      "upgrade_currency_mismatch",
    );
    expectProblem(
      await seller("POST", { from_product_id: fx.standard, to_product_id: fx.standard, pricing: "difference" }),
      400,
      "upgrade_same_product",
    );
    expectProblem(await seller("POST", { from_product_id: fx.standard, to_product_id: fx.foreign, pricing: "difference" }), 404, "product_not_found");
    // The other seller cannot offer an upgrade from someone else's product either.
    expectProblem(
      await seller("POST", { from_product_id: fx.standard, to_product_id: fx.foreign, pricing: "difference" }, fx.otherCookie),
      404,
      "product_not_found",
    );
    expectProblem(await seller("POST", { from_product_id: fx.lite, to_product_id: fx.pro, pricing: "fixed" }), 400, "invalid_body");
    expectProblem(await seller("POST", { from_product_id: fx.lite, to_product_id: fx.pro, pricing: "fixed", price_cents: -5 }), 400, "invalid_body");
    expect(await getDb().upgradeOffer.count({ where: { developerId: fx.seller } })).toBe(1);

    const fixed = await seller("POST", {
      from_product_id: fx.lite,
      to_product_id: fx.pro,
      pricing: "fixed",
      price_cents: 3333,
      retire_source: false,
    });
    expect(fixed.status, fixed.text).toBe(201);
    fx.fixed = fixed.body.offer.id;

    const list = await seller("GET");
    expect(list.status, list.text).toBe(200);
    expect(list.body.offers.map((o: { id: string }) => o.id)).toEqual([fx.fixed, fx.difference]);

    expectProblem(await patchOffer(fx.difference, { price_cents: 100 }), 400, "upgrade_price_not_fixed");
    expectProblem(await patchOffer(fx.difference, { active: false }, fx.otherCookie), 404, "upgrade_offer_not_found");
    const changed = await patchOffer(fx.fixed, { price_cents: 3500 });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.offer).toMatchObject({ price_cents: 3500, retire_source: false });
  });
});

describe("buying an upgrade", () => {
  it("Standard → Pro for the difference: one order, one Pro license, Standard retired (UPGRADED, machines released); refund restores it", async () => {
    const std = await buyStandard(2);
    // Cached as valid first: the retirement must not be hidden by the license cache.
    expect((await validate(std.license.key, std.machine)).code).toBe("VALID");

    const q = await quote({ license_key: std.license.key, to_product_id: fx.pro });
    expect(q.status, q.text).toBe(200);
    expect(q.body).toMatchObject({
      offer_id: fx.difference,
      from_license_id: std.license.id,
      pricing: "difference",
      currency: "usd",
      unit_price_cents: PRO - STANDARD,
      seats: 2,
      amount_cents: (PRO - STANDARD) * 2,
      max_machines: 4,
      retire_source: true,
    });

    const ordersBefore = await getDb().order.count({ where: { upgradeFromLicenseId: std.license.id } });
    const key = randomUUID();
    const first = await upgrade({ license_key: std.license.key, offer_id: fx.difference }, { "idempotency-key": key });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      amount_cents: (PRO - STANDARD) * 2,
      currency: "usd",
      offer_id: fx.difference,
      from_license_id: std.license.id,
    });
    // An idempotent retry answers the first checkout and opens no second order.
    const retry = await upgrade({ license_key: std.license.key, offer_id: fx.difference }, { "idempotency-key": key });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.session_id).toBe(first.body.session_id);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await getDb().order.count({ where: { upgradeFromLicenseId: std.license.id } })).toBe(ordersBefore + 1);

    const order = await pay(first.body.session_id);
    const amount = (PRO - STANDARD) * 2;
    expect(order).toMatchObject({
      status: "paid",
      productId: fx.pro,
      quantity: 2,
      subtotalCents: amount,
      discountCents: 0,
      amountCents: amount,
      feeCents: platformFeeCents(amount),
      upgradeOfferId: fx.difference,
      upgradeFromLicenseId: std.license.id,
      buyerEmail: std.buyer,
    });
    const pro = order.license!;
    expect(pro).toMatchObject({ productId: fx.pro, maxMachines: 4, isActive: true, buyerEmail: std.buyer });
    expect(await getDb().license.count({ where: { orderId: order.id } })).toBe(1);

    const retired = await getDb().license.findUniqueOrThrow({ where: { id: std.license.id } });
    expect(retired).toMatchObject({ isActive: false, revocation: "upgraded", activeMachines: 0 });
    expect(await getDb().activation.count({ where: { licenseId: std.license.id } })).toBe(0);
    expect(await validate(std.license.key, std.machine)).toMatchObject({ valid: false, code: "UPGRADED" });
    const proMachine = fingerprint(`upgrade-pro-${run}`);
    expect((await activateMachine({ license_key: pro.key, machine_fingerprint: proMachine, plugin_id: fx.proPlugin })).activated).toBe(true);
    expect((await validate(pro.key, proMachine, fx.proPlugin)).code).toBe("VALID");

    // A retired source cannot be upgraded twice.
    expectProblem(await quote({ license_key: std.license.key, to_product_id: fx.pro }), 409, "license_not_upgradable");
    expectProblem(await upgrade({ license_key: std.license.key, to_product_id: fx.pro }), 409, "license_not_upgradable");

    const upgradedTo = (await events(std.license.id)).find((e) => e.type === "upgraded_to");
    expect(upgradedTo?.detail).toMatchObject({ license_id: pro.id, order_id: order.id, retired: true, machines_released: 1 });
    const upgradedFrom = (await events(pro.id)).find((e) => e.type === "upgraded_from");
    expect(upgradedFrom?.detail).toMatchObject({ license_id: std.license.id, order_id: order.id, source_retired: true });

    // A full refund of the upgrade ends Pro as any refund does and gives Standard back.
    const r = await call(refundRoute, `/api/v1/orders/${order.id}/refunds`, {
      method: "POST",
      json: { reason: "Changed my mind" },
      headers: { cookie: fx.cookie, origin: ORIGIN },
      params: { id: order.id },
    });
    expect(r.status, r.text).toBe(201);
    expect(await getDb().license.findUniqueOrThrow({ where: { id: pro.id } })).toMatchObject({ isActive: false, revocation: "refunded" });
    expect((await validate(pro.key, proMachine, fx.proPlugin)).code).toBe("REFUNDED");
    expect(await getDb().license.findUniqueOrThrow({ where: { id: std.license.id } })).toMatchObject({ isActive: true, revocation: null });
    // Its machines were released at the upgrade: the app activates again and runs.
    expect((await validate(std.license.key, std.machine)).code).toBe("NO_MACHINE");
    expect((await activateMachine({ license_key: std.license.key, machine_fingerprint: std.machine, plugin_id: fx.standardPlugin })).activated).toBe(
      true,
    );
    expect((await validate(std.license.key, std.machine)).code).toBe("VALID");
    const stdEvents = await events(std.license.id);
    expect(stdEvents.find((e) => e.type === "upgrade_refunded")?.detail).toMatchObject({ order_id: order.id, license_id: pro.id, reinstated: true });
    expect((await events(pro.id)).map((e) => e.type)).toEqual(expect.arrayContaining(["issued", "upgraded_from", "refunded"]));

    // Refunded, the upgrade no longer stands: the restored license may be upgraded again.
    expect((await quote({ license_key: std.license.key, to_product_id: fx.pro })).status).toBe(200);
  });

  it("a fixed price that keeps the source: the buyer signed in names the license by id; Standard keeps working; no second upgrade", async () => {
    const lite = await buyStandard(1, fx.lite, `com.upgrades.lite${run}`);
    const cookie = await buyerCookie(lite.buyer);
    const signedIn = { cookie, origin: ORIGIN };
    const q = await quote({ license_id: lite.license.id, offer_id: fx.fixed }, signedIn);
    expect(q.status, q.text).toBe(200);
    expect(q.body).toMatchObject({ pricing: "fixed", unit_price_cents: 3500, seats: 1, amount_cents: 3500, retire_source: false });

    // Naming a license by id needs the buyer's session, from our own pages for a checkout.
    expectProblem(await quote({ license_id: lite.license.id, offer_id: fx.fixed }), 401, "unauthorized");
    expectProblem(
      await upgrade({ license_id: lite.license.id, offer_id: fx.fixed }, { cookie, origin: "https://evil.example" }),
      403,
      "cross_site_request",
    );

    const started = await upgrade({ license_id: lite.license.id, offer_id: fx.fixed }, signedIn);
    expect(started.status, started.text).toBe(200);
    const order = await pay(started.body.session_id);
    expect(order).toMatchObject({ amountCents: 3500, productId: fx.pro, upgradeFromLicenseId: lite.license.id });
    expect(order.license).toMatchObject({ maxMachines: 2, isActive: true });
    // Kept: the Lite license still works on its machine.
    expect((await validate(lite.license.key, lite.machine, `com.upgrades.lite${run}`)).code).toBe("VALID");
    expect(await getDb().activation.count({ where: { licenseId: lite.license.id } })).toBe(1);
    const kept = (await events(lite.license.id)).find((e) => e.type === "upgraded_to");
    expect(kept?.detail).toMatchObject({ retired: false, license_id: order.license!.id });
    // Already upgraded by a paid order: not twice.
    expectProblem(await upgrade({ license_id: lite.license.id, offer_id: fx.fixed }, signedIn), 409, "license_already_upgraded");
  });

  it("two upgrade checkouts opened from one license before either is paid: the second payment is refunded, no second license", async () => {
    const std = await buyStandard();
    const first = await upgrade({ license_key: std.license.key, offer_id: fx.difference });
    const second = await upgrade({ license_key: std.license.key, offer_id: fx.difference });
    expect(first.status, first.text).toBe(200);
    expect(second.status, second.text).toBe(200);
    expect(second.body.session_id).not.toBe(first.body.session_id);

    const paid = await pay(first.body.session_id);
    expect(paid.license).toMatchObject({ productId: fx.pro, isActive: true });
    const late = await getDb().order.findUniqueOrThrow({
      where: { id: (await pay(second.body.session_id)).id },
      include: { license: true, refunds: true },
    });
    // The money came in and went back: the order is paid and refunded in full, with the reason first; no license.
    expect(late.status).toBe("paid");
    expect(late.license).toBeNull();
    expect(late.refundedCents).toBe(late.amountCents + (late.taxCents ?? 0));
    expect(late.refunds).toHaveLength(1);
    expect(late.refunds[0]!.reason).toMatch(/^upgrade_source_unavailable: /);
    expect(await getDb().license.count({ where: { productId: fx.pro, buyerEmail: std.buyer } })).toBe(1);
  });

  it("refuses a license the caller does not hold, an unknown key and a missing offer, creating nothing", async () => {
    const mine = await buyStandard();
    const theirs = await buyStandard();
    const cookie = await buyerCookie(mine.buyer);
    const before = await getDb().order.count();
    // Another buyer's license named by id: 404, as if it did not exist.
    expectProblem(await upgrade({ license_id: theirs.license.id, to_product_id: fx.pro }, { cookie, origin: ORIGIN }), 404, "license_not_found");
    expectProblem(await quote({ license_id: theirs.license.id, to_product_id: fx.pro }, { cookie }), 404, "license_not_found");
    expectProblem(await upgrade({ license_key: "ZZZZ-ZZZZ-ZZZZ-ZZZZ", to_product_id: fx.pro }), 404, "license_not_found");
    // No offer from Standard to Lite, and a switched-off offer is none.
    expectProblem(await upgrade({ license_key: mine.license.key, to_product_id: fx.lite }), 404, "upgrade_not_offered");
    expect((await patchOffer(fx.difference, { active: false })).status).toBe(200);
    expectProblem(await upgrade({ license_key: mine.license.key, offer_id: fx.difference }), 404, "upgrade_not_offered");
    expect((await patchOffer(fx.difference, { active: true })).status).toBe(200);
    // An offer of another product does not apply to this license.
    expectProblem(await upgrade({ license_key: mine.license.key, offer_id: fx.fixed }), 404, "upgrade_not_offered");
    // Both or neither way of naming the license is bad input.
    expectProblem(await upgrade({ license_key: mine.license.key, license_id: mine.license.id, to_product_id: fx.pro }), 400, "invalid_body");
    expectProblem(await upgrade({ to_product_id: fx.pro }), 400, "invalid_body");
    expect(await getDb().order.count()).toBe(before);
    expect(await getDb().license.findUniqueOrThrow({ where: { id: mine.license.id } })).toMatchObject({ isActive: true });
  });
});
