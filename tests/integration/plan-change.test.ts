import { constants as zlibConstants, inflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { changePlan, previewPlanChange } from "@/lib/subscriptions/change-plan";
import { advanceTestClock, cancelSubscriptionAs, setTestCard } from "@/lib/subscriptions/manage";
import { addMonths } from "@/lib/subscriptions/plans";
import { invoicePdf, listInvoices } from "@/lib/receipts/invoices";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

/**
 * A buyer changes a running subscription's plan in test mode, on both engines: more seats (the difference for the rest
 * of the period charged now), fewer seats (refunded now), monthly → yearly (a new year starts, the unused month
 * credited against it), yearly → monthly (the credit is larger: refunded). Every amount is checked against the
 * proration worked out here by hand, and the preview, the change, the ledger, the license's machines and expiry, the
 * seller's event and the buyer's e-mail agree on it. Then what must be refused is refused, changing nothing.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const MONTHLY = 1000;
const YEARLY = 10_000;
const DAY = 86_400_000;
const saved = { ...process.env };
let seq = 0;

beforeAll(() => {
  process.env.PAYMENTS = "test";
  resetEnv();
});
afterAll(async () => {
  process.env = { ...saved };
  resetEnv();
  await disconnectDb();
});

async function shop(fields: Record<string, unknown> = {}) {
  const n = ++seq;
  const dev = await sellingDeveloper(`plans-seller-${n}-${run}@example.com`, { name: `Plans ${n} ${run}`, website: null, bio: "" });
  const product = await createTestProduct(dev.id, `Planned ${n} ${run}`, `com.plans.app${n}${run}`, {
    pricing_model: "subscription",
    monthly_price_cents: MONTHLY,
    yearly_price_cents: YEARLY,
    seat_model: "per-seat",
    max_machines: 2,
    grace_days: 3,
    ...fields,
  });
  await getDb().sellerWebhookEndpoint.create({
    data: {
      id: `we_p_${run}_${n}`,
      developerId: dev.id,
      url: `https://hooks.example.com/p/${run}/${n}`,
      secret: "whsec_dGVzdA==",
      events: [],
      enabled: true,
    },
  });
  return { developerId: dev.id, product };
}

async function subscribe(productId: string, quantity: number, interval: "month" | "year" = "month") {
  const buyerEmail = `plans-buyer-${++seq}-${run}@example.com`;
  const session = await createCheckout({ product_id: productId, buyer_email: buyerEmail, quantity, interval });
  expect((await payTestCheckout(session.session_id)).fulfilled).toBe(true);
  const sub = await getDb().subscription.findFirstOrThrow({ where: { buyerEmail } });
  return { buyerEmail, sub, scope: { buyerEmail } };
}

/** The proration worked out independently: amount × remaining / length, rounded half up. */
const byHand = (amount: number, remaining: number, length: number) => Math.round((amount * remaining) / length);
const ledger = async (orderId: string) =>
  Object.fromEntries((await getDb().ledgerEntry.findMany({ where: { orderId } })).map((e) => [e.kind, e.amountMinor]));
const latest = (id: string) => getDb().subscription.findUniqueOrThrow({ where: { id }, include: { license: true } });

describe("changing a subscription's plan in test mode", () => {
  it("more seats: the difference for the rest of the period is charged now, the license gets the machines", async () => {
    const { developerId, product } = await shop();
    const b = await subscribe(product.id, 2);
    const length = b.sub.currentPeriodEnd.getTime() - b.sub.currentPeriodStart.getTime();
    const at = new Date(b.sub.currentPeriodStart.getTime() + Math.floor(length / 3));
    const expected = byHand(1 * MONTHLY, b.sub.currentPeriodEnd.getTime() - at.getTime(), length);

    const preview = await previewPlanChange(b.scope, b.sub.id, { quantity: 3 }, at);
    expect(preview).toMatchObject({ quantity: 3, interval: "month", amount_cents: expected, credit_cents: 0, next_charge_cents: 3 * MONTHLY });
    expect(preview.amount_display).toContain("charged now");
    // The amount confirmed must be the amount now.
    await expect(changePlan(b.scope, b.sub.id, { quantity: 3, expected_amount_cents: expected + 1 }, b.buyerEmail, at)).rejects.toMatchObject({
      code: "amount_changed",
      status: 409,
    });
    expect((await latest(b.sub.id)).quantity).toBe(2);

    const done = await changePlan(b.scope, b.sub.id, { quantity: 3, expected_amount_cents: expected }, b.buyerEmail, at);
    expect(done.change.amount_cents).toBe(expected);
    expect(done.subscription).toMatchObject({ quantity: 3, unit_amount_cents: MONTHLY });
    const after = await latest(b.sub.id);
    expect(after.license!.maxMachines).toBe(6);
    expect(after.currentPeriodEnd).toEqual(b.sub.currentPeriodEnd);
    const charge = await getDb().order.findFirstOrThrow({ where: { subscriptionId: b.sub.id, planChangeFrom: "month:2" } });
    expect(charge).toMatchObject({ status: "paid", amountCents: expected, quantity: 3, periodStart: null });
    expect(await ledger(charge.id)).toMatchObject({ sale: expected, platform_fee: -Math.round(expected * 0.05) });
    const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: b.buyerEmail, kind: "subscription-plan_changed" } });
    expect(mail.text).toContain("3 seats");
    const events = await getDb().webhookDelivery.findMany({ where: { targetId: { startsWith: `we_p_${run}` } } });
    expect(events.filter((e) => e.eventType === "subscription.updated")).toHaveLength(1);
    expect(developerId).toBeTruthy();
    // Its invoices: the first charge and the change's, each as a PDF for this buyer only.
    const invoices = await listInvoices(b.buyerEmail, b.sub.id);
    expect(invoices.map((i) => i.totalCents).sort((x, y) => x - y)).toEqual([expected, 2 * MONTHLY].sort((x, y) => x - y));
    expect(invoices.find((i) => i.id === charge.id)!.description).toBe("Plan change to 3 seats, monthly: the rest of the period");
    const pdf = await invoicePdf(b.buyerEmail, charge.id);
    const raw = Buffer.from(pdf.bytes);
    expect(raw.subarray(0, 5).toString()).toBe("%PDF-");
    // The page's text, from its (deflated) content streams.
    const text = [...raw.toString("latin1").matchAll(/stream\r?\n([\s\S]*?)\r?\nendstream/g)]
      .map((m) => {
        const bytes = Buffer.from(m[1]!, "latin1");
        try {
          // Tolerant of a stream cut one byte short: the pattern above drops a last byte that happens to be "\r".
          return inflateSync(bytes, { finishFlush: zlibConstants.Z_SYNC_FLUSH }).toString("latin1");
        } catch {
          return bytes.toString("latin1");
        }
      })
      .join("\n");
    const hex = (t: string) => Buffer.from(t, "latin1").toString("hex").toUpperCase();
    expect(text).toContain(hex("Total paid"));
    expect(text).toContain(hex(`Invoice number`));
    expect(pdf.filename).toBe(`invoice-${charge.id}.pdf`);
    await expect(invoicePdf("someone-else@example.com", charge.id)).rejects.toMatchObject({ status: 404 });
    // Asking again for the plan it is on now changes nothing.
    await expect(changePlan(b.scope, b.sub.id, { quantity: 3 }, b.buyerEmail, at)).rejects.toMatchObject({ code: "plan_unchanged" });
  });

  it("fewer seats: the unused part is refunded to the card, and the next charge is for the seats kept", async () => {
    const { product } = await shop();
    const b = await subscribe(product.id, 4);
    const length = b.sub.currentPeriodEnd.getTime() - b.sub.currentPeriodStart.getTime();
    const at = new Date(b.sub.currentPeriodStart.getTime() + Math.floor(length / 2));
    const expected = byHand(2 * MONTHLY, b.sub.currentPeriodEnd.getTime() - at.getTime(), length);
    const done = await changePlan(b.scope, b.sub.id, { quantity: 2 }, b.buyerEmail, at);
    expect(done.change).toMatchObject({ amount_cents: -expected, credit_cents: expected, next_charge_cents: 2 * MONTHLY });
    const refund = await getDb().refund.findFirstOrThrow({ where: { order: { subscriptionId: b.sub.id } } });
    expect(refund).toMatchObject({ amountCents: expected, initiatedBy: "buyer", status: "succeeded" });
    const after = await latest(b.sub.id);
    expect(after).toMatchObject({ quantity: 2, status: "active" });
    expect(after.license!.maxMachines).toBe(4);
    expect(after.license!.isActive).toBe(true);
  });

  it("monthly to yearly: a year starts now, the unused month is credited against it", async () => {
    const { product } = await shop();
    const b = await subscribe(product.id, 1);
    const length = b.sub.currentPeriodEnd.getTime() - b.sub.currentPeriodStart.getTime();
    const at = new Date(b.sub.currentPeriodStart.getTime() + 10 * DAY);
    const credit = byHand(MONTHLY, b.sub.currentPeriodEnd.getTime() - at.getTime(), length);
    const done = await changePlan(b.scope, b.sub.id, { interval: "year" }, b.buyerEmail, at);
    expect(done.change).toMatchObject({ interval: "year", unit_amount_cents: YEARLY, credit_cents: credit, amount_cents: YEARLY - credit });
    const after = await latest(b.sub.id);
    expect(after).toMatchObject({ interval: "year", unitAmountCents: YEARLY, paidPeriods: 2 });
    expect(after.currentPeriodEnd).toEqual(addMonths(at, 12));
    expect(after.license!.expiresAt!.getTime()).toBe(addMonths(at, 12).getTime() + 3 * DAY);
  });

  it("yearly to monthly: the unused year is worth more than a month, so the difference is refunded", async () => {
    const { product } = await shop();
    const b = await subscribe(product.id, 1, "year");
    const length = b.sub.currentPeriodEnd.getTime() - b.sub.currentPeriodStart.getTime();
    const at = new Date(b.sub.currentPeriodStart.getTime() + 30 * DAY);
    const credit = byHand(YEARLY, b.sub.currentPeriodEnd.getTime() - at.getTime(), length);
    const done = await changePlan(b.scope, b.sub.id, { interval: "month" }, b.buyerEmail, at);
    expect(done.change).toMatchObject({ interval: "month", credit_cents: credit, amount_cents: MONTHLY - credit });
    const refund = await getDb().refund.findFirstOrThrow({ where: { order: { subscriptionId: b.sub.id } } });
    expect(refund.amountCents).toBe(credit - MONTHLY);
    expect((await latest(b.sub.id)).currentPeriodEnd).toEqual(addMonths(at, 1));
  });

  it("a declined card changes nothing; and what cannot be changed is refused with its own code", async () => {
    const { product } = await shop();
    const b = await subscribe(product.id, 1);
    const at = new Date(b.sub.currentPeriodStart.getTime() + DAY);
    await setTestCard(b.scope, b.sub.id, "fails");
    await expect(changePlan(b.scope, b.sub.id, { quantity: 2 }, b.buyerEmail, at)).rejects.toMatchObject({ code: "payment_declined", status: 402 });
    const same = await latest(b.sub.id);
    expect(same).toMatchObject({ quantity: 1, status: "active" });
    expect(await getDb().order.count({ where: { subscriptionId: b.sub.id, status: "paid" } })).toBe(1);
    await setTestCard(b.scope, b.sub.id, "succeeds");

    await expect(previewPlanChange(b.scope, b.sub.id, { quantity: 1 }, at)).rejects.toMatchObject({ code: "plan_unchanged", status: 409 });
    await expect(previewPlanChange({ buyerEmail: "someone-else@example.com" }, b.sub.id, { quantity: 2 }, at)).rejects.toMatchObject({ status: 404 });

    const monthlyOnly = await shop({ yearly_price_cents: null });
    const m = await subscribe(monthlyOnly.product.id, 1);
    await expect(previewPlanChange(m.scope, m.sub.id, { interval: "year" }, at)).rejects.toMatchObject({ code: "interval_not_offered" });

    const perMachine = await shop({ seat_model: "per-machine" });
    const pm = await subscribe(perMachine.product.id, 1);
    await expect(previewPlanChange(pm.scope, pm.sub.id, { quantity: 2 }, at)).rejects.toMatchObject({ code: "quantity_not_allowed", status: 409 });

    // Past due: the unpaid renewal comes first.
    const due = await subscribe(product.id, 1);
    await advanceTestClock(due.sub.id, { days: 31, card: "fails" });
    expect((await latest(due.sub.id)).status).toBe("past_due");
    await expect(changePlan(due.scope, due.sub.id, { quantity: 2 }, due.buyerEmail)).rejects.toMatchObject({
      code: "subscription_past_due",
      status: 409,
    });

    await cancelSubscriptionAs(b.scope, b.sub.id, { type: "buyer", name: null });
    await expect(changePlan(b.scope, b.sub.id, { quantity: 2 }, b.buyerEmail, at)).rejects.toMatchObject({ code: "subscription_canceling" });
    const unchanged = await latest(b.sub.id);
    expect(unchanged).toMatchObject({ quantity: 1, status: "canceling" });
  });
});
