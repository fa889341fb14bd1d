import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { createCoupon } from "@/lib/coupons/manage-coupons";
import { createCouponInputSchema } from "@/lib/coupons/schemas";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { createDeveloperProfile } from "@/lib/selling/developer-profile";
import { addMonths } from "@/lib/subscriptions/plans";
import { createTestProduct, SELLER_TRUST } from "../helpers/sellers";
import { startStripeStub } from "../helpers/stripe-stub";
import { stripeBilling } from "../helpers/stripe-billing";

/**
 * Stripe Billing's events reaching two instances of the service on one PostgreSQL database, as a load balancer in
 * front of several instances delivers them: every event is sent to both instances at once, twice each, and some out
 * of order (a decline after its invoice was paid, an earlier period's invoice after a later one, a stale subscription
 * update). Each instance is a process of its own (tests/helpers/instance-main.ts: server.ts's listener and the real
 * webhook route). However the deliveries interleave, each step has one effect: one period moved, one order and one
 * ledger sale per invoice, one e-mail and one seller event per step.
 */

const SECRET = "whsec_two_instances";
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const billing = stripeBilling(SECRET);
const saved = { ...process.env };
let stub: Awaited<ReturnType<typeof startStripeStub>>;
const instances: { child: ChildProcess; url: string }[] = [];

/** Starts one instance as its own process and waits for it to listen. */
async function startInstance(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/helpers/instance-main.ts"], {
    env: { ...process.env, NODE_ENV: "test" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`instance exited with ${code} before it listened`)));
    lines.on("line", (line) => {
      if (line.startsWith("{")) resolve((JSON.parse(line) as { url: string }).url);
    });
  });
  return { child, url };
}

beforeAll(async () => {
  stub = await startStripeStub({ routes: billing.routes });
  Object.assign(process.env, { STRIPE_SECRET_KEY: "sk_test_instances", STRIPE_WEBHOOK_SECRET: SECRET, STRIPE_API_BASE: stub.base });
  delete process.env.PAYMENTS;
  resetEnv();
  instances.push(...(await Promise.all([startInstance(), startInstance()])));
}, 120_000);

afterAll(async () => {
  for (const i of instances) i.child.kill("SIGTERM");
  process.env = { ...saved };
  resetEnv();
  await stub.close();
  await disconnectDb();
});

/** Sends one signed event to both instances, twice each, all at once; every answer must be 2xx. */
async function deliverEverywhere(event: unknown): Promise<void> {
  const { payload, header } = billing.sign(event);
  const send = (url: string) =>
    fetch(`${url}/api/webhooks/stripe`, {
      method: "POST",
      body: payload,
      headers: { "content-type": "application/json", "stripe-signature": header },
    });
  const answers = await Promise.all(instances.flatMap((i) => [send(i.url), send(i.url)]));
  const texts = await Promise.all(answers.map((a) => a.text()));
  for (const [n, a] of answers.entries()) expect(a.status, texts[n]).toBe(200);
  // Exactly one of the four applied it; the others found it applied.
  expect(texts.filter((t) => !(JSON.parse(t) as { duplicate: boolean }).duplicate)).toHaveLength(1);
}

