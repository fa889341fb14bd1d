import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as create } from "@/app/api/checkout/create/route";
import { POST as webhook } from "@/app/api/webhooks/stripe/route";
import { createCoupon } from "@/lib/coupons/manage-coupons";
import { createCouponInputSchema } from "@/lib/coupons/schemas";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { createDeveloperProfile } from "@/lib/selling/developer-profile";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { refundOrder } from "@/lib/refunds/refund-order";
import { billingPortalUrl, cancelSubscriptionAs, resumeSubscriptionAs } from "@/lib/subscriptions/manage";
import { changePlan } from "@/lib/subscriptions/change-plan";
import { addMonths } from "@/lib/subscriptions/plans";
import { runSubscriptionJobs } from "@/lib/subscriptions/renewals";
import { call } from "../helpers/http";
import { fingerprint } from "../helpers/licenses";
import { checkAt, mailKinds, subscriptionEvents, subscriptionRow } from "../helpers/subscriptions";
import { createTestProduct, SELLER_TRUST } from "../helpers/sellers";
import { startStripeStub } from "../helpers/stripe-stub";
import { stripeBilling, type StubSubscription } from "../helpers/stripe-billing";

/**
 * Subscriptions on Stripe's path, on both engines: the real SDK opens Checkout in `mode: subscription` on a
 * destination charge against the local stand-in, and Stripe Billing's signed events (checkout.session.completed,
 * invoice.paid, invoice.payment_failed, customer.subscription.updated / .deleted) reach the real webhook route, each
 * delivered twice and some out of order. Each step checks the license as apps see it, the buyer's e-mails, the
 * seller's webhook events and the ledger, once each; what is decided here (a cancellation, a resumption, a refund) is
 * sent to Stripe.
 */

const SECRET = "whsec_stripe_billing_suite";
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const MONTHLY = 900;
const GRACE = 3;
const DAY = 86_400_000;
const saved = { ...process.env };
const billing = stripeBilling(SECRET);
let stub: Awaited<ReturnType<typeof startStripeStub>>;
let failStub = false;
let seq = 0;

beforeAll(async () => {
  stub = await startStripeStub({
    routes: {
      ...billing.routes,
      "POST /v1/refunds": (req, n) => ({
        body: { id: `re_billing${n}`, object: "refund", amount: Number(req.form.get("amount")), status: "succeeded", metadata: {} },
      }),
    },
    fail: () => failStub,
  });
  Object.assign(process.env, { STRIPE_SECRET_KEY: "sk_test_billing", STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_BASE: stub.base });
  delete process.env.PAYMENTS;
  resetEnv();
});

afterAll(async () => {
  process.env = { ...saved };
  resetEnv();
  await stub.close();
  await disconnectDb();
});

async function deliver(event: unknown) {
  const { payload, header } = billing.sign(event);
  return call(webhook, "/api/webhooks/stripe", {
    method: "POST",
    body: payload,
    headers: { "content-type": "application/json", "stripe-signature": header },
  });
}
/** Delivers an event twice, as Stripe may: both answered 2xx, the second a duplicate. */
async function deliverTwice(event: unknown) {
  const first = await deliver(event);
  expect(first.status, first.text).toBe(200);
  const second = await deliver(event);
  expect(second.status, second.text).toBe(200);
  expect(second.body.duplicate).toBe(true);
  return first.body;
}

