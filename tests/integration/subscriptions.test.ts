import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { quoteCheckout } from "@/lib/checkout/quote-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { createCoupon } from "@/lib/coupons/manage-coupons";
import { createCouponInputSchema } from "@/lib/coupons/schemas";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { priceSession } from "@/lib/acp/serialize";
import { refundOrder } from "@/lib/refunds/refund-order";
import { processSubscription, runSubscriptionJobs } from "@/lib/subscriptions/renewals";
import { addMonths } from "@/lib/subscriptions/plans";
import { cancelSubscriptionAs } from "@/lib/subscriptions/manage";
import { subscriptionMetrics } from "@/lib/subscriptions/metrics";
import { checkLicenseStatus } from "@/lib/licensing/check-license-status";
import { issueLicenseFile } from "@/lib/verifiable/license-file";
import { restRoutes } from "@/lib/transports/rest";
import { call, expectProblem, type Reply } from "../helpers/http";
import { fingerprint } from "../helpers/licenses";
import { checkAt, mailKinds, subscriptionEvents, subscriptionRow } from "../helpers/subscriptions";
import { createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

/**
 * A subscription's whole life in test mode, on both engines: bought monthly with a coupon, renewed, declined (valid
 * through the grace, then SUBSCRIPTION_PAST_DUE), recovered with a new card, canceled (valid to the period's end, then
 * EXPIRED), and the refund of a latest charge ending one at once. Each step checks the license as apps see it, the
 * e-mails the buyer gets, the seller's webhook events, the ledger, and that repeating a step changes nothing. The
 * operator's clock (advanceTestClock) moves the time, through the REST route and execute(), as the console does.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ADMIN_EMAIL = `ops-subs-${run}@example.com`;
const MONTHLY = 900;
const YEARLY = 9000;
const GRACE = 3;
const DAY = 86_400_000;
const saved = { ...process.env };
let adminCookie = "";
let seq = 0;

/** A REST call of the registry's route at `template`, as the console or a seller's script makes it. */
async function rest(template: string, method: "GET" | "POST", cookie: string, id: string, json?: unknown): Promise<Reply> {
  const path = template.replace("{id}", encodeURIComponent(id));
  const headers = { cookie, [CLIENT_ADDRESS_HEADER]: "198.51.100.32" };
  return call(restRoutes(template)[method], path, { method, headers, params: { id }, ...(json !== undefined ? { json } : {}) });
}
const advance = (id: string, days: number, card?: "succeeds" | "fails") =>
  rest("/api/admin/subscriptions/{id}/advance", "POST", adminCookie, id, { days, ...(card ? { card } : {}) });

/** A seller with a monthly-or-yearly subscription product and a coupon for its first two months. */
async function shop(opts: { trialDays?: number; fallbackAfterMonths?: number } = {}) {
  const n = ++seq;
  const email = `subs-seller-${n}-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Subs ${n} ${run}`, website: null, bio: "" });
  const product = await createTestProduct(dev.id, `Subscribed ${n} ${run}`, `com.subs.app${n}${run}`, {
    pricing_model: "subscription",
    monthly_price_cents: MONTHLY,
    yearly_price_cents: YEARLY,
    grace_days: GRACE,
    ...(opts.trialDays ? { subscription_trial_days: opts.trialDays } : {}),
    ...(opts.fallbackAfterMonths ? { fallback_after_months: opts.fallbackAfterMonths } : {}),
  });
  // An endpoint, so the seller's webhook events are queued for it.
  await getDb().sellerWebhookEndpoint.create({
    data: {
      id: `we_${run}_${n}`,
      developerId: dev.id,
      url: `https://hooks.example.com/${run}/${n}`,
      secret: "whsec_dGVzdA==",
      events: [],
      enabled: true,
    },
  });
  const code = `TWO${n}${run}`.slice(0, 32).toUpperCase();
  await createCoupon(dev.id, createCouponInputSchema.parse({ code, kind: "percent", percent_off: 20, duration: "repeating", duration_in_months: 2 }));
  return { developerId: dev.id, product, code, email };
}

