import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { z } from "zod";
import { closeOrderNow } from "../checkout/close-order.ts";
import { SEAT_PRICED } from "../checkout/quote-checkout.ts";
import { MAX_QUANTITY } from "../checkout/schemas.ts";
import { getDb } from "../db.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { AppError, notFound } from "../http/errors.ts";
import { licenseCache } from "../licensing/license-state.ts";
import { applyPaymentEvent } from "../payments/apply-payment-event.ts";
import { stripeClient } from "../payments/stripe-client.ts";
import { formatPrice } from "../pricing.ts";
import { refundOrder } from "../refunds/refund-order.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { applyPlanChange, nextCharge, subscriptionChargeData } from "./lifecycle.ts";
import { getSubscription, type SubscriptionScope, type SubscriptionView } from "./manage.ts";
import { checkoutPrice, INTERVALS, periodEnd, prorate, type Interval } from "./plans.ts";

/**
 * Changing a running subscription's plan, by its buyer: more or fewer seats, monthly ↔ yearly. Prorated as Stripe
 * prorates, to the minor unit:
 *
 * - **Seats, same interval**: the period stays; the difference in price (seats × the seat's price) for the rest of the
 *   period is charged now (more seats) or refunded now (fewer), `prorate()` of it by the time left.
 * - **Another interval**: a new period starts now at the new interval's price (the product's current one); what was
 *   paid for the rest of the current period is credited against it. The difference is charged now, or refunded when
 *   the credit is larger.
 * - **A free trial**: nothing is charged or refunded; the trial runs on and the first charge is at the new plan's price.
 *
 * Every answer states the amount; the change itself may be given `expected_amount_cents` (what the preview showed),
 * and then a different amount is refused (409 `amount_changed`) with nothing changed. A refund of unused time goes
 * back through the refund machinery (ledger, e-mail, the seller's `order.refunded`), capped at what the current
 * period's charge still holds. On Stripe, Stripe prorates and charges (`proration_behavior: always_invoice`); its
 * invoice comes back as `invoice.paid` and is recorded like any charge.
 */

export const planChangeSchema = z
  .object({
    interval: z.enum(INTERVALS).optional().describe('The new billing interval: "month" or "year" (one the product is sold by)'),
    quantity: z.int().min(1).max(MAX_QUANTITY).optional().describe("The new number of seats (per-seat and per-user products, 1–100)"),
    expected_amount_cents: z
      .int()
      .min(-100_000_000)
      .max(100_000_000)
      .optional()
      .describe(
        "The amount the preview stated (charged now if positive, refunded if negative); a different amount is refused with 409 amount_changed",
      ),
  })
  .refine((v) => v.interval !== undefined || v.quantity !== undefined, { message: "give the new interval, the new quantity or both" });
export type PlanChangeInput = z.infer<typeof planChangeSchema>;

export const planChangeQuoteSchema = z.object({
  subscription_id: z.string(),
  interval: z.enum(INTERVALS),
  quantity: z.int(),
  unit_amount_cents: z.int().describe("The new price of one seat for one period"),
  currency: z.string(),
  amount_cents: z.int().describe("Charged now (> 0) or refunded now (< 0) for the change"),
  amount_display: z.string().describe("The amount in words, as the buyer confirms it"),
  credit_cents: z.int().describe("What the unused part of the current period is worth (included in amount_cents)"),
  period_end: z.string().describe("When the period (new, if the interval changes) ends and the next charge is due"),
  next_charge_cents: z.int().describe("The next regular charge on the new plan"),
});
export type PlanChangeQuote = z.infer<typeof planChangeQuoteSchema>;

async function load(scope: SubscriptionScope, id: string) {
  const where =
    "developerId" in scope
      ? { id, developerId: scope.developerId }
      : "buyerEmail" in scope
        ? { id, buyerEmail: scope.buyerEmail.trim().toLowerCase() }
        : { id };
  const s = await getDb().subscription.findFirst({
    where,
    include: {
      product: {
        select: {
          seatModel: true,
          pricingModel: true,
          priceCents: true,
          monthlyPriceCents: true,
          yearlyPriceCents: true,
          renewalPriceCents: true,
          maxMachines: true,
        },
      },
      coupon: { select: { percentOff: true, amountOffMinor: true } },
    },
  });
  if (!s) throw notFound("subscription", "No subscription of yours has this id.");
  return s;
}
type Loaded = Awaited<ReturnType<typeof load>>;

/** The paid charge of the current period, and what it still holds (before tax) to credit back. */
async function currentCharge(s: Loaded) {
  const order = await getDb().order.findFirst({
    where: { subscriptionId: s.id, status: "paid", periodStart: s.currentPeriodStart },
    select: { id: true, amountCents: true, refundedCents: true, taxCents: true },
  });
  return order ? { id: order.id, holds: Math.max(0, order.amountCents - order.refundedCents) } : null;
}