/** A seller paid out through Stripe Connect, with a monthly subscription product and a coupon for its first two months. */
async function shop(opts: { trialDays?: number } = {}) {
  const n = ++seq;
  const dev = await createDeveloperProfile(`billing-seller-${n}-${run}@example.com`, {
    ...SELLER_TRUST,
    name: `Billing ${n} ${run}`,
    website: null,
    bio: "",
  });
  const account = `acct_${run}${n}`;
  await getDb().payoutAccount.create({
    data: {
      id: account,
      developerId: dev.id,
      provider: "stripe",
      chargesEnabled: true,
      payoutsEnabled: true,
      detailsSubmitted: true,
      requirementsDue: [],
    },
  });
  const product = await createTestProduct(dev.id, `Billed ${n} ${run}`, `com.billing.app${n}${run}`, {
    pricing_model: "subscription",
    monthly_price_cents: MONTHLY,
    grace_days: GRACE,
    ...(opts.trialDays ? { subscription_trial_days: opts.trialDays } : {}),
  });
  await getDb().sellerWebhookEndpoint.create({
    data: {
      id: `we_b_${run}_${n}`,
      developerId: dev.id,
      url: `https://hooks.example.com/b/${run}/${n}`,
      secret: "whsec_dGVzdA==",
      events: [],
      enabled: true,
    },
  });
  const code = `BILL${n}${run}`.slice(0, 32).toUpperCase();
  await createCoupon(dev.id, createCouponInputSchema.parse({ code, kind: "percent", percent_off: 20, duration: "repeating", duration_in_months: 2 }));
  return { developerId: dev.id, product, code, account };
}

/**
 * Subscribes through Stripe Checkout: the session as the SDK asked for it, Stripe's subscription, and the completion
 * delivered twice. Returns the subscription here and on Stripe, and a machine activated on the key.
 */
async function subscribe(shopped: Awaited<ReturnType<typeof shop>>, opts: { coupon?: boolean; trialDays?: number } = {}) {
  const buyerEmail = `billing-buyer-${++seq}-${run}@example.com`;
  const before = stub.requests.length;
  const r = await call(create, "/api/checkout/create", {
    method: "POST",
    json: { product_id: shopped.product.id, buyer_email: buyerEmail, interval: "month", ...(opts.coupon ? { coupon_code: shopped.code } : {}) },
  });
  expect(r.status, r.text).toBe(200);
  const order = await getDb().order.findUniqueOrThrow({ where: { id: r.body.session_id } });
  const sessionRequest = stub.requests.slice(before).find((q) => q.path === "/v1/checkout/sessions")!;
  const now = new Date();
  const trialEnd = opts.trialDays ? new Date(now.getTime() + opts.trialDays * DAY) : null;
  const stripeSub = billing.create({
    orderId: order.id,
    quantity: order.quantity,
    unitAmount: MONTHLY,
    start: now,
    end: trialEnd ?? addMonths(now, 1),
    trialEnd,
  });
  const completed = billing.sessionCompleted(stripeSub, {
    id: order.providerSessionId!,
    orderId: order.id,
    amount: order.amountCents,
    trial: Boolean(trialEnd),
  });
  const applied = await deliverTwice(completed);
  expect(applied.fulfilled).toBe(true);
  const sub = await getDb().subscription.findFirstOrThrow({ where: { buyerEmail }, include: { license: true, product: true } });
  const fp = fingerprint(`billing-${run}-${seq}`);
  expect((await activateMachine({ license_key: sub.license!.key, machine_fingerprint: fp, plugin_id: sub.product.pluginId })).code).toBe("ACTIVATED");
  return { buyerEmail, order, sessionRequest, stripeSub, sub, key: sub.license!.key, fp, pluginId: sub.product.pluginId };
}

const check = checkAt;
const subscription = subscriptionRow;
const mails = mailKinds;
const events = subscriptionEvents;
const ledger = async (orderId: string) =>
  Object.fromEntries((await getDb().ledgerEntry.findMany({ where: { orderId } })).map((e) => [e.kind, e.amountMinor]));