/** Buys the product monthly through the test checkout; returns the key, the subscription and a machine activated. */
async function subscribe(productId: string, code?: string, interval: "month" | "year" = "month") {
  const buyerEmail = `subs-buyer-${++seq}-${run}@example.com`;
  const session = await createCheckout({ product_id: productId, buyer_email: buyerEmail, interval, ...(code ? { coupon_code: code } : {}) });
  const paid = await payTestCheckout(session.session_id);
  expect(paid.fulfilled).toBe(true);
  const sub = await getDb().subscription.findFirstOrThrow({ where: { buyerEmail }, include: { license: true, product: true } });
  const fp = fingerprint(`${run}-${seq}`);
  const activated = await activateMachine({ license_key: sub.license!.key, machine_fingerprint: fp, plugin_id: sub.product.pluginId });
  expect(activated.code).toBe("ACTIVATED");
  return { buyerEmail, sub, key: sub.license!.key, fp, pluginId: sub.product.pluginId, sessionId: session.session_id };
}

const check = checkAt;

const subscription = subscriptionRow;
const mails = mailKinds;
const events = subscriptionEvents;

beforeAll(async () => {
  process.env.ADMIN_EMAILS = ADMIN_EMAIL;
  process.env.PAYMENTS = "test";
  resetEnv();
  adminCookie = await sellerCookie(ADMIN_EMAIL);
});

afterAll(async () => {
  process.env = { ...saved };
  resetEnv();
  await disconnectDb();
});

