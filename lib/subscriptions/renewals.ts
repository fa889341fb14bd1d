import { saleRefusal } from "../checkout/quote-checkout.ts";
import { getDb } from "../db.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { subscriptionEmail } from "../email/money-templates.ts";
import { outboxLoop } from "../jobs/outbox-loop.ts";
import { licenseCache } from "../licensing/license-state.ts";
import { applyPaymentEvent } from "../payments/apply-payment-event.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { cancelSubscription, endSubscription, nextCharge, openRenewal } from "./lifecycle.ts";
import { endOnStripe, sendStripeChange } from "./stripe-billing.ts";
import { addDays, PAST_DUE_DAYS, YEARLY_REMINDER_DAYS } from "./plans.ts";

/**
 * The subscriptions' part of the job loop: what falls due is done in bounded batches, each subscription in its own
 * short transactions, so a million subscriptions renewing in one hour never hold a lock or a connection for long and
 * `/validate` (which reads licenses, never these rows) is not held up. Every step is idempotent across instances:
 * a renewal charge is one order per period (unique index) and its payment one payment event; an end is a conditional
 * update. Two instances running the same batch do each thing once.
 *
 * - test mode's renewals: the built-in provider charges the next period at the period's end (Stripe bills its own
 *   subscriptions and tells us by webhook), as its test card says (succeeds or is declined);
 * - cancellations take effect at the period's end; a renewal unpaid for PAST_DUE_DAYS ends the subscription;
 * - a removed listing's or a suspended seller's subscriptions end at their period's end instead of renewing;
 * - yearly subscriptions get a reminder YEARLY_REMINDER_DAYS before they renew.
 */

/** How many subscriptions one pass looks at for each kind of work. */
const SUBSCRIPTION_BATCH = 200;

/** Charges one due test-mode renewal (and the next, while periods keep falling due); returns the charges attempted. */
export async function chargeTestRenewals(subscriptionId: string, now: Date): Promise<number> {
  let attempts = 0;
  // A subscription behind by several periods (the test clock moved a year) is charged period by period.
  for (let i = 0; i < 120; i++) {
    const order = await getDb().$transaction((tx) => openRenewal(tx, subscriptionId, now));
    if (!order) break;
    const sub = await getDb().subscription.findUniqueOrThrow({ where: { id: subscriptionId }, select: { testCard: true, status: true } });
    // A past-due subscription is charged again only once its card is changed (resumeTestCard), as a real card's
    // retry would fail again.
    if (sub.status === "past_due" && sub.testCard === "fails") break;
    attempts++;
    const declined = sub.testCard === "fails";
    const applied = await applyPaymentEvent(
      {
        id: declined ? `test-decline:${order.id}` : `test-renewal:${order.id}`,
        provider: "test",
        type: declined ? "test.renewal_declined" : "test.renewal_paid",
        kind: declined ? "failed" : "paid",
        orderId: order.id,
        amountCents: order.amountCents,
        currency: order.currency,
        paymentStatus: declined ? "unpaid" : "paid",
      },
      now,
    );
    if (declined || !applied.fulfilled) break;
  }
  return attempts;
}

async function invalidateLicenseOf(subscriptionId: string): Promise<void> {
  const s = await getDb().subscription.findUnique({ where: { id: subscriptionId }, select: { license: { select: { key: true } } } });
  if (s?.license) licenseCache().invalidate(s.license.key);
}

/**
 * Does what is due for one subscription at `now`: a canceling one past its period ends; one whose listing was removed
 * or whose seller is suspended ends at its period's end instead of renewing; a test-mode one is charged for the periods
 * that have begun; a past-due one unpaid for PAST_DUE_DAYS ends. Returns what it did.
 */
export async function processSubscription(id: string, now: Date): Promise<{ renewed: number; ended: number }> {
  const db = getDb();
  const s = await db.subscription.findUnique({
    where: { id },
    select: {
      id: true,
      status: true,
      provider: true,
      currentPeriodEnd: true,
      pastDueSince: true,
      product: { select: { status: true, developer: { select: { suspendedAt: true } } } },
    },
  });
  const done = { renewed: 0, ended: 0 };
  if (!s) return done;
  const refusal = saleRefusal(s.product);
  if (s.status === "past_due") {
    if (s.provider === "test" && s.pastDueSince && s.pastDueSince <= addDays(now, -PAST_DUE_DAYS)) {
      if (await db.$transaction((tx) => endSubscription(tx, s.id, "unpaid", now, { type: "system", name: null }, ["past_due"]))) done.ended++;
    }
  } else if (s.currentPeriodEnd <= now && ["active", "trialing", "canceling"].includes(s.status)) {
    if (s.status === "canceling" || refusal === "product_removed" || refusal === "seller_suspended") {
      if (await db.$transaction((tx) => endSubscription(tx, s.id, "canceled", now))) done.ended++;
    } else if (s.provider === "test") {
      done.renewed += await chargeTestRenewals(s.id, now);
      // Declined and left unpaid past the retry window (a clock moved far ahead): ends now.
      const after = await db.subscription.findUniqueOrThrow({ where: { id }, select: { status: true, pastDueSince: true } });
      if (after.status === "past_due" && after.pastDueSince && after.pastDueSince <= addDays(now, -PAST_DUE_DAYS)) {
        if (await db.$transaction((tx) => endSubscription(tx, s.id, "unpaid", now, { type: "system", name: null }, ["past_due"]))) done.ended++;
      }
    }
  }
  if (done.renewed + done.ended > 0) await invalidateLicenseOf(s.id);
  return done;
}