describe("a monthly subscription billed by Stripe", () => {
  it("is sold through Checkout in subscription mode on a destination charge, with the coupon as a Stripe coupon", async () => {
    const shopped = await shop();
    const s = await subscribe(shopped, { coupon: true });
    const f = s.sessionRequest.form;
    expect(f.get("mode")).toBe("subscription");
    expect(f.get("line_items[0][price_data][unit_amount]")).toBe(String(MONTHLY));
    expect(f.get("line_items[0][price_data][recurring][interval]")).toBe("month");
    expect(f.get("subscription_data[application_fee_percent]")).toBe("5");
    expect(f.get("subscription_data[transfer_data][destination]")).toBe(shopped.account);
    expect(f.get("subscription_data[on_behalf_of]")).toBe(shopped.account);
    expect(f.get("subscription_data[metadata][order_id]")).toBe(s.order.id);
    expect(f.get("payment_intent_data[application_fee_amount]")).toBeNull();
    const couponRequest = stub.requests.find((q) => q.path === "/v1/coupons" && q.form.get("metadata[order_id]") === s.order.id)!;
    // 20 % of 900, off each of the first two months' charges, to the cent.
    expect(Object.fromEntries(couponRequest.form)).toMatchObject({
      amount_off: "180",
      currency: "usd",
      duration: "repeating",
      duration_in_months: "2",
    });
    expect(f.get("discounts[0][coupon]")).toMatch(/^co_/);
    expect(s.order.amountCents).toBe(720);

    expect(s.sub).toMatchObject({
      provider: "stripe",
      providerSubscriptionId: s.stripeSub.id,
      providerCustomerId: s.stripeSub.customer,
      status: "active",
    });
    expect(s.sub.currentPeriodEnd.getTime()).toBe(s.stripeSub.periodEnd * 1000);
    expect(s.sub.license!.expiresAt!.getTime()).toBe(s.stripeSub.periodEnd * 1000 + GRACE * DAY);
    const paid = await getDb().order.findUniqueOrThrow({ where: { id: s.order.id } });
    expect(paid).toMatchObject({ status: "paid", providerPaymentId: `pi_in_${s.stripeSub.id}_first`, subscriptionId: s.sub.id });
    expect(await ledger(s.order.id)).toMatchObject({ sale: 900, discount: -180, platform_fee: -36 });
  });

  it("follows Stripe's invoices and its subscription through renewal, decline, recovery and cancellation, each once", async () => {
    const shopped = await shop();
    const s = await subscribe(shopped, { coupon: true });
    const st: StubSubscription = s.stripeSub;
    const p1End = new Date(st.periodEnd * 1000);
    const p2End = addMonths(p1End, 1);
    const p3End = addMonths(p2End, 1);

    // Month 2 renews, still with the coupon: delivered twice.
    const renew = billing.invoice("invoice.paid", st, { id: `in_${run}_2`, start: p1End, end: p2End, amount: 720, discount: 180 });
    expect((await deliverTwice(renew)).fulfilled).toBe(true);
    let now = await subscription(s.sub.id);
    expect(now.currentPeriodEnd).toEqual(p2End);
    expect(now.license!.expiresAt!.getTime()).toBe(p2End.getTime() + GRACE * DAY);
    expect((await check(s, p1End.getTime() + 10 * DAY)).code).toBe("VALID");
    const renewal = await getDb().order.findUniqueOrThrow({ where: { providerSessionId: `in_${run}_2` } });
    expect(renewal).toMatchObject({ status: "paid", amountCents: 720, providerPaymentId: `pi_in_${run}_2`, periodStart: p1End, periodEnd: p2End });
    expect(await ledger(renewal.id)).toMatchObject({ sale: 900, discount: -180, platform_fee: -36 });

    // Month 3 is declined: valid through the grace, then SUBSCRIPTION_PAST_DUE.
    const failed = billing.invoice("invoice.payment_failed", st, { id: `in_${run}_3`, start: p2End, end: p3End, amount: 900 });
    await deliverTwice(failed);
    now = await subscription(s.sub.id);
    expect(now.status).toBe("past_due");
    expect(now.license!.billing).toBe("past_due");
    expect((await check(s, p2End.getTime() + 2 * DAY)).code).toBe("VALID");
    expect((await check(s, p2End.getTime() + 4 * DAY)).code).toBe("SUBSCRIPTION_PAST_DUE");

    // Stripe's retry succeeds: recovered, valid again. The decline's event arriving again afterwards changes nothing.
    const recovered = billing.invoice("invoice.paid", st, { id: `in_${run}_3`, start: p2End, end: p3End, amount: 900 });
    expect((await deliverTwice(recovered)).fulfilled).toBe(true);
    const lateFailure = billing.invoice("invoice.payment_failed", st, { id: `in_${run}_3`, start: p2End, end: p3End, amount: 900 });
    expect((await deliver(lateFailure)).status).toBe(200);
    now = await subscription(s.sub.id);
    expect(now).toMatchObject({ status: "active", pastDueSince: null, paidPeriods: 3 });
    expect(now.license!.expiresAt!.getTime()).toBe(p3End.getTime() + GRACE * DAY);
    expect((await check(s, p2End.getTime() + 4 * DAY)).code).toBe("VALID");

    // An earlier period's invoice paid again (a new event for it, after the later one) moves nothing back.
    const stale = billing.invoice("invoice.paid", st, { id: `in_${run}_2`, start: p1End, end: p2End, amount: 720, discount: 180 });
    expect((await deliver(stale)).status).toBe(200);
    expect((await subscription(s.sub.id)).currentPeriodEnd).toEqual(p3End);

    // The buyer cancels in Stripe's customer portal: Stripe says so, then a stale update (from before) arrives late.
    const before = { ...st };
    st.cancelAtPeriodEnd = true;
    await deliverTwice(billing.subscriptionEvent("customer.subscription.updated", st));
    await deliver(billing.subscriptionEvent("customer.subscription.updated", st, { ...before, cancelAtPeriodEnd: false }));
    now = await subscription(s.sub.id);
    expect(now.status).toBe("canceling");
    expect(now.canceledBy).toBe("buyer");
    expect(now.license!.expiresAt).toEqual(p3End); // no grace once canceled
    expect((await check(s, p3End.getTime() - DAY)).code).toBe("VALID");

    // Stripe ends it at the period's end: EXPIRED after it.
    st.status = "canceled";
    st.cancellationReason = "cancellation_requested";
    await deliverTwice(billing.subscriptionEvent("customer.subscription.deleted", st));
    now = await subscription(s.sub.id);
    expect(now).toMatchObject({ status: "ended", endReason: "canceled" });
    expect(now.providerEndedAt).not.toBeNull();
    expect((await check(s, p3End.getTime() + DAY)).code).toBe("EXPIRED");

    // Each e-mail once, each seller event once.
    expect(await mails(s.buyerEmail)).toEqual([
      "license",
      "subscription-renewed",
      "subscription-payment_failed",
      "subscription-recovered",
      "subscription-canceled",
      "subscription-expired",
    ]);
    expect(await events(shopped.developerId)).toEqual([
      "subscription.created",
      "subscription.renewed",
      "subscription.past_due",
      "subscription.recovered",
      "subscription.canceled",
      "subscription.expired",
    ]);
    // The ledger: three charges (720, 720, 900: two with the coupon's 180 off) and their fees, to the cent.
    const orders = await getDb().order.findMany({ where: { subscriptionId: s.sub.id, status: "paid" } });
    expect(orders.map((o) => o.amountCents).sort()).toEqual([720, 720, 900]);
    const entries = await getDb().ledgerEntry.findMany({ where: { orderId: { in: orders.map((o) => o.id) } } });
    const sum = (kind: string) => entries.filter((e) => e.kind === kind).reduce((a, e) => a + e.amountMinor, 0);
    expect(sum("sale") + sum("discount")).toBe(2340);
    expect(sum("discount")).toBe(-360);
    expect(sum("platform_fee")).toBe(-117);
  });

  it("is canceled and resumed on Stripe first when the buyer does it on My licenses; Stripe refusing changes nothing", async () => {
    const shopped = await shop();
    const s = await subscribe(shopped);
    const scope = { buyerEmail: s.buyerEmail };
    failStub = true;
    await expect(cancelSubscriptionAs(scope, s.sub.id, { type: "buyer", name: null })).rejects.toMatchObject({
      code: "payment_provider_unavailable",
      status: 502,
    });
    failStub = false;
    expect((await subscription(s.sub.id)).status).toBe("active");
    expect(s.stripeSub.cancelAtPeriodEnd).toBe(false);

    const canceled = await cancelSubscriptionAs(scope, s.sub.id, { type: "buyer", name: null });
    expect(canceled.status).toBe("canceling");
    expect(s.stripeSub.cancelAtPeriodEnd).toBe(true);
    // Stripe's own event of that change, arriving after: nothing more.
    await deliverTwice(billing.subscriptionEvent("customer.subscription.updated", s.stripeSub));
    expect(await events(shopped.developerId)).toEqual(["subscription.created", "subscription.canceled"]);

    const resumed = await resumeSubscriptionAs(scope, s.sub.id, { type: "buyer", name: null });
    expect(resumed.status).toBe("active");
    expect(s.stripeSub.cancelAtPeriodEnd).toBe(false);
    await deliverTwice(billing.subscriptionEvent("customer.subscription.updated", s.stripeSub));
    expect(await events(shopped.developerId)).toEqual(["subscription.created", "subscription.canceled", "subscription.resumed"]);

    // The card is changed in Stripe's customer portal.
    const url = await billingPortalUrl(scope, s.sub.id, "https://market.example/licenses");
    expect(url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
    const portal = stub.requests.filter((q) => q.path === "/v1/billing_portal/sessions").pop()!;
    expect(portal.form.get("customer")).toBe(s.stripeSub.customer);
  });

  it("changes seats and interval on Stripe, which prorates and invoices; a declined card there changes nothing", async () => {
    const shopped = await shop();
    await getDb().product.update({ where: { id: shopped.product.id }, data: { seatModel: "per-seat", yearlyPriceCents: 9000 } });
    const s = await subscribe(shopped);
    const scope = { buyerEmail: s.buyerEmail };
    billing.state.declineChanges = true;
    await expect(changePlan(scope, s.sub.id, { quantity: 3 }, s.buyerEmail)).rejects.toMatchObject({ code: "payment_declined", status: 402 });
    billing.state.declineChanges = false;
    expect((await subscription(s.sub.id)).quantity).toBe(1);

    const seats = await changePlan(scope, s.sub.id, { quantity: 3 }, s.buyerEmail);
    expect(seats.subscription.quantity).toBe(3);
    const sent = billing.changes.filter((c) => c.path.endsWith(s.stripeSub.id) && c.form["items[0][quantity]"]).pop()!;
    expect(sent.form).toMatchObject({
      "items[0][id]": `si_${s.stripeSub.id}`,
      "items[0][quantity]": "3",
      "items[0][price_data][product]": `prod_${s.stripeSub.id}`,
      "items[0][price_data][unit_amount]": String(MONTHLY),
      proration_behavior: "always_invoice",
      payment_behavior: "error_if_incomplete",
    });
    expect((await subscription(s.sub.id)).license!.maxMachines).toBe(6);
    // Stripe's proration invoice is a charge of the subscription, in the ledger, and changes no period.
    const now = new Date();
    const proration = billing.invoice("invoice.paid", s.stripeSub, {
      id: `in_${run}_proration`,
      start: now,
      end: new Date(s.stripeSub.periodEnd * 1000),
      amount: 1740,
      reason: "subscription_update",
    });
    expect((await deliverTwice(proration)).fulfilled).toBe(true);
    const order = await getDb().order.findUniqueOrThrow({ where: { providerSessionId: `in_${run}_proration` } });
    expect(order).toMatchObject({ status: "paid", amountCents: 1740, subscriptionId: s.sub.id, periodStart: null });
    expect(await ledger(order.id)).toMatchObject({ sale: 1740 });
    expect((await subscription(s.sub.id)).currentPeriodEnd.getTime()).toBe(s.stripeSub.periodEnd * 1000);
    // Stripe's own update event of the change: nothing more.
    await deliverTwice(billing.subscriptionEvent("customer.subscription.updated", s.stripeSub));
    expect((await events(shopped.developerId)).filter((e) => e === "subscription.updated")).toHaveLength(1);

    // Yearly: Stripe starts a new period; the license follows its dates.
    await changePlan(scope, s.sub.id, { interval: "year" }, s.buyerEmail);
    const yearly = await subscription(s.sub.id);
    expect(yearly).toMatchObject({ interval: "year", unitAmountCents: 9000, quantity: 3 });
    expect(yearly.currentPeriodEnd.getTime()).toBe(s.stripeSub.periodEnd * 1000);
    expect(yearly.license!.expiresAt!.getTime()).toBe(s.stripeSub.periodEnd * 1000 + GRACE * DAY);
  });

  it("ends at once on a refund of its latest invoice, and Stripe is told to stop billing it", async () => {
    const shopped = await shop();
    const s = await subscribe(shopped);
    const refund = await refundOrder({
      orderId: s.order.id,
      reason: "Asked for it back",
      actor: { kind: "seller", developerId: shopped.developerId, email: "seller@example.com" },
    });
    expect(refund.status).toBe("succeeded");
    const sent = stub.requests.filter((q) => q.path === "/v1/refunds").pop()!;
    expect(sent.form.get("payment_intent")).toBe(`pi_in_${s.stripeSub.id}_first`);
    const ended = await subscription(s.sub.id);
    expect(ended).toMatchObject({ status: "ended", endReason: "refunded", providerEndedAt: null });
    expect((await check(s, Date.now())).code).toBe("REFUNDED");

    await runSubscriptionJobs(new Date());
    expect(s.stripeSub.status).toBe("canceled");
    expect((await subscription(s.sub.id)).providerEndedAt).not.toBeNull();
    const deletes = billing.changes.filter((c) => c.method === "DELETE" && c.path.endsWith(s.stripeSub.id));
    await runSubscriptionJobs(new Date());
    expect(billing.changes.filter((c) => c.method === "DELETE" && c.path.endsWith(s.stripeSub.id))).toHaveLength(deletes.length);
    // Stripe's own deletion event afterwards changes nothing here.
    await deliverTwice(billing.subscriptionEvent("customer.subscription.deleted", s.stripeSub));
    expect(await events(shopped.developerId)).toEqual(["subscription.created", "subscription.expired"]);
  });

  it("starts a free trial with nothing charged, and the first invoice after it makes it active", async () => {
    const shopped = await shop({ trialDays: 14 });
    const s = await subscribe(shopped, { trialDays: 14 });
    expect(s.sessionRequest.form.get("subscription_data[trial_period_days]")).toBe("14");
    expect(s.order.amountCents).toBe(0);
    expect(s.sub.status).toBe("trialing");
    const trialEnd = new Date(s.stripeSub.trialEnd! * 1000);
    expect(s.sub.currentPeriodEnd).toEqual(trialEnd);
    const first = billing.invoice("invoice.paid", s.stripeSub, {
      id: `in_${run}_trial`,
      start: trialEnd,
      end: addMonths(trialEnd, 1),
      amount: MONTHLY,
    });
    expect((await deliverTwice(first)).fulfilled).toBe(true);
    const after = await subscription(s.sub.id);
    expect(after).toMatchObject({ status: "active", paidPeriods: 1 });
    expect(after.currentPeriodEnd).toEqual(addMonths(trialEnd, 1));
  });

  it("asks Stripe to deliver again what arrives before its checkout, and ignores subscriptions that are not the marketplace's", async () => {
    const shopped = await shop();
    const orphan = billing.create({
      orderId: `cs_not_recorded_${run}`,
      quantity: 1,
      unitAmount: MONTHLY,
      start: new Date(),
      end: addMonths(new Date(), 1),
    });
    const early = await deliver(
      billing.invoice("invoice.paid", orphan, { id: `in_${run}_early`, start: new Date(), end: addMonths(new Date(), 1), amount: MONTHLY }),
    );
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("event_not_ready");
    expect(await getDb().paymentEvent.count({ where: { id: { contains: `in_${run}_early` } } })).toBe(0);
    const foreign = billing.invoice(
      "invoice.paid",
      { ...orphan, orderId: "" },
      { id: `in_${run}_foreign`, start: new Date(), end: addMonths(new Date(), 1), amount: 100 },
    );
    (foreign.data.object as { parent: { subscription_details: { metadata: Record<string, string> } } }).parent.subscription_details.metadata = {};
    const r = await deliver(foreign);
    expect(r.status).toBe(200);
    expect(r.body.applied).toBe(false);
    expect(shopped.product.id).toBeTruthy();
  });
});