describe("a monthly subscription in test mode", () => {
  it("is quoted, bought with a coupon and licensed until the period's end plus the grace", async () => {
    const shopA = await shop();
    const quote = await quoteCheckout({ product_id: shopA.product.id, interval: "year" });
    expect(quote).toMatchObject({ interval: "year", unit_price_cents: YEARLY, amount_cents: YEARLY, trial_days: 0 });
    const s = await subscribe(shopA.product.id, shopA.code);
    expect(s.sub).toMatchObject({
      status: "active",
      interval: "month",
      unitAmountCents: MONTHLY,
      couponDuration: "repeating",
      couponMonths: 2,
      paidPeriods: 1,
    });
    expect(s.sub.currentPeriodEnd.getTime()).toBe(addMonths(s.sub.currentPeriodStart, 1).getTime());
    expect(s.sub.license!.expiresAt!.getTime()).toBe(s.sub.currentPeriodEnd.getTime() + GRACE * DAY);
    expect(s.sub.license!.billing).toBe("active");
    const first = await getDb().order.findUniqueOrThrow({ where: { id: s.sessionId } });
    expect(first).toMatchObject({ subscriptionId: s.sub.id, amountCents: MONTHLY - 180, discountCents: 180, status: "paid" });
    const v = await check(s);
    expect(v).toMatchObject({ valid: true, code: "VALID", expires_at: s.sub.license!.expiresAt!.toISOString() });
    expect(await events(shopA.developerId)).toEqual(["subscription.created"]);
    expect(await mails(s.buyerEmail)).toEqual(["license"]);
    // The offline license file states the subscription and never reaches past the paid period plus the grace.
    const file = await issueLicenseFile({ key: s.key, fingerprint: s.fp, plugin_id: s.pluginId });
    expect(file.payload.license.subscription).toEqual({ status: "active" });
    expect(Date.parse(file.payload.expires_at)).toBeLessThanOrEqual(s.sub.license!.expiresAt!.getTime());
  });

  it("renews, is declined (valid through the grace, then SUBSCRIPTION_PAST_DUE), recovers, is canceled and expires", async () => {
    const shopA = await shop();
    const s = await subscribe(shopA.product.id, shopA.code);

    // A month later: renewed at the coupon's price (its second month), the license a month longer.
    const renewed = await advance(s.sub.id, 31);
    expect(renewed.status, renewed.text).toBe(200);
    expect(renewed.body.subscription).toMatchObject({ status: "active", paid_periods: 2 });
    let sub = await subscription(s.sub.id);
    const charges = await getDb().order.findMany({ where: { subscriptionId: sub.id, status: "paid" }, orderBy: { periodStart: "asc" } });
    expect(charges.map((c) => c.amountCents)).toEqual([MONTHLY - 180, MONTHLY - 180]);
    expect(sub.license!.expiresAt!.getTime()).toBe(sub.currentPeriodEnd.getTime() + GRACE * DAY);
    expect((await check(s)).code).toBe("VALID");

    // The job loop running again, twice at once, charges nothing more: the period is paid.
    await Promise.all([processSubscription(sub.id, new Date()), processSubscription(sub.id, new Date()), runSubscriptionJobs(new Date())]);
    expect(await getDb().order.count({ where: { subscriptionId: sub.id } })).toBe(2);

    // The next renewal is declined: past due, valid during the grace, then SUBSCRIPTION_PAST_DUE.
    const declined = await advance(s.sub.id, 31, "fails");
    expect(declined.body.subscription).toMatchObject({ status: "past_due", paid_periods: 2 });
    sub = await subscription(s.sub.id);
    expect(sub.license!.billing).toBe("past_due");
    expect((await check(s)).code).toBe("VALID");
    await advance(s.sub.id, GRACE + 1);
    const pastDue = await check(s);
    expect(pastDue).toMatchObject({ valid: false, code: "SUBSCRIPTION_PAST_DUE" });

    // The buyer fixes the card: charged at once (the coupon's two months are over: the full price), valid again.
    const fixed = await rest("/api/admin/subscriptions/{id}/test-card", "POST", adminCookie, s.sub.id, { card: "succeeds" });
    expect(fixed.body.subscription).toMatchObject({ status: "active", paid_periods: 3 });
    const third = await getDb().order.findMany({ where: { subscriptionId: sub.id, status: "paid" }, orderBy: { periodStart: "asc" } });
    expect(third.map((c) => c.amountCents)).toEqual([MONTHLY - 180, MONTHLY - 180, MONTHLY]);
    expect((await check(s)).code).toBe("VALID");

    // The seller cancels (seller API): valid until the period's end, without the grace, then EXPIRED.
    const seller = await sellerCookie(shopA.email);
    const canceled = await rest("/api/v1/subscriptions/{id}/cancel", "POST", seller, s.sub.id);
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body.subscription).toMatchObject({ status: "canceling", cancel_at_period_end: true, next_charge: null });
    sub = await subscription(s.sub.id);
    expect(sub.license!.expiresAt!.getTime()).toBe(sub.currentPeriodEnd.getTime());
    expect((await check(s)).code).toBe("VALID");
    expectProblem(await rest("/api/v1/subscriptions/{id}/cancel", "POST", seller, s.sub.id), 409, "subscription_already_canceled");

    const ended = await advance(s.sub.id, 31);
    expect(ended.body.subscription).toMatchObject({ status: "ended", end_reason: "canceled" });
    expect(await getDb().order.count({ where: { subscriptionId: sub.id } })).toBe(3);
    expect(await check(s)).toMatchObject({ valid: false, code: "EXPIRED" });
    expectProblem(await rest("/api/v1/subscriptions/{id}/cancel", "POST", seller, s.sub.id), 409, "subscription_ended");
    expectProblem(
      await rest("/api/admin/subscriptions/{id}/test-card", "POST", adminCookie, s.sub.id, { card: "succeeds" }),
      409,
      "subscription_ended",
    );

    // Each step told once: the seller's endpoint, the buyer's mail.
    expect(await events(shopA.developerId)).toEqual([
      "subscription.created",
      "subscription.renewed",
      "subscription.past_due",
      "subscription.recovered",
      "subscription.canceled",
      "subscription.expired",
    ]);
    expect(await mails(s.buyerEmail)).toEqual([
      "license",
      "subscription-renewed",
      "subscription-payment_failed",
      "subscription-recovered",
      "subscription-canceled",
      "subscription-expired",
    ]);
    // The license's own log, for the seller's license page.
    const log = await getDb().licenseEvent.findMany({ where: { licenseId: sub.licenseId! }, orderBy: { createdAt: "asc" } });
    expect(log.map((e) => e.type)).toEqual(expect.arrayContaining(["issued", "renewed", "payment_failed", "recovered", "canceled", "expired"]));

    // Every charge is in the ledger as a sale, like any order: sales less discounts equal what was paid, to the cent.
    const ledger = await getDb().ledgerEntry.findMany({ where: { order: { subscriptionId: sub.id } } });
    const total = (kind: string) => ledger.filter((e) => e.kind === kind).reduce((t, e) => t + e.amountMinor, 0);
    expect(total("sale") + total("discount")).toBe(2 * (MONTHLY - 180) + MONTHLY);
  });

  it("resumes a cancellation before the period ends, with the grace back", async () => {
    const shopA = await shop();
    const s = await subscribe(shopA.product.id);
    const seller = await sellerCookie(shopA.email);
    expectProblem(await rest("/api/v1/subscriptions/{id}/cancel", "POST", seller, "sub_nobody"), 404, "subscription_not_found");
    await rest("/api/v1/subscriptions/{id}/cancel", "POST", seller, s.sub.id);
    const { resumeSubscriptionAs } = await import("@/lib/subscriptions/manage");
    const resumed = await resumeSubscriptionAs({ buyerEmail: s.buyerEmail }, s.sub.id, { type: "buyer", name: s.buyerEmail });
    expect(resumed).toMatchObject({ status: "active", cancel_at_period_end: false });
    const sub = await subscription(s.sub.id);
    expect(sub.license!.expiresAt!.getTime()).toBe(sub.currentPeriodEnd.getTime() + GRACE * DAY);
    await expect(resumeSubscriptionAs({ buyerEmail: s.buyerEmail }, s.sub.id, { type: "buyer", name: null })).rejects.toMatchObject({
      code: "subscription_not_canceled",
    });
    // Another buyer cannot reach it.
    await expect(resumeSubscriptionAs({ buyerEmail: "someone-else@example.com" }, s.sub.id, { type: "buyer", name: null })).rejects.toMatchObject({
      status: 404,
    });
  });

  it("ends at once, REFUNDED, when its latest charge is refunded in full; an older charge's refund leaves it running", async () => {
    const shopA = await shop();
    const s = await subscribe(shopA.product.id);
    await advance(s.sub.id, 31);
    const [first, latest] = await getDb().order.findMany({ where: { subscriptionId: s.sub.id }, orderBy: { periodStart: "asc" } });
    await refundOrder({
      orderId: first!.id,
      amountCents: first!.amountCents,
      reason: "first month back",
      actor: { kind: "operator", email: ADMIN_EMAIL },
    });
    expect((await subscription(s.sub.id)).status).toBe("active");
    expect((await check(s)).code).toBe("VALID");
    await refundOrder({
      orderId: latest!.id,
      amountCents: latest!.amountCents,
      reason: "did not want it",
      actor: { kind: "operator", email: ADMIN_EMAIL },
    });
    const sub = await subscription(s.sub.id);
    expect(sub).toMatchObject({ status: "ended", endReason: "refunded" });
    expect(await check(s)).toMatchObject({ valid: false, code: "REFUNDED" });
    // Nothing more is charged, however far the clock moves.
    await advance(s.sub.id, 62);
    expect(await getDb().order.count({ where: { subscriptionId: s.sub.id } })).toBe(2);
  });

  it("with a free trial: nothing charged now, the first charge at the trial's end", async () => {
    const shopA = await shop({ trialDays: 14 });
    const s = await subscribe(shopA.product.id, shopA.code);
    expect(s.sub).toMatchObject({ status: "trialing", paidPeriods: 0 });
    expect((await getDb().order.findUniqueOrThrow({ where: { id: s.sessionId } })).amountCents).toBe(0);
    expect(s.sub.license!.expiresAt!.getTime()).toBe(s.sub.trialEnd!.getTime() + GRACE * DAY);
    const converted = await advance(s.sub.id, 15);
    expect(converted.body.subscription).toMatchObject({ status: "active", paid_periods: 1 });
    const charges = await getDb().order.findMany({ where: { subscriptionId: s.sub.id, status: "paid" }, orderBy: { periodStart: "asc" } });
    // The coupon's first month is the first charge after the trial.
    expect(charges.map((c) => c.amountCents)).toEqual([0, MONTHLY - 180]);
    expect((await check(s)).code).toBe("VALID");
  });

  it("keeps a perpetual license for what was paid when the fallback applies", async () => {
    const shopA = await shop({ fallbackAfterMonths: 2 });
    const s = await subscribe(shopA.product.id);
    await advance(s.sub.id, 31); // two months paid
    await cancelSubscriptionAs({ buyerEmail: s.buyerEmail }, s.sub.id, { type: "buyer", name: s.buyerEmail });
    await advance(s.sub.id, 31);
    const sub = await subscription(s.sub.id);
    expect(sub.status).toBe("ended");
    expect(sub.license!.expiresAt).toBeNull();
    expect(sub.license!.updatesUntil!.getTime()).toBe(sub.currentPeriodEnd.getTime());
    expect((await check(s)).code).toBe("VALID");
  });
});

