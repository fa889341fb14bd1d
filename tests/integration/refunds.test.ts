import { gunzipSync } from "node:zlib";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getOrderRoute } from "@/app/api/v1/orders/[id]/route";
import { POST as refundRoute } from "@/app/api/v1/orders/[id]/refunds/route";
import { GET as listOrdersRoute } from "@/app/api/v1/orders/route";
import { POST as webhook } from "@/app/api/webhooks/stripe/route";
import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { createDeveloperProfile } from "@/lib/selling/developer-profile";
import { createProduct } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { setLicenseStatus } from "@/lib/licensing/set-license-status";
import { validateLicense } from "@/lib/licensing/validate-license";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { platformFeeCents } from "@/lib/pricing";
import { refundOrder } from "@/lib/refunds/refund-order";
import { resumeAbandonedRefunds } from "@/lib/refunds/resume-refunds";
import { refundSplit } from "@/lib/refunds/settle-refund";
import { statusIndexFor, statusListCredential } from "@/lib/verifiable/status-list";
import { call, expectProblem } from "../helpers/http";
import { post, startLeanServer } from "../helpers/lean-server";
import { fingerprint } from "../helpers/licenses";
import { SELLER_TRUST, sellingDeveloper } from "../helpers/sellers";
import { startStripeStub } from "../helpers/stripe-stub";

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const PRICE = 2000;
let lean: Awaited<ReturnType<typeof startLeanServer>>;
const seller = { id: "", email: `refund-seller-${run}@example.com`, cookie: "", productId: "", pluginId: "" };
const other = { id: "", email: `refund-other-${run}@example.com`, cookie: "" };
let seq = 0;

async function signIn(email: string): Promise<string> {
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  return `${session.cookieName}=${session.cookieValue}`;
}

const productBody = (name: string, pluginId: string, price = PRICE) => ({
  name,
  tagline: "A product sold and refunded by the refunds suite.",
  description: "A product created by the refunds integration test, with a long enough description.",
  plugin_id: pluginId,
  price_cents: price,
  category: "dev-tools",
  max_machines: 2,
  seat_model: "per-machine",
  platforms: ["linux"],
  download_url: "https://example.com/download.zip",
  icon_url: "/icons/tape-warmth.svg",
});

/** A test-mode purchase paid through the Pay button's path; its license activated on one machine. */
async function buy() {
  const buyer = `buyer-${run}-${++seq}@example.com`;
  const { session_id } = await createCheckout({ product_id: seller.productId, buyer_email: buyer });
  await payTestCheckout(session_id);
  const order = await getDb().order.findUniqueOrThrow({ where: { id: session_id }, include: { license: true } });
  const machine = fingerprint();
  await activateMachine({ license_key: order.license!.key, machine_fingerprint: machine, plugin_id: seller.pluginId });
  return { order, license: order.license!, machine, buyer };
}

const refund = (orderId: string, body: unknown, cookie = seller.cookie) =>
  call(refundRoute, `/api/v1/orders/${orderId}/refunds`, { method: "POST", json: body, headers: { cookie }, params: { id: orderId } });

async function ledgerOf(orderId: string) {
  const rows = await getDb().ledgerEntry.findMany({ where: { orderId } });
  const sum = (kind: string) => rows.filter((r) => r.kind === kind).reduce((s, r) => s + r.amountMinor, 0);
  return { rows, sum };
}

/** Bit `index` of the published revocation list, as a verifier reads it. */
async function statusBit(index: number): Promise<boolean> {
  const jwt = await statusListCredential();
  const payload = JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as { credentialSubject: { encodedList: string } };
  const bits = gunzipSync(Buffer.from(payload.credentialSubject.encodedList.slice(1), "base64url"));
  return (bits[index >> 3]! & (0x80 >> (index & 7))) !== 0;
}

beforeAll(async () => {
  lean = await startLeanServer();
  const dev = await sellingDeveloper(seller.email, { name: `Refund Studio ${run}`, website: null, bio: "" });
  seller.id = dev.id;
  const product = await createProduct(dev.id, productInputSchema.parse(productBody(`Refundable ${run}`, `com.refunds.app${run}`)), { publish: true });
  seller.productId = product.id;
  seller.pluginId = product.pluginId;
  seller.cookie = await signIn(seller.email);
  other.id = (await sellingDeveloper(other.email, { name: `Other Studio ${run}`, website: null, bio: "" })).id;
  other.cookie = await signIn(other.email);
});

