import { z } from "zod";
import { SEAT_PRICED } from "../checkout/quote-checkout.ts";
import { getDb } from "../db.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { AppError, notFound } from "../http/errors.ts";
import { licenseCache } from "../licensing/license-state.ts";
import { testPaymentsEnabled } from "../payments/provider.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { cancelSubscription, nextCharge, resumeSubscription, subscriptionPayload, type SubscriptionActor } from "./lifecycle.ts";
import { addDays, INTERVALS, offeredIntervals, SUBSCRIPTION_STATUSES } from "./plans.ts";
import { chargeTestRenewals, processSubscription } from "./renewals.ts";
import { sendStripeChange, stripePortalUrl } from "./stripe-billing.ts";

/**
 * Reading and changing one subscription for whoever may: its buyer (My licenses), its seller (dashboard, seller API),
 * the operator. A subscription outside the caller's reach is a 404, as if it did not exist.
 */

/** Whose subscriptions a caller may see. */
export type SubscriptionScope = { developerId: string } | { buyerEmail: string } | { operator: true };

export const subscriptionSchema = z.object({
  id: z.string(),
  kind: z.enum(["subscription", "updates_plan"]),
  product_id: z.string(),
  product_name: z.string(),
  buyer_email: z.string(),
  license_id: z.string().nullable(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  interval: z.enum(INTERVALS),
  quantity: z.int(),
  unit_amount_cents: z.int(),
  currency: z.string(),
  coupon_code: z.string().nullable(),
  current_period_start: z.string(),
  current_period_end: z.string(),
  trial_end: z.string().nullable(),
  cancel_at_period_end: z.boolean(),
  canceled_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  end_reason: z.string().nullable(),
  past_due_since: z.string().nullable(),
  grace_days: z.int(),
  paid_periods: z.int(),
  provider: z.string(),
  created_at: z.string(),
  /** What the next charge will be and when; null once nothing more will be charged. */
  next_charge: z.object({ amount_cents: z.int(), currency: z.string(), at: z.string() }).nullable(),
  /** Until when the license validates as things stand. */
  license_valid_until: z.string().nullable(),
  /** Test mode: whether its test card pays ("succeeds") or is declined ("fails"); null on Stripe. */
  test_card: z.enum(["succeeds", "fails"]).nullable(),
  /** What its plan can be changed to: the intervals the product is sold by, and whether it is sold by the seat. */
  change_options: z.object({ intervals: z.array(z.enum(INTERVALS)), seats: z.boolean() }),
});
export type SubscriptionView = z.infer<typeof subscriptionSchema>;

const where = (scope: SubscriptionScope, id: string) =>
  "developerId" in scope
    ? { id, developerId: scope.developerId }
    : "buyerEmail" in scope
      ? { id, buyerEmail: scope.buyerEmail.trim().toLowerCase() }
      : { id };

const include = {
  product: {
    select: {
      name: true,
      pricingModel: true,
      priceCents: true,
      monthlyPriceCents: true,
      yearlyPriceCents: true,
      renewalPriceCents: true,
      seatModel: true,
    },
  },
  license: { select: { expiresAt: true } },
  coupon: { select: { percentOff: true, amountOffMinor: true } },
} as const;

type Loaded = NonNullable<Awaited<ReturnType<typeof load>>>;
const load = (scope: SubscriptionScope, id: string) => getDb().subscription.findFirst({ where: where(scope, id), include });

function view(s: Loaded): SubscriptionView {
  const charge = nextCharge(s, s.coupon?.percentOff ?? null, s.coupon?.amountOffMinor ?? null);
  const charging = s.status === "active" || s.status === "trialing" || s.status === "past_due";
  return {
    ...subscriptionPayload(s),
    kind: s.kind as SubscriptionView["kind"],
    product_name: s.product.name,
    next_charge: charging ? { amount_cents: charge.amountCents, currency: s.currency, at: s.currentPeriodEnd.toISOString() } : null,
    license_valid_until: s.license?.expiresAt?.toISOString() ?? null,
    test_card: s.provider === "test" ? ((s.testCard ?? "succeeds") as "succeeds" | "fails") : null,
    change_options: {
      intervals: s.kind === "subscription" ? offeredIntervals(s.product) : [],
      seats: s.kind === "subscription" && SEAT_PRICED.has(s.product.seatModel),
    },
  };
}

async function found(scope: SubscriptionScope, id: string): Promise<Loaded> {
  const s = await load(scope, id);
  if (!s) throw notFound("subscription", "No subscription of yours has this id.");
  return s;
}

export async function getSubscription(scope: SubscriptionScope, id: string): Promise<SubscriptionView> {
  return view(await found(scope, id));
}

export const listSubscriptionsQuery = z.object({
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  product_id: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** The caller's subscriptions, newest first. */
export async function listSubscriptions(scope: SubscriptionScope, q: z.infer<typeof listSubscriptionsQuery>): Promise<SubscriptionView[]> {
  const base =
    "developerId" in scope ? { developerId: scope.developerId } : "buyerEmail" in scope ? { buyerEmail: scope.buyerEmail.trim().toLowerCase() } : {};
  const rows = await getDb().subscription.findMany({
    where: { ...base, ...(q.status ? { status: q.status } : {}), ...(q.product_id ? { productId: q.product_id } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: q.limit,
    include,
  });
  return rows.map(view);
}

async function after(id: string): Promise<void> {
  const s = await getDb().subscription.findUnique({ where: { id }, select: { license: { select: { key: true } } } });
  if (s?.license) licenseCache().invalidate(s.license.key);
  kickOutbox();
  kickWebhooks();
}

/**
 * Cancels at the period's end (at once when past due: nothing is paid for the period). 409 `subscription_ended` for
 * an ended one, 409 `subscription_already_canceled` for one already canceling.
 */
export async function cancelSubscriptionAs(
  scope: SubscriptionScope,
  id: string,
  actor: SubscriptionActor,
  now = new Date(),
): Promise<SubscriptionView> {
  const s = await found(scope, id);
  if (s.status === "ended") throw new AppError("subscription_ended", 409, "This subscription has already ended; there is nothing to cancel.");
  if (s.status === "canceling") {
    throw new AppError(
      "subscription_already_canceled",
      409,
      `This subscription is already canceled; it ends on ${s.currentPeriodEnd.toISOString().slice(0, 10)}.`,
    );
  }
  // Stripe first, so it never bills what is canceled here; if it refuses, nothing changed.
  if (s.provider === "stripe") await sendStripeChange(s, s.status === "past_due" ? "cancel_now" : "cancel_at_period_end");
  const outcome = await getDb().$transaction((tx) => cancelSubscription(tx, s.id, actor, now));
  if (outcome === "ended" && s.provider === "stripe") {
    await getDb().subscription.updateMany({ where: { id: s.id, providerEndedAt: null }, data: { providerEndedAt: now } });
  }
  await after(s.id);
  return getSubscription(scope, id);
}

/** Undoes a cancellation before the period ends. 409 `subscription_not_canceled`, or `subscription_ended` after the end. */
export async function resumeSubscriptionAs(
  scope: SubscriptionScope,
  id: string,
  actor: SubscriptionActor,
  now = new Date(),
): Promise<SubscriptionView> {
  const s = await found(scope, id);
  if (s.status === "ended" || (s.status === "canceling" && s.currentPeriodEnd <= now)) {
    throw new AppError("subscription_ended", 409, "This subscription has ended; subscribe again from the product page.");
  }
  if (s.status !== "canceling")
    throw new AppError("subscription_not_canceled", 409, "This subscription is not canceled, so there is nothing to resume.");
  if (s.provider === "stripe") await sendStripeChange(s, "resume");
  const resumed = await getDb().$transaction((tx) => resumeSubscription(tx, s.id, actor, now));
  if (!resumed) throw new AppError("subscription_ended", 409, "This subscription has ended; subscribe again from the product page.");
  await after(s.id);
  return getSubscription(scope, id);
}

/**
 * Where the buyer of a subscription Stripe bills changes the card, reads the invoices and the billing details:
 * Stripe's customer portal, returning to `returnUrl`. 409 `not_stripe` for a test-mode subscription (its card is
 * the test card), `subscription_ended` once it has ended.
 */
export async function billingPortalUrl(scope: SubscriptionScope, id: string, returnUrl: string): Promise<string> {
  const s = await found(scope, id);
  if (s.provider !== "stripe" || !s.providerCustomerId) {
    throw new AppError("not_stripe", 409, "This subscription is not billed through Stripe: its card is test mode's test card.");
  }
  if (s.status === "ended") throw new AppError("subscription_ended", 409, "This subscription has ended; there is no card to change.");
  return stripePortalUrl(s.providerCustomerId, returnUrl);
}

function testOnly(s: Loaded): void {
  if (s.provider !== "test")
    throw new AppError("not_test_mode", 409, "This subscription is billed through Stripe: its card and its clock are Stripe's.");
  if (!testPaymentsEnabled()) throw new AppError("test_mode_off", 409, "Test-mode payments are turned off on this deployment.");
}

export const testCardSchema = z.object({
  card: z.enum(["succeeds", "fails"]).describe('"succeeds": charges go through; "fails": they are declined, as a card that has expired would be.'),
});

/**
 * Test mode's "update your card": the card every later charge of this subscription uses. A past-due subscription is
 * charged again at once with a card that succeeds, and recovers.
 */
export async function setTestCard(scope: SubscriptionScope, id: string, card: "succeeds" | "fails", now = new Date()): Promise<SubscriptionView> {
  const s = await found(scope, id);
  testOnly(s);
  if (s.status === "ended") throw new AppError("subscription_ended", 409, "This subscription has ended; there is no card to change.");
  await getDb().subscription.update({ where: { id: s.id }, data: { testCard: card } });
  if (card === "succeeds" && s.status === "past_due") await chargeTestRenewals(s.id, now);
  await after(s.id);
  return getSubscription(scope, id);
}

export const advanceClockSchema = z.object({
  days: z
    .int()
    .min(1)
    .max(800)
    .describe("How many days pass for this subscription: renewals, declines, cancellations and ends that fall in them happen now."),
  card: z.enum(["succeeds", "fails"]).optional().describe('Set the test card first: "fails" declines the renewals in this span.'),
});

/**
 * Test mode's clock: `days` pass for one subscription. Its dates (period, trial, past-due start, the license's expiry)
 * move back by that much, so what would fall due in those days is due now, and the job loop's own step runs for it at
 * once (renewals charged period by period with its test card, cancellations and unpaid renewals ended). What apps see
 * through /validate follows, as the license's dates moved with it.
 */
export async function advanceTestClock(id: string, input: z.infer<typeof advanceClockSchema>, now = new Date()): Promise<SubscriptionView> {
  const s = await found({ operator: true }, id);
  testOnly(s);
  const back = (d: Date) => addDays(d, -input.days);
  const backOrNull = (d: Date | null) => (d ? back(d) : null);
  await getDb().$transaction(async (tx) => {
    await tx.subscription.update({
      where: { id: s.id },
      data: {
        billingAnchor: back(s.billingAnchor),
        currentPeriodStart: back(s.currentPeriodStart),
        currentPeriodEnd: back(s.currentPeriodEnd),
        trialEnd: backOrNull(s.trialEnd),
        pastDueSince: backOrNull(s.pastDueSince),
        canceledAt: backOrNull(s.canceledAt),
        remindedFor: backOrNull(s.remindedFor),
        ...(input.card ? { testCard: input.card } : {}),
      },
    });
    if (s.licenseId) {
      const license = await tx.license.findUniqueOrThrow({
        where: { id: s.licenseId },
        select: { expiresAt: true, updatesUntil: true, issuedAt: true },
      });
      await tx.license.update({
        where: { id: s.licenseId },
        data: { expiresAt: backOrNull(license.expiresAt), updatesUntil: backOrNull(license.updatesUntil), issuedAt: back(license.issuedAt) },
      });
    }
    // Its charges move too, oldest first so that no two share a period start on the way (a unique index).
    const orders = await tx.order.findMany({
      where: { subscriptionId: s.id },
      orderBy: { periodStart: "asc" },
      select: { id: true, periodStart: true, periodEnd: true, expiresAt: true },
    });
    for (const o of orders) {
      await tx.order.update({
        where: { id: o.id },
        data: { periodStart: backOrNull(o.periodStart), periodEnd: backOrNull(o.periodEnd), expiresAt: back(o.expiresAt) },
      });
    }
  });
  await processSubscription(s.id, now);
  await after(s.id);
  return getSubscription({ operator: true }, id);
}