/** What a plan change would do now, or a 4xx problem saying why it cannot be made. */
async function quote(s: Loaded, input: PlanChangeInput, now: Date) {
  if (s.kind !== "subscription") throw new AppError("not_a_subscription", 409, "An updates plan has no seats or interval to change.");
  if (s.status === "ended") throw new AppError("subscription_ended", 409, "This subscription has ended; subscribe again from the product page.");
  if (s.status === "past_due") {
    throw new AppError("subscription_past_due", 409, "The last renewal is unpaid: change the card so it is paid, then change the plan.");
  }
  if (s.status === "canceling")
    throw new AppError("subscription_canceling", 409, "This subscription is canceled: keep it first, then change the plan.");
  const from = { interval: s.interval as Interval, quantity: s.quantity };
  const interval = input.interval ?? from.interval;
  const quantity = input.quantity ?? from.quantity;
  if (quantity !== 1 && !SEAT_PRICED.has(s.product.seatModel)) {
    throw new AppError("quantity_not_allowed", 409, `This product is licensed ${s.product.seatModel}: it has one seat, not ${quantity}.`);
  }
  if (interval === from.interval && quantity === from.quantity)
    throw new AppError("plan_unchanged", 409, "That is the plan this subscription is on already.");
  // Same interval: the seat keeps the price it was bought at. Another interval: the product's price for it now.
  const unit = interval === from.interval ? s.unitAmountCents : checkoutPrice(s.product, interval).unitCents;
  const start = s.currentPeriodStart.getTime();
  const end = s.currentPeriodEnd.getTime();
  const left = Math.max(0, end - now.getTime());
  const trial = s.status === "trialing";
  let credit = 0;
  let charge = 0;
  let period: { start: Date; end: Date } | null = null;
  const paid = trial ? null : await currentCharge(s);
  if (trial) {
    // The trial runs on; nothing to prorate.
  } else if (interval === from.interval) {
    const delta = prorate((quantity - from.quantity) * unit, left, end - start);
    if (delta >= 0) charge = delta;
    else credit = Math.min(-delta, paid?.holds ?? 0);
  } else {
    credit = Math.min(prorate(paid?.holds ?? 0, left, end - start), paid?.holds ?? 0);
    period = { start: now, end: periodEnd(now, interval, 1) };
    charge = nextCharge({ ...s, unitAmountCents: unit, quantity }, s.coupon?.percentOff ?? null, s.coupon?.amountOffMinor ?? null).amountCents;
  }
  const amount = charge - credit;
  const next = nextCharge({ ...s, unitAmountCents: unit, quantity }, s.coupon?.percentOff ?? null, s.coupon?.amountOffMinor ?? null);
  const result: PlanChangeQuote = {
    subscription_id: s.id,
    interval,
    quantity,
    unit_amount_cents: unit,
    currency: s.currency,
    amount_cents: amount,
    amount_display:
      amount > 0
        ? `${formatPrice(amount, s.currency)} charged now`
        : amount < 0
          ? `${formatPrice(-amount, s.currency)} refunded now`
          : "nothing charged now",
    credit_cents: credit,
    period_end: (period?.end ?? s.currentPeriodEnd).toISOString(),
    next_charge_cents: next.amountCents,
  };
  return { result, from, period, unit, paid };
}

/** What changing the plan would charge or refund now, without changing anything. */
export async function previewPlanChange(scope: SubscriptionScope, id: string, input: PlanChangeInput, now = new Date()): Promise<PlanChangeQuote> {
  return (await quote(await load(scope, id), input, now)).result;
}

/** Changes the plan now: charges or refunds the prorated amount and moves the subscription and its license. */
export async function changePlan(
  scope: SubscriptionScope,
  id: string,
  input: PlanChangeInput,
  buyerEmail: string,
  now = new Date(),
): Promise<{ subscription: SubscriptionView; change: PlanChangeQuote }> {
  const s = await load(scope, id);
  const q = await quote(s, input, now);
  if (input.expected_amount_cents !== undefined && input.expected_amount_cents !== q.result.amount_cents) {
    throw new AppError(
      "amount_changed",
      409,
      `The change now comes to ${q.result.amount_display}, not the amount you confirmed; nothing was changed. Look at it again.`,
    );
  }
  if (s.provider === "stripe") await changeOnStripe(s, q.result);
  else await changeInTestMode(s, q, buyerEmail, now);
  if (s.licenseId) {
    const license = await getDb().license.findUnique({ where: { id: s.licenseId }, select: { key: true } });
    if (license) licenseCache().invalidate(license.key);
  }
  kickOutbox();
  kickWebhooks();
  return { subscription: await getSubscription(scope, id), change: q.result };
}