afterAll(async () => {
  await lean.close();
  await disconnectDb();
});

describe("refunds in test mode", () => {
  it("a full refund revokes the license: REFUNDED on /validate (function and lean path), status bit set, ledger and buyer mail", async () => {
    const { order, license, machine } = await buy();
    const index = await statusIndexFor(license.id);
    expect(await statusBit(index)).toBe(false);
    const req = { license_key: license.key, machine_fingerprint: machine, plugin_id: seller.pluginId };
    // Cached as valid first: the refund must not be hidden by the license cache.
    expect((await validateLicense(req)).code).toBe("VALID");
    expect((await post(lean.base, "/validate", req)).body.code).toBe("VALID");

    const r = await refund(order.id, { reason: "Bought by mistake" });
    expect(r.status, r.text).toBe(201);
    expect(r.body.refund).toMatchObject({ order_id: order.id, amount_cents: PRICE, currency: "usd", status: "succeeded", initiated_by: "seller" });

    const v = await validateLicense(req);
    expect(v).toMatchObject({ valid: false, code: "REFUNDED", detail: "The purchase was refunded, so the license is no longer valid." });
    const viaLean = await post(lean.base, "/validate", req);
    expect(viaLean.body).toMatchObject({ valid: false, code: "REFUNDED" });
    const act = await post(lean.base, "/activate", { ...req, machine_fingerprint: fingerprint() });
    expect(act.body).toMatchObject({ activated: false, code: "REFUNDED" });
    expect(await statusBit(index)).toBe(true);

    const row = await getDb().license.findUniqueOrThrow({ where: { id: license.id } });
    expect(row).toMatchObject({ isActive: false, revocation: "refunded" });
    expect(row.revokedAt).not.toBeNull();

    const { sum } = await ledgerOf(order.id);
    expect(sum("refund")).toBe(-PRICE);
    expect(sum("fee_refund")).toBe(platformFeeCents(PRICE));
    expect(sum("tax_refund")).toBe(0);
    expect(sum("sale") + sum("platform_fee") + sum("refund") + sum("fee_refund")).toBe(0);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: order.id } })).refundedCents).toBe(PRICE);

    const mail = await getDb().emailMessage.findUniqueOrThrow({ where: { dedupeKey: `refund:${r.body.refund.id}` } });
    expect(mail.to).toBe(order.buyerEmail);
    expect(mail.kind).toBe("refund");
    expect(mail.text).toContain("$20.00 USD");
    expect(mail.text).toContain("no longer works");

    // The buyer got the money back: the seller cannot quietly hand the license back.
    await expect(setLicenseStatus({ licenseId: license.id, active: true })).rejects.toMatchObject({
      code: "license_revoked_by_payment",
      status: 409,
    });
    expectProblem(await refund(order.id, { reason: "Again" }), 409, "refund_exceeds_remaining");
  });

  it("a partial refund keeps the license; the rest (the default amount) then completes it, the fee returned exactly", async () => {
    const { order, license, machine } = await buy();
    const req = { license_key: license.key, machine_fingerprint: machine, plugin_id: seller.pluginId };
    const first = await refund(order.id, { amount_cents: 333, reason: "Missing feature" });
    expect(first.status, first.text).toBe(201);
    expect((await validateLicense(req)).code).toBe("VALID");
    expect((await post(lean.base, "/validate", req)).body.code).toBe("VALID");
    const partialMail = await getDb().emailMessage.findUniqueOrThrow({ where: { dedupeKey: `refund:${first.body.refund.id}` } });
    expect(partialMail.text).toContain("$3.33 USD");
    expect(partialMail.text).toContain("keeps working");
    let l = await ledgerOf(order.id);
    expect(l.sum("refund")).toBe(-333);
    expect(l.sum("fee_refund")).toBe(17); // 5 % of 3.33, rounded

    expectProblem(await refund(order.id, { amount_cents: PRICE - 333 + 1, reason: "Too much" }), 409, "refund_exceeds_remaining");
    const rest = await refund(order.id, { reason: "Refund the rest" });
    expect(rest.status, rest.text).toBe(201);
    expect(rest.body.refund.amount_cents).toBe(PRICE - 333);
    expect((await validateLicense(req)).code).toBe("REFUNDED");
    l = await ledgerOf(order.id);
    expect(l.sum("refund")).toBe(-PRICE);
    expect(l.sum("fee_refund")).toBe(platformFeeCents(PRICE));
  });

  it("splits refunds between price and tax, and returns the whole fee and tax at the end", async () => {
    const { order } = await buy();
    await getDb().order.update({ where: { id: order.id }, data: { taxCents: 380 } });
    const parts = [700, 1, 999];
    for (const amount of parts) expect((await refund(order.id, { amount_cents: amount, reason: "Part" })).status).toBe(201);
    const last = await refund(order.id, { reason: "The rest" });
    expect(last.body.refund.amount_cents).toBe(PRICE + 380 - 1700);
    const l = await ledgerOf(order.id);
    expect(l.sum("refund")).toBe(-PRICE);
    expect(l.sum("tax_refund")).toBe(-380);
    expect(l.sum("fee_refund")).toBe(platformFeeCents(PRICE));
    // The split on running totals: each part in proportion, never more than what was paid.
    expect(refundSplit({ amountCents: 2000, taxCents: 380, feeCents: 100 }, { refunded: 0, price: 0, fee: 0 }, 700)).toEqual({
      price: 588,
      tax: 112,
      fee: 29,
      full: false,
    });
  });

  it('the seller\'s own revocation is REVOKED with revocation "seller", and reinstating clears it', async () => {
    const { license, machine } = await buy();
    const req = { license_key: license.key, machine_fingerprint: machine, plugin_id: seller.pluginId };
    await setLicenseStatus({ licenseId: license.id, active: false, reason: "Leaked key" });
    expect(await getDb().license.findUniqueOrThrow({ where: { id: license.id } })).toMatchObject({ isActive: false, revocation: "seller" });
    expect((await post(lean.base, "/validate", req)).body.code).toBe("REVOKED");
    await setLicenseStatus({ licenseId: license.id, active: true });
    expect(await getDb().license.findUniqueOrThrow({ where: { id: license.id } })).toMatchObject({ isActive: true, revocation: null });
    expect((await validateLicense(req)).code).toBe("VALID");
  });

  it("two concurrent full refunds of one order refund once", async () => {
    const { order } = await buy();
    const replies = await Promise.all([1, 2, 3].map(() => refund(order.id, { reason: "Race" })));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    for (const r of replies.filter((x) => x.status === 409)) expectProblem(r, 409, "refund_exceeds_remaining");
    expect(await getDb().refund.count({ where: { orderId: order.id } })).toBe(1);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: order.id } })).refundedCents).toBe(PRICE);
    expect((await ledgerOf(order.id)).sum("refund")).toBe(-PRICE);
  });

  it("concurrent partial refunds never together exceed what was paid", async () => {
    const { order } = await buy();
    const replies = await Promise.all([1, 2, 3, 4, 5].map(() => refund(order.id, { amount_cents: 600, reason: "Race part" })));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(3);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: order.id } })).refundedCents).toBe(1800);
    expect((await ledgerOf(order.id)).sum("refund")).toBe(-1800);
  });

  it("another seller's order is a 404 everywhere; refusals are problem documents", async () => {
    const { order } = await buy();
    expectProblem(await refund(order.id, { reason: "Not mine" }, other.cookie), 404, "order_not_found");
    expectProblem(
      await call(getOrderRoute, `/api/v1/orders/${order.id}`, { headers: { cookie: other.cookie }, params: { id: order.id } }),
      404,
      "order_not_found",
    );
    const theirs = await call(listOrdersRoute, `/api/v1/orders?q=${encodeURIComponent(order.buyerEmail)}`, {
      headers: { cookie: other.cookie },
    });
    expect(theirs.body.orders).toEqual([]);
    await expect(
      refundOrder({ orderId: order.id, reason: "x", actor: { kind: "seller", developerId: other.id, email: other.email } }),
    ).rejects.toMatchObject({ code: "order_not_found", status: 404 });
    expectProblem(await refund(order.id, { reason: "No cookie" }, ""), 401, "unauthorized");
    expectProblem(await refund(order.id, { reason: "" }), 400, "invalid_body");
    expectProblem(await refund(order.id, { reason: "two\nlines" }), 400, "invalid_body");
    expectProblem(await refund(order.id, { reason: "x", amount_cents: 0 }), 400, "invalid_body");
    expect((await getDb().order.findUniqueOrThrow({ where: { id: order.id } })).refundedCents).toBe(0);

    const { session_id: unpaid } = await createCheckout({ product_id: seller.productId, buyer_email: `unpaid-${run}@example.com` });
    expectProblem(await refund(unpaid, { reason: "Not paid" }), 409, "order_not_paid");
  });

  it("the operator refunds any order; the seller's list and order show it", async () => {
    const { order, license } = await buy();
    const r = await refundOrder({
      orderId: order.id,
      amountCents: 500,
      reason: "Operator goodwill",
      actor: { kind: "operator", email: "ops@example.com" },
    });
    expect(r).toMatchObject({ status: "succeeded", initiatedBy: "operator", actorEmail: "ops@example.com", amountCents: 500, full: false });

    const list = await call(listOrdersRoute, `/api/v1/orders?q=${encodeURIComponent(order.buyerEmail.toUpperCase())}`, {
      headers: { cookie: seller.cookie },
    });
    expect(list.status, list.text).toBe(200);
    expect(list.body.orders).toHaveLength(1);
    expect(list.body.orders[0]).toMatchObject({ id: order.id, refunded_cents: 500, refundable_cents: PRICE - 500, currency: "usd" });
    const byProduct = await call(listOrdersRoute, `/api/v1/orders?q=${encodeURIComponent(`refundable ${run}`)}`, {
      headers: { cookie: seller.cookie },
    });
    expect(byProduct.body.orders.map((o: { id: string }) => o.id)).toContain(order.id);

    const detail = await call(getOrderRoute, `/api/v1/orders/${order.id}`, { headers: { cookie: seller.cookie }, params: { id: order.id } });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.order).toMatchObject({
      id: order.id,
      refunded_cents: 500,
      refunds: [{ amount_cents: 500, initiated_by: "operator", reason: "Operator goodwill" }],
      license: { id: license.id, is_active: true, revocation: null },
    });
  });
});