describe("two instances on one PostgreSQL", () => {
  it("apply each Stripe Billing event once, however the deliveries interleave", async () => {
    const dev = await createDeveloperProfile(`instances-${run}@example.com`, { ...SELLER_TRUST, name: `Instances ${run}`, website: null, bio: "" });
    await getDb().payoutAccount.create({
      data: {
        id: `acct_i${run}`,
        developerId: dev.id,
        provider: "stripe",
        chargesEnabled: true,
        payoutsEnabled: true,
        detailsSubmitted: true,
        requirementsDue: [],
      },
    });
    const product = await createTestProduct(dev.id, `Two Instances ${run}`, `com.instances.app${run}`, {
      pricing_model: "subscription",
      monthly_price_cents: 900,
      grace_days: 3,
    });
    await getDb().sellerWebhookEndpoint.create({
      data: {
        id: `we_i_${run}`,
        developerId: dev.id,
        url: `https://hooks.example.com/i/${run}`,
        secret: "whsec_dGVzdA==",
        events: [],
        enabled: true,
      },
    });
    const code = `INST${run}`.slice(0, 32).toUpperCase();
    await createCoupon(dev.id, createCouponInputSchema.parse({ code, kind: "percent", percent_off: 20, duration: "once" }));
    const buyer = `instances-buyer-${run}@example.com`;
    const session = await createCheckout({ product_id: product.id, buyer_email: buyer, interval: "month", coupon_code: code });
    const order = await getDb().order.findUniqueOrThrow({ where: { id: session.session_id } });
    const start = new Date();
    const st = billing.create({ orderId: order.id, quantity: 1, unitAmount: 900, start, end: addMonths(start, 1) });
    const p1 = new Date(st.periodEnd * 1000);
    const p2 = addMonths(p1, 1);
    const p3 = addMonths(p2, 1);
    const p4 = addMonths(p3, 1);

    await deliverEverywhere(billing.sessionCompleted(st, { id: order.providerSessionId!, orderId: order.id, amount: 720 }));
    // Out of order: the third period's invoice arrives before the second's (whose delivery was held up).
    await deliverEverywhere(billing.invoice("invoice.paid", st, { id: `in_${run}_3`, start: p2, end: p3, amount: 900 }));
    await deliverEverywhere(billing.invoice("invoice.paid", st, { id: `in_${run}_2`, start: p1, end: p2, amount: 900 }));
    // The same invoice paid, told again as another event (Stripe resends): nothing more.
    await deliverEverywhere(billing.invoice("invoice.paid", st, { id: `in_${run}_2`, start: p1, end: p2, amount: 900 }));
    // Declined, then paid by Stripe's retry, then the decline told again after the payment.
    await deliverEverywhere(billing.invoice("invoice.payment_failed", st, { id: `in_${run}_4`, start: p3, end: p4, amount: 900 }));
    await deliverEverywhere(billing.invoice("invoice.paid", st, { id: `in_${run}_4`, start: p3, end: p4, amount: 900 }));
    await deliverEverywhere(billing.invoice("invoice.payment_failed", st, { id: `in_${run}_4`, start: p3, end: p4, amount: 900 }));
    const active = { ...st };
    st.cancelAtPeriodEnd = true;
    await deliverEverywhere(billing.subscriptionEvent("customer.subscription.updated", st));
    await deliverEverywhere(billing.subscriptionEvent("customer.subscription.updated", st, active)); // stale
    st.status = "canceled";
    st.cancellationReason = "cancellation_requested";
    await deliverEverywhere(billing.subscriptionEvent("customer.subscription.deleted", st));

    const sub = await getDb().subscription.findFirstOrThrow({ where: { buyerEmail: buyer }, include: { license: true } });
    expect(sub).toMatchObject({ status: "ended", endReason: "canceled", paidPeriods: 4, providerSubscriptionId: st.id });
    expect(sub.currentPeriodEnd).toEqual(p4);
    expect(sub.license!.expiresAt).toEqual(p4);

    const orders = await getDb().order.findMany({ where: { subscriptionId: sub.id }, orderBy: { periodStart: "asc" } });
    expect(orders.map((o) => [o.status, o.amountCents])).toEqual([
      ["paid", 720],
      ["paid", 900],
      ["paid", 900],
      ["paid", 900],
    ]);
    const sales = await getDb().ledgerEntry.findMany({ where: { orderId: { in: orders.map((o) => o.id) }, kind: "sale" } });
    expect(sales).toHaveLength(4);
    const mails = (await getDb().emailMessage.findMany({ where: { to: buyer }, orderBy: { createdAt: "asc" } })).map((m) => m.kind);
    expect(mails).toEqual([
      "license",
      "subscription-renewed",
      "subscription-payment_failed",
      "subscription-recovered",
      "subscription-canceled",
      "subscription-expired",
    ]);
    const deliveries = await getDb().webhookDelivery.findMany({ where: { targetId: `we_i_${run}` }, orderBy: { createdAt: "asc" } });
    expect(deliveries.map((d) => d.eventType).filter((t) => t.startsWith("subscription."))).toEqual([
      "subscription.created",
      "subscription.renewed",
      "subscription.past_due",
      "subscription.recovered",
      "subscription.canceled",
      "subscription.expired",
    ]);
  }, 120_000);
});