describe("a yearly subscription", () => {
  it("reminds the buyer once, a week before it renews", async () => {
    const shopA = await shop();
    const s = await subscribe(shopA.product.id, undefined, "year");
    await runSubscriptionJobs(new Date());
    expect(await getDb().emailMessage.count({ where: { to: s.buyerEmail, kind: "subscription-reminder" } })).toBe(0);
    // Five days before the renewal: reminded, once however often the loop runs.
    const days = Math.round((s.sub.currentPeriodEnd.getTime() - Date.now()) / DAY) - 5;
    await advance(s.sub.id, days);
    await Promise.all([runSubscriptionJobs(new Date()), runSubscriptionJobs(new Date())]);
    await runSubscriptionJobs(new Date());
    const reminders = await getDb().emailMessage.findMany({ where: { to: s.buyerEmail, kind: "subscription-reminder" } });
    expect(reminders).toHaveLength(1);
    expect(reminders[0]!.text).toContain("we will charge $90.00 USD for another year");
    expect((await subscription(s.sub.id)).status).toBe("active");
  });
});

describe("figures and what agents read", () => {
  it("counts MRR, subscribers and upcoming renewals per currency; check_license_status states the subscription", async () => {
    const shopA = await shop();
    const a = await subscribe(shopA.product.id, shopA.code); // 720 a month for two months
    await subscribe(shopA.product.id, undefined, "year"); // 9,000 a year: 750 a month
    const c = await subscribe(shopA.product.id); // canceled: renews no more
    await cancelSubscriptionAs({ developerId: shopA.developerId }, c.sub.id, { type: "seller", name: null });
    const [usd, ...others] = await subscriptionMetrics(shopA.developerId, new Date(Date.now() + 5 * DAY));
    expect(others).toEqual([]);
    expect(usd).toMatchObject({ currency: "usd", mrr_cents: 720 + 750, active: 3, trialing: 0, churned_30d: 0, churn_rate: null });
    expect(usd!.upcoming_30d).toMatchObject({ count: 1, amount_cents: 720 });
    const status = await checkLicenseStatus({ license_key: a.key, plugin_id: a.pluginId });
    expect(status.subscription).toMatchObject({ status: "active", interval: "month", renews: true, grace_days: GRACE });
    expect(status.subscription!.current_period_end).toBe(a.sub.currentPeriodEnd.toISOString());
    const cStatus = await checkLicenseStatus({ license_key: c.key, plugin_id: c.pluginId });
    expect(cStatus.subscription).toMatchObject({ status: "canceling", renews: false });
  });
});

describe("bad input and other doors", () => {
  it("refuses an interval a product does not offer, and a subscription on ACP, each with its own code", async () => {
    const shopA = await shop();
    const once = await getDb().product.findFirstOrThrow({ where: { status: "active", pricingModel: "one_time", priceCents: { gt: 0 } } });
    await expect(quoteCheckout({ product_id: once.id, interval: "month" })).rejects.toMatchObject({ code: "interval_not_offered", status: 400 });
    await getDb().product.update({ where: { id: shopA.product.id }, data: { yearlyPriceCents: null } });
    await expect(quoteCheckout({ product_id: shopA.product.id, interval: "year" })).rejects.toMatchObject({ code: "interval_not_offered" });
    await expect(priceSession(shopA.product.id, 1, [])).rejects.toMatchObject({ code: "recurring_not_supported", status: 400 });
    expectProblem(await advance("sub_nobody", 3), 404, "subscription_not_found");
    const bad = await advance("sub_x", 0);
    expect(bad.status).toBe(400);
  });
});