// --- Stripe: refunds through the real SDK against the local stand-in, and refunds made in Stripe's dashboard ---

const SECRET = "whsec_refunds_suite";
const signer = new Stripe("sk_test_unused");
const saved = { ...process.env };

describe("refunds with Stripe", () => {
  let stub: Awaited<ReturnType<typeof startStripeStub>>;
  let refuse = false;
  /** What Stripe lists as the payment's refunds (GET /v1/refunds). */
  let listed: Array<{ id: string; status: string; metadata: Record<string, string> }> = [];
  const stripeSeller = { id: "", productId: "", account: `acct_refunds${run}` };
  let events = 0;

  beforeAll(async () => {
    stub = await startStripeStub({
      routes: {
        "POST /v1/refunds": (req, n) =>
          refuse
            ? { status: 400, body: { error: { type: "invalid_request_error", message: "Charge has already been refunded." } } }
            : { body: { id: `re_stub${n}`, object: "refund", amount: Number(req.form.get("amount")), status: "succeeded", metadata: {} } },
        "GET /v1/refunds": () => ({ body: { object: "list", data: listed.map((r) => ({ object: "refund", ...r })), has_more: false } }),
      },
    });
    Object.assign(process.env, { STRIPE_SECRET_KEY: "sk_test_refunds", STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_BASE: stub.base });
    resetEnv();
    const dev = await createDeveloperProfile(`stripe-refunds-${run}@example.com`, {
      ...SELLER_TRUST,
      name: `Stripe Refunds ${run}`,
      website: null,
      bio: "",
    });
    stripeSeller.id = dev.id;
    await getDb().payoutAccount.create({
      data: {
        id: stripeSeller.account,
        developerId: dev.id,
        provider: "stripe",
        chargesEnabled: true,
        payoutsEnabled: true,
        detailsSubmitted: true,
        requirementsDue: [],
      },
    });
    stripeSeller.productId = (
      await createProduct(dev.id, productInputSchema.parse(productBody(`Stripe Refundable ${run}`, `com.refunds.stripe${run}`)), { publish: true })
    ).id;
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
  const event = (type: string, object: unknown) => ({
    id: `evt_refunds_${run}_${++events}`,
    object: "event",
    type,
    api_version: "2026-10-28.endive",
    created: Math.floor(Date.now() / 1000),
    data: { object },
  });

  /** A Stripe order as checkout leaves it (open, a destination charge to the seller's account); `pay` completes it by a signed event. */
  async function stripeOrder() {
    const n = ++seq;
    const id = `cs_${`${run}${n}`.padEnd(24, "0").slice(0, 24)}`;
    const order = await getDb().order.create({
      data: {
        id,
        productId: stripeSeller.productId,
        buyerEmail: `stripe-buyer-${run}-${n}@example.com`,
        provider: "stripe",
        providerSessionId: `cs_test_refunds_${run}_${n}`,
        quantity: 1,
        subtotalCents: PRICE,
        amountCents: PRICE,
        feeCents: platformFeeCents(PRICE),
        currency: "usd",
        payoutAccountId: stripeSeller.account,
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    const pi = `pi_refunds_${run}_${n}`;
    const pay = () =>
      deliver(
        event("checkout.session.completed", {
          id: order.providerSessionId,
          object: "checkout.session",
          payment_status: "paid",
          status: "complete",
          amount_total: PRICE,
          currency: "usd",
          client_reference_id: order.id,
          metadata: { order_id: order.id },
          payment_intent: pi,
        }),
      );
    const charge = (amountRefunded: number) => ({
      id: `ch_${pi}`,
      object: "charge",
      amount: PRICE,
      amount_refunded: amountRefunded,
      currency: "usd",
      refunded: amountRefunded === PRICE,
      payment_intent: pi,
      metadata: { order_id: order.id },
    });
    return { order, pi, pay, charge };
  }

  it("a refund its process abandoned (amount reserved, crash) is finished from what Stripe knows, once", async () => {
    const o = await stripeOrder();
    expect((await o.pay()).status).toBe(200);
    const long = new Date(Date.now() - 20 * 60_000);
    // Two refunds reserved by a process that died: Stripe made the first, never heard of the second; a third is recent.
    const pending = async (id: string, amountCents: number, createdAt: Date) => {
      await getDb().order.update({ where: { id: o.order.id }, data: { refundedCents: { increment: amountCents } } });
      await getDb().refund.create({
        data: { id, orderId: o.order.id, amountCents, currency: "usd", reason: "Crashed", initiatedBy: "seller", status: "pending", createdAt },
      });
    };
    await pending(`rf_made${run}`, 500, long);
    await pending(`rf_lost${run}`, 300, long);
    await pending(`rf_fresh${run}`, 200, new Date());
    listed = [{ id: `re_made${run}`, status: "succeeded", metadata: { order_id: o.order.id, refund_id: `rf_made${run}` } }];
    const first = await resumeAbandonedRefunds();
    expect(first).toMatchObject({ settled: 1, failed: 1 });
    const rows = await getDb().refund.findMany({ where: { orderId: o.order.id }, orderBy: { amountCents: "desc" } });
    expect(rows.map((r) => [r.amountCents, r.status, r.providerRefundId])).toEqual([
      [500, "succeeded", `re_made${run}`],
      [300, "failed", null],
      [200, "pending", null],
    ]);
    // The made refund counts, the lost one's reservation is back, the recent one still holds its own.
    expect((await getDb().order.findUniqueOrThrow({ where: { id: o.order.id } })).refundedCents).toBe(700);
    expect((await ledgerOf(o.order.id)).sum("refund")).toBe(-500);
    expect(await getDb().emailMessage.count({ where: { dedupeKey: `refund:rf_made${run}` } })).toBe(1);
    // Another sweep (another instance) changes nothing.
    expect(await resumeAbandonedRefunds()).toMatchObject({ settled: 0, failed: 0 });
    expect((await ledgerOf(o.order.id)).sum("refund")).toBe(-500);
    listed = [];
  });

  it("asks Stripe for a refund reversing the transfer and the fee, with the refund's idempotency key", async () => {
    const o = await stripeOrder();
    expect((await o.pay()).status).toBe(200);
    const before = stub.requests.length;
    const r = await refundOrder({
      orderId: o.order.id,
      amountCents: 500,
      reason: "Partial",
      actor: { kind: "seller", developerId: stripeSeller.id, email: "s@example.com" },
    });
    expect(r).toMatchObject({ status: "succeeded", providerRefundId: expect.stringMatching(/^re_stub/) });
    const sent = stub.requests.slice(before).filter((q) => q.path === "/v1/refunds");
    expect(sent).toHaveLength(1);
    const form = sent[0]!.form;
    expect(Object.fromEntries(form)).toMatchObject({
      payment_intent: o.pi,
      amount: "500",
      reverse_transfer: "true",
      refund_application_fee: "true",
      "metadata[order_id]": o.order.id,
      "metadata[refund_id]": r.id,
    });
    expect(sent[0]!.headers["idempotency-key"]).toBe(`refund-${r.id}`);

    // Stripe's echo of our own refund adds nothing.
    const echo = await deliver(event("charge.refunded", o.charge(500)));
    expect(echo.status, echo.text).toBe(200);
    expect(await getDb().refund.count({ where: { orderId: o.order.id } })).toBe(1);
    expect((await ledgerOf(o.order.id)).sum("refund")).toBe(-500);
  });

  it("a refusal by Stripe gives the reservation back and answers 409 with its message", async () => {
    const o = await stripeOrder();
    await o.pay();
    refuse = true;
    try {
      await expect(
        refundOrder({ orderId: o.order.id, reason: "Refused", actor: { kind: "operator", email: "ops@example.com" } }),
      ).rejects.toMatchObject({ code: "refund_refused", status: 409, detail: expect.stringContaining("already been refunded") });
    } finally {
      refuse = false;
    }
    expect((await getDb().order.findUniqueOrThrow({ where: { id: o.order.id } })).refundedCents).toBe(0);
    expect(await getDb().refund.findFirstOrThrow({ where: { orderId: o.order.id } })).toMatchObject({ status: "failed" });
    expect((await ledgerOf(o.order.id)).sum("refund")).toBe(0);
  });

  it("a refund made in Stripe's dashboard is applied once: delivered twice, concurrently, and before the payment's completion", async () => {
    const o = await stripeOrder();
    // The refund's event arrives before the payment's completion: 409, so Stripe delivers it again later.
    const early = event("charge.refunded", o.charge(PRICE));
    expectProblem(await deliver(early), 409, "event_not_ready");
    expect(await getDb().refund.count({ where: { orderId: o.order.id } })).toBe(0);
    expect((await o.pay()).status).toBe(200);
    const license = await getDb().license.findUniqueOrThrow({ where: { orderId: o.order.id } });
    const product = await getDb().product.findUniqueOrThrow({ where: { id: stripeSeller.productId } });
    const machine = fingerprint();
    await activateMachine({ license_key: license.key, machine_fingerprint: machine, plugin_id: product.pluginId });

    const replies = await Promise.all([deliver(early), deliver(early), deliver(early)]);
    for (const r of replies) expect(r.status, r.text).toBe(200);
    expect(replies.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    const again = await deliver(early);
    expect(again.body).toMatchObject({ duplicate: true });
    // Another event with the same cumulative amount (charge.refunded twice for one refund) adds nothing either.
    expect((await deliver(event("charge.refunded", o.charge(PRICE)))).status).toBe(200);

    const refunds = await getDb().refund.findMany({ where: { orderId: o.order.id } });
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ initiatedBy: "provider", status: "succeeded", amountCents: PRICE });
    const l = await ledgerOf(o.order.id);
    expect(l.sum("refund")).toBe(-PRICE);
    expect(l.sum("fee_refund")).toBe(platformFeeCents(PRICE));
    const v = await validateLicense({ license_key: license.key, machine_fingerprint: machine, plugin_id: product.pluginId });
    expect(v.code).toBe("REFUNDED");
    expect(await getDb().emailMessage.count({ where: { dedupeKey: `refund:${refunds[0]!.id}` } })).toBe(1);
  });

  it("outside refunds in two steps each count once, whatever order their events arrive in", async () => {
    const o = await stripeOrder();
    await o.pay();
    const second = event("charge.refunded", o.charge(1500));
    const first = event("charge.refunded", o.charge(600));
    expect((await deliver(second)).status).toBe(200);
    expect((await deliver(first)).status).toBe(200);
    expect((await getDb().order.findUniqueOrThrow({ where: { id: o.order.id } })).refundedCents).toBe(1500);
    expect((await ledgerOf(o.order.id)).sum("refund")).toBe(-1500);
    expect((await getDb().license.findUniqueOrThrow({ where: { orderId: o.order.id } })).isActive).toBe(true);
  });
});