async function changeInTestMode(s: Loaded, q: Awaited<ReturnType<typeof quote>>, buyerEmail: string, now: Date): Promise<void> {
  const change = {
    from: q.from,
    interval: q.result.interval,
    quantity: q.result.quantity,
    unitAmountCents: q.unit,
    period: q.period,
  };
  if (q.result.amount_cents <= 0) {
    const applied = await getDb().$transaction((tx) =>
      applyPlanChange(tx, s.id, { ...change, prorationCents: q.result.amount_cents }, { type: "buyer", name: buyerEmail }, now),
    );
    if (!applied)
      throw new AppError("plan_changed_meanwhile", 409, "The subscription changed meanwhile; nothing was changed. Look at it again and retry.");
    if (q.result.amount_cents < 0 && q.paid) {
      await refundOrder({
        orderId: q.paid.id,
        amountCents: -q.result.amount_cents,
        reason: `Plan change: unused time of the current period (${q.result.quantity} seats, ${q.result.interval}ly)`,
        actor: { kind: "buyer", email: buyerEmail },
      });
    }
    return;
  }
  // A charge: an order of the subscription carrying the new plan, paid with its test card; fulfilling it changes the plan.
  const card = await getDb().subscription.findUniqueOrThrow({ where: { id: s.id }, select: { testCard: true } });
  const amount = q.result.amount_cents;
  const order = await getDb().order.create({
    data: {
      id: `in_${randomBytes(12).toString("base64url")}`,
      ...(await subscriptionChargeData(getDb(), s, {
        quantity: q.result.quantity,
        unitAmountCents: q.unit,
        subtotalCents: amount,
        discountCents: 0,
        amountCents: amount,
        currency: s.currency,
      })),
      interval: q.result.interval,
      planChangeFrom: `${q.from.interval}:${q.from.quantity}`,
      periodEnd: q.period?.end ?? null,
      expiresAt: new Date(now.getTime() + 3_600_000),
    },
  });
  const declined = card.testCard === "fails";
  try {
    const applied = await applyPaymentEvent(
      {
        id: `test-plan-change:${order.id}`,
        provider: "test",
        type: declined ? "test.plan_change_declined" : "test.plan_change_paid",
        kind: declined ? "failed" : "paid",
        orderId: order.id,
        amountCents: amount,
        currency: s.currency,
        paymentStatus: declined ? "unpaid" : "paid",
      },
      now,
    );
    if (declined || !applied.fulfilled) {
      throw new AppError(
        "payment_declined",
        402,
        `The card was declined for ${formatPrice(amount, s.currency)}; the plan is unchanged. Change the card and retry.`,
      );
    }
  } catch (error) {
    await closeOrderNow(order.id, "failed");
    throw error;
  }
}

/**
 * On Stripe: the subscription item moves to the new price and seats, Stripe prorates and invoices at once, and a
 * declined card refuses the change (`payment_behavior: error_if_incomplete`); the plan here follows Stripe's answer.
 */
async function changeOnStripe(s: Loaded, q: PlanChangeQuote): Promise<void> {
  if (!s.providerSubscriptionId) throw new AppError("not_stripe", 409, "This subscription has no Stripe subscription to change.");
  let updated: Stripe.Subscription;
  try {
    const current = await stripeClient().subscriptions.retrieve(s.providerSubscriptionId);
    const item = current.items.data[0];
    if (!item) throw new Error("the Stripe subscription has no item");
    const product = typeof item.price.product === "string" ? item.price.product : item.price.product.id;
    updated = await stripeClient().subscriptions.update(
      s.providerSubscriptionId,
      {
        items: [
          {
            id: item.id,
            quantity: q.quantity,
            price_data: { currency: s.currency, product, unit_amount: q.unit_amount_cents, recurring: { interval: q.interval } },
          },
        ],
        proration_behavior: "always_invoice",
        payment_behavior: "error_if_incomplete",
      },
      { idempotencyKey: `plan-${s.id}-${s.updatedAt.getTime()}-${q.interval}-${q.quantity}` },
    );
  } catch (error) {
    if (error instanceof Stripe.errors.StripeCardError) {
      throw new AppError("payment_declined", 402, `Stripe declined the card: ${error.message} The plan is unchanged.`);
    }
    console.error(`Stripe: the plan of ${s.providerSubscriptionId} could not be changed:`, (error as Error).message);
    throw new AppError("payment_provider_unavailable", 502, "Stripe did not accept the change; nothing was changed. Please retry in a moment.");
  }
  const item = updated.items.data[0];
  const start = item?.current_period_start ? new Date(item.current_period_start * 1000) : s.currentPeriodStart;
  const end = item?.current_period_end ? new Date(item.current_period_end * 1000) : s.currentPeriodEnd;
  const moved = end.getTime() !== s.currentPeriodEnd.getTime();
  await getDb().$transaction((tx) =>
    applyPlanChange(
      tx,
      s.id,
      {
        from: { interval: s.interval as Interval, quantity: s.quantity },
        interval: q.interval,
        quantity: q.quantity,
        unitAmountCents: q.unit_amount_cents,
        period: moved ? { start, end } : null,
        prorationCents: q.amount_cents,
      },
      { type: "buyer", name: s.buyerEmail },
      new Date(),
    ),
  );
}