/** Whether any subscription here is billed by Stripe (one indexed look, so test-mode-only deployments skip the rest). */
async function stripeBilling(): Promise<boolean> {
  return (
    (await getDb().subscription.findFirst({ where: { provider: "stripe", status: { not: "ended" } }, select: { id: true } })) !== null ||
    (await getDb().subscription.findFirst({ where: { provider: "stripe", providerEndedAt: null, status: "ended" }, select: { id: true } })) !== null
  );
}

/** Lets the requests that arrived meanwhile be answered before the next piece of work. */
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One pass over everything due at `now`, in batches of `batch`; returns what it did. */
export async function runSubscriptionJobs(now = new Date(), batch = SUBSCRIPTION_BATCH) {
  const db = getDb();
  const done = { renewed: 0, ended: 0, reminded: 0 };
  // Ended periods: test mode's to charge, and any provider's cancellations and stopped listings to end (Stripe's own
  // renewals arrive as invoice events). Unpaid renewals past their retry window.
  const due = await db.subscription.findMany({
    where: {
      OR: [
        { status: { in: ["active", "trialing"] }, provider: "test", currentPeriodEnd: { lte: now } },
        { status: "canceling", currentPeriodEnd: { lte: now } },
        { status: "past_due", provider: "test", pastDueSince: { lte: addDays(now, -PAST_DUE_DAYS) } },
      ],
    },
    orderBy: { currentPeriodEnd: "asc" },
    take: batch,
    select: { id: true },
  });
  for (const { id } of due) {
    const r = await processSubscription(id, now);
    done.renewed += r.renewed;
    done.ended += r.ended;
    // On SQLite every query is synchronous, so a batch's awaits never wait: without a turn of the event loop
    // between subscriptions, a batch would keep /validate and every other request waiting until it ends.
    await yieldToRequests();
  }

  // Stripe bills its own renewals: a removed listing's or a suspended seller's subscriptions are set to end at their
  // period's end there (and here), before Stripe charges another period; what ended here is ended there.
  if (await stripeBilling()) {
    const stopped = await db.subscription.findMany({
      where: {
        provider: "stripe",
        status: { in: ["active", "trialing"] },
        product: { OR: [{ status: { in: ["removed", "suspended"] } }, { developer: { suspendedAt: { not: null } } }] },
      },
      take: batch,
      select: { id: true, providerSubscriptionId: true, updatedAt: true },
    });
    for (const s of stopped) {
      try {
        await sendStripeChange(s, "cancel_at_period_end");
      } catch {
        continue; // logged; tried again on the next pass
      }
      if (await db.$transaction((tx) => cancelSubscription(tx, s.id, { type: "operator", name: "listing stopped" }, now))) done.ended++;
    }
    done.ended += await endOnStripe(batch, now);
  }

  // Reminders of yearly renewals, once per period.
  const soon = await db.subscription.findMany({
    where: { status: "active", interval: "year", currentPeriodEnd: { gt: now, lte: addDays(now, YEARLY_REMINDER_DAYS) } },
    take: batch,
    include: { product: { select: { name: true, developer: { select: { name: true } } } } },
  });
  for (const s of soon) {
    if (s.remindedFor && s.remindedFor.getTime() === s.currentPeriodEnd.getTime()) continue;
    await yieldToRequests();
    const coupon = s.couponId ? await db.coupon.findUnique({ where: { id: s.couponId }, select: { percentOff: true, amountOffMinor: true } }) : null;
    const charge = nextCharge(s, coupon?.percentOff ?? null, coupon?.amountOffMinor ?? null);
    await db.$transaction(async (tx) => {
      const claimed = await tx.subscription.updateMany({
        where: { id: s.id, currentPeriodEnd: s.currentPeriodEnd, OR: [{ remindedFor: null }, { remindedFor: { not: s.currentPeriodEnd } }] },
        data: { remindedFor: s.currentPeriodEnd },
      });
      if (claimed.count === 0) return;
      const mail = subscriptionEmail({
        kind: "reminder",
        productName: s.product.name,
        developerName: s.product.developer.name,
        subscriptionId: s.id,
        interval: s.interval,
        amountCents: charge.amountCents,
        currency: s.currency,
        date: s.currentPeriodEnd,
        manageUrl: absoluteUrl(paths.myLicenses),
      });
      await enqueueEmail(tx, {
        to: s.buyerEmail,
        ...mail,
        kind: "subscription-reminder",
        dedupeKey: `sub:${s.id}:reminder:${s.currentPeriodEnd.toISOString()}`,
      });
      done.reminded++;
    });
  }

  if (done.renewed + done.ended + done.reminded > 0) {
    kickOutbox();
    kickWebhooks();
  }
  return done;
}

const loop = outboxLoop({
  key: "subscriptions",
  label: "subscription renewals",
  batch: SUBSCRIPTION_BATCH,
  deliver: async ({ limit }) => {
    const r = await runSubscriptionJobs(new Date(), limit);
    return { sent: r.renewed + r.ended + r.reminded, failed: 0 };
  },
});

/** Starts the subscriptions' job loop (server.ts), every 2 s like the outboxes. */
export const startSubscriptionJobs = (): (() => void) => loop.start();
