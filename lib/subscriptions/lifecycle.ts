import { randomBytes } from "node:crypto";
import type { Db } from "../db.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { subscriptionEmail, type SubscriptionMailKind } from "../email/money-templates.ts";
import { issueLicense } from "../licensing/issue-license.ts";
import { licenseChanged } from "../licensing/license-change.ts";
import type { Actor, LicenseEventType } from "../licensing/license-events.ts";
import { platformFeeCents } from "../pricing.ts";
import { emitSellerEvent, type SellerEventType } from "../seller-webhooks/events.ts";
import { LICENSE_FACTS } from "../seller-webhooks/payloads.ts";
import { absoluteUrl, paths } from "../urls.ts";
import {
  addDays,
  addMonths,
  couponApplies,
  licenseExpiry,
  monthsOf,
  PAST_DUE_DAYS,
  periodEnd,
  UPDATES_PLAN_MONTHS,
  type Interval,
  type SubscriptionStatus,
} from "./plans.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * The life of a subscription, each step one conditional change made inside the transaction of what caused it (a
 * payment event, a cancellation, the job loop), so the subscription, its license, the license's event log, the
 * seller's webhook and the buyer's e-mail change together or not at all, and a repeated or racing cause changes
 * nothing the second time:
 *
 *   trialing → active → past_due → active (recovered) | ended (unpaid)
 *   active | trialing → canceling → active (resumed) | ended (canceled)
 *   any → ended (its latest charge refunded)
 *
 * The license follows it: valid until the paid period's end plus the grace days (`expiresAt`), its `billing` the
 * subscription's status, so past its expiry a past-due license answers SUBSCRIPTION_PAST_DUE instead of EXPIRED. A
 * cancellation drops the grace (valid to the period's end). Every charge is an Order of the subscription, one per
 * period start (a unique index), so the ledger, refunds and disputes treat it like a sale.
 */

const newSubscriptionId = (): string => `sub_${randomBytes(12).toString("base64url")}`;
/** Renewal charges are orders too: "in_…" (an invoice), unlike a checkout's "cs_…". */
const newInvoiceId = (): string => `in_${randomBytes(12).toString("base64url")}`;

const SYSTEM: Actor = { type: "system", name: null };

export type SubscriptionRow = NonNullable<Awaited<ReturnType<Tx["subscription"]["findUnique"]>>>;

/** The subscription as the seller's webhooks and the API show it. */
export function subscriptionPayload(s: SubscriptionRow) {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: s.id,
    kind: s.kind,
    product_id: s.productId,
    buyer_email: s.buyerEmail,
    license_id: s.licenseId,
    status: s.status as SubscriptionStatus,
    interval: s.interval as Interval,
    quantity: s.quantity,
    unit_amount_cents: s.unitAmountCents,
    currency: s.currency,
    coupon_code: s.couponCode,
    current_period_start: s.currentPeriodStart.toISOString(),
    current_period_end: s.currentPeriodEnd.toISOString(),
    trial_end: iso(s.trialEnd),
    cancel_at_period_end: s.status === "canceling",
    canceled_at: iso(s.canceledAt),
    ended_at: iso(s.endedAt),
    end_reason: s.endReason,
    past_due_since: iso(s.pastDueSince),
    grace_days: s.graceDays,
    paid_periods: s.paidPeriods,
    provider: s.provider,
    created_at: s.createdAt.toISOString(),
  };
}

/** What the next charge of a subscription will be: the seats at the price fixed at the start, less the coupon while it applies. */
export function nextCharge(
  s: Pick<SubscriptionRow, "unitAmountCents" | "quantity" | "couponDuration" | "couponMonths" | "paidMonths">,
  percentOff: number | null,
  amountOff: number | null,
) {
  const subtotal = s.unitAmountCents * s.quantity;
  const discount = couponApplies(s, s.paidMonths)
    ? Math.min(subtotal, percentOff !== null ? Math.round((subtotal * percentOff) / 100) : (amountOff ?? 0))
    : 0;
  return { subtotalCents: subtotal, discountCents: discount, amountCents: subtotal - discount };
}

/** The subscription's license (state and facts) after a change, for the event log and the webhook. */
async function changed(
  tx: Tx,
  s: SubscriptionRow,
  license: { expiresAt?: Date | null; billing: string; updatesUntil?: Date | null; maxMachines?: number } | null,
  step: {
    event: Exclude<LicenseEventType, "validation_failed">;
    webhook: SellerEventType;
    mail?: SubscriptionMailKind;
    mailDate?: Date;
    amountCents?: number;
    orderId?: string;
    actor?: Actor;
    keepsFallback?: boolean;
    /** Tells this step's e-mail apart from an earlier one of the same kind in the same period (plan changes). */
    mailKey?: string;
    plan?: { quantity: number; periodAmountCents: number; prorationCents: number };
  },
  at: Date,
): Promise<void> {
  const sub = await tx.subscription.findUniqueOrThrow({
    where: { id: s.id },
    include: { product: { select: { name: true, developer: { select: { name: true } } } } },
  });
  if (sub.licenseId) {
    if (license) await tx.license.update({ where: { id: sub.licenseId }, data: license });
    const facts = await tx.license.findUniqueOrThrow({ where: { id: sub.licenseId }, select: LICENSE_FACTS });
    await licenseChanged(tx, facts, step.event, step.actor ?? SYSTEM, {
      detail: { subscription_id: sub.id, status: sub.status, ...(step.orderId ? { order_id: step.orderId } : {}) },
      at,
    });
  }
  await emitSellerEvent(
    tx,
    sub.developerId,
    step.webhook,
    { subscription: subscriptionPayload(sub), actor: { type: (step.actor ?? SYSTEM).type, name: (step.actor ?? SYSTEM).name } },
    sub.id,
    at,
  );
  if (step.mail) {
    const mail = subscriptionEmail({
      kind: step.mail,
      productName: sub.product.name,
      developerName: sub.product.developer.name,
      subscriptionId: sub.id,
      interval: sub.interval,
      amountCents: step.amountCents ?? sub.unitAmountCents * sub.quantity,
      currency: sub.currency,
      date: step.mailDate ?? sub.currentPeriodEnd,
      manageUrl: absoluteUrl(paths.myLicenses),
      ...(step.orderId ? { orderId: step.orderId } : {}),
      ...(step.keepsFallback !== undefined ? { keepsFallback: step.keepsFallback } : {}),
      ...(step.plan ? { plan: step.plan } : {}),
    });
    // One e-mail per subscription, step and period: a repeated cause queues nothing more.
    await enqueueEmail(tx, {
      to: sub.buyerEmail,
      ...mail,
      kind: `subscription-${step.mail}`,
      dedupeKey: `sub:${sub.id}:${step.mail}:${sub.currentPeriodEnd.toISOString()}${step.mailKey ? `:${step.mailKey}` : ""}`,
    });
  }
}

/** A subscription Stripe bills: its ids and the period (or trial) its first invoice paid, as Stripe states them. */
export interface StripeSubscriptionFacts {
  providerSubscriptionId: string;
  providerCustomerId: string | null;
  periodStart: Date | null;
  periodEnd: Date | null;
  trialEnd: Date | null;
}

/** The order a checkout paid, as fulfilment reads it, for a subscription's start. */
export interface FirstInvoice {
  id: string;
  productId: string;
  buyerEmail: string;
  provider: string;
  interval: string | null;
  quantity: number;
  unitAmountCents: number | null;
  currency: string;
  couponId: string | null;
  couponCode: string | null;
  product: { developerId: string; maxMachines: number; subscriptionTrialDays: number; graceDays: number };
}

/**
 * A paid subscription checkout becomes a subscription and its license: the first period starts now (or a free trial
 * does, when the product has one: the first charge is then at its end), the license valid until the period's end plus
 * the grace. The checkout's order is the first invoice. Runs in fulfilment's transaction; returns the license key.
 */
export async function startSubscription(
  tx: Tx,
  order: FirstInvoice,
  paidAt: Date,
  actor: Actor,
  stripe: StripeSubscriptionFacts | null = null,
): Promise<{ licenseKey: string; subscriptionId: string }> {
  const interval = (order.interval ?? "month") as Interval;
  const trialDays = order.product.subscriptionTrialDays;
  // Stripe's own dates when it bills the subscription (its clock decides when it charges); ours otherwise.
  const trialEnd = stripe?.trialEnd ?? (trialDays > 0 ? addDays(paidAt, trialDays) : null);
  const anchor = trialEnd ?? paidAt;
  const end = trialEnd ?? stripe?.periodEnd ?? periodEnd(anchor, interval, 1);
  const coupon = order.couponId
    ? await tx.coupon.findUnique({ where: { id: order.couponId }, select: { duration: true, durationMonths: true } })
    : null;
  const status: SubscriptionStatus = trialEnd ? "trialing" : "active";
  const grace = order.product.graceDays;
  const license = await issueLicense(
    tx,
    {
      productId: order.productId,
      buyerEmail: order.buyerEmail,
      maxMachines: order.product.maxMachines * order.quantity,
      source: "purchase",
      orderId: order.id,
      expiresAt: licenseExpiry(end, grace),
    },
    actor,
  );
  await tx.license.update({ where: { id: license.id }, data: { billing: status } });
  const sub = await tx.subscription.create({
    data: {
      id: newSubscriptionId(),
      productId: order.productId,
      developerId: order.product.developerId,
      buyerEmail: order.buyerEmail.trim().toLowerCase(),
      licenseId: license.id,
      provider: order.provider,
      interval,
      quantity: order.quantity,
      unitAmountCents: order.unitAmountCents ?? 0,
      currency: order.currency,
      couponId: order.couponId,
      couponCode: order.couponCode,
      couponDuration: coupon?.duration ?? null,
      couponMonths: coupon?.durationMonths ?? null,
      status,
      billingAnchor: anchor,
      currentPeriodStart: paidAt,
      currentPeriodEnd: end,
      trialEnd,
      graceDays: grace,
      paidPeriods: trialEnd ? 0 : 1,
      paidMonths: trialEnd ? 0 : monthsOf(interval),
      testCard: order.provider === "test" ? "succeeds" : null,
      providerSubscriptionId: stripe?.providerSubscriptionId ?? null,
      providerCustomerId: stripe?.providerCustomerId ?? null,
    },
  });
  await tx.order.update({ where: { id: order.id }, data: { subscriptionId: sub.id, periodStart: paidAt, periodEnd: end } });
  await emitSellerEvent(tx, sub.developerId, "subscription.created", { subscription: subscriptionPayload(sub) }, sub.id, paidAt);
  return { licenseKey: license.key, subscriptionId: sub.id };
}

/**
 * What every charge of a subscription records, whatever made it (test mode's renewal, Stripe's invoice, a plan change):
 * the buyer, the seats and their price, the coupon's part, the amount and the platform fee on it, and the seller's
 * payout account when it is the provider's; an open order of the subscription, to be paid.
 */
export async function subscriptionChargeData(
  tx: Tx,
  s: Pick<SubscriptionRow, "id" | "productId" | "developerId" | "buyerEmail" | "provider" | "couponId" | "couponCode">,
  charge: { quantity: number; unitAmountCents: number; subtotalCents: number; discountCents: number; amountCents: number; currency: string },
) {
  const account = await tx.payoutAccount.findUnique({ where: { developerId: s.developerId }, select: { id: true, provider: true } });
  return {
    productId: s.productId,
    buyerEmail: s.buyerEmail,
    provider: s.provider,
    quantity: charge.quantity,
    unitAmountCents: charge.unitAmountCents,
    subtotalCents: charge.subtotalCents,
    discountCents: charge.discountCents,
    couponId: charge.discountCents > 0 ? s.couponId : null,
    couponCode: charge.discountCents > 0 ? s.couponCode : null,
    amountCents: charge.amountCents,
    feeCents: platformFeeCents(charge.amountCents),
    currency: charge.currency,
    payoutAccountId: account && account.provider === s.provider ? account.id : null,
    status: "open",
    subscriptionId: s.id,
  };
}

/**
 * The renewal charge of a subscription's next period, as an open order: created once per period start (the unique
 * index makes a second instance, or a repeated job, find the first one's), priced from the subscription. Returns null
 * when the subscription has nothing due (not yet at its period's end, canceling, ended) or the period's charge is
 * already paid.
 */
export async function openRenewal(tx: Tx, subscriptionId: string, now: Date) {
  const s = await tx.subscription.findUnique({ where: { id: subscriptionId } });
  if (!s || !["active", "trialing", "past_due"].includes(s.status) || s.currentPeriodEnd > now) return null;
  const interval = s.interval as Interval;
  // A past-due subscription's charge is the one already open for the period that began at its end.
  const start = s.currentPeriodEnd;
  const existing = await tx.order.findUnique({ where: { subscriptionId_periodStart: { subscriptionId: s.id, periodStart: start } } });
  if (existing) return existing.status === "open" ? existing : null;
  const end = periodEnd(s.billingAnchor, interval, s.paidPeriods + 1);
  const coupon = s.couponId ? await tx.coupon.findUnique({ where: { id: s.couponId }, select: { percentOff: true, amountOffMinor: true } }) : null;
  const charge = nextCharge(s, coupon?.percentOff ?? null, coupon?.amountOffMinor ?? null);
  return tx.order.upsert({
    where: { subscriptionId_periodStart: { subscriptionId: s.id, periodStart: start } },
    update: {},
    create: {
      id: newInvoiceId(),
      ...(await subscriptionChargeData(tx, s, { ...charge, quantity: s.quantity, unitAmountCents: s.unitAmountCents, currency: s.currency })),
      interval,
      periodStart: start,
      periodEnd: end,
      // Retried until the subscription gives up on it.
      expiresAt: addDays(start, PAST_DUE_DAYS + 1),
    },
  });
}

/**
 * A renewal charge was paid (fulfilment of an order with a subscription): the subscription moves to the charge's
 * period, active again if it was past due or trialing, and the license's expiry to that period's end plus the grace.
 * A charge for a period the subscription has already passed (a late duplicate) moves nothing back.
 */
export async function applyRenewal(
  tx: Tx,
  order: { id: string; subscriptionId: string; periodStart: Date; periodEnd: Date; amountCents: number; provider: string },
  paidAt: Date,
): Promise<boolean> {
  const s = await tx.subscription.findUniqueOrThrow({ where: { id: order.subscriptionId } });
  // Forward only: a charge for a period that ends later than the one the subscription is in. Test mode charges period
  // by period; Stripe's invoices can arrive out of order, and one that arrives after a later one moves nothing back.
  const moved = await tx.subscription.updateMany({
    where: { id: s.id, status: { in: ["active", "trialing", "past_due", "canceling"] }, currentPeriodEnd: { lt: order.periodEnd } },
    data: {
      currentPeriodStart: order.periodStart,
      currentPeriodEnd: order.periodEnd,
      status: s.status === "canceling" ? "canceling" : "active",
      pastDueSince: null,
      paidPeriods: { increment: 1 },
      paidMonths: { increment: monthsOf(s.interval as Interval) },
    },
  });
  if (moved.count === 0) {
    // An earlier period paid late (its invoice's event came after a later one's): it still counts as paid.
    await tx.subscription.updateMany({
      where: { id: s.id, currentPeriodEnd: { gte: order.periodEnd } },
      data: { paidPeriods: { increment: 1 }, paidMonths: { increment: monthsOf(s.interval as Interval) } },
    });
    return false;
  }
  const after = await tx.subscription.findUniqueOrThrow({ where: { id: s.id } });
  const recovered = s.status === "past_due";
  await changed(
    tx,
    after,
    { expiresAt: licenseExpiry(order.periodEnd, after.status === "canceling" ? 0 : after.graceDays), billing: after.status },
    {
      event: recovered ? "recovered" : "renewed",
      webhook: recovered ? "subscription.recovered" : "subscription.renewed",
      mail: recovered ? "recovered" : "renewed",
      amountCents: order.amountCents,
      orderId: order.id,
      actor: { type: "payment", name: order.provider },
    },
    paidAt,
  );
  return true;
}

/**
 * A renewal charge was declined: the subscription is past due from now (once, however many attempts fail), its
 * license still valid until the paid period's end plus the grace, then SUBSCRIPTION_PAST_DUE. The order stays open to
 * be charged again (a new card, the provider's retry) until PAST_DUE_DAYS have passed.
 */
export async function markPastDue(
  tx: Tx,
  order: { id: string; subscriptionId: string; amountCents: number; provider: string },
  now: Date,
): Promise<boolean> {
  const moved = await tx.subscription.updateMany({
    where: { id: order.subscriptionId, status: { in: ["active", "trialing"] } },
    data: { status: "past_due", pastDueSince: now },
  });
  if (moved.count === 0) return false;
  const after = await tx.subscription.findUniqueOrThrow({ where: { id: order.subscriptionId } });
  await changed(
    tx,
    after,
    { billing: "past_due" },
    {
      event: "payment_failed",
      webhook: "subscription.past_due",
      mail: "payment_failed",
      mailDate: licenseExpiry(after.currentPeriodEnd, after.graceDays),
      amountCents: order.amountCents,
      orderId: order.id,
      actor: { type: "payment", name: order.provider },
    },
    now,
  );
  return true;
}

/** A plan change as it is applied: from which plan (so a racing change applies once), to which, and its money. */
export interface PlanChange {
  from: { interval: Interval; quantity: number };
  interval: Interval;
  quantity: number;
  /** The price of one seat for one period on the new plan. */
  unitAmountCents: number;
  /** A new period starting now (a switch of interval); null: the period stays. */
  period: { start: Date; end: Date } | null;
  /** Charged now (> 0) or credited back (< 0) for the rest of the period. */
  prorationCents: number;
  orderId?: string;
}

/**
 * Moves a running subscription to another plan (seats, interval), in the transaction of its charge when it has one:
 * the subscription, its license's machines (and, on a new period, its expiry), the event log, the seller's
 * `subscription.updated` and the buyer's e-mail, or nothing when it is no longer on the plan it was changed from.
 */
export async function applyPlanChange(tx: Tx, id: string, change: PlanChange, actor: Actor | SubscriptionActor, at: Date): Promise<boolean> {
  const moved = await tx.subscription.updateMany({
    where: { id, status: { in: ["active", "trialing"] }, interval: change.from.interval, quantity: change.from.quantity },
    data: {
      interval: change.interval,
      quantity: change.quantity,
      unitAmountCents: change.unitAmountCents,
      ...(change.period
        ? {
            billingAnchor: change.period.start,
            currentPeriodStart: change.period.start,
            currentPeriodEnd: change.period.end,
            paidPeriods: { increment: 1 },
            paidMonths: { increment: monthsOf(change.interval) },
          }
        : {}),
    },
  });
  if (moved.count === 0) return false;
  const after = await tx.subscription.findUniqueOrThrow({ where: { id }, include: { product: { select: { maxMachines: true } } } });
  await changed(
    tx,
    after,
    {
      billing: after.status,
      maxMachines: after.product.maxMachines * change.quantity,
      ...(change.period ? { expiresAt: licenseExpiry(change.period.end, after.graceDays) } : {}),
    },
    {
      event: "plan_changed",
      webhook: "subscription.updated",
      mail: "plan_changed",
      mailKey: `${change.from.interval}:${change.from.quantity}:${change.interval}:${change.quantity}:${at.toISOString()}`,
      plan: { quantity: change.quantity, periodAmountCents: change.unitAmountCents * change.quantity, prorationCents: change.prorationCents },
      amountCents: change.prorationCents,
      ...(change.orderId ? { orderId: change.orderId } : {}),
      actor,
    },
    at,
  );
  return true;
}

/** Who asks for a cancellation or a resumption, as the subscription records it. */
export type SubscriptionActor = { type: "buyer" | "seller" | "operator"; name: string | null };

/**
 * Cancels at the period's end: nothing more is charged, the license valid until the paid period ends (no grace),
 * then the job loop ends the subscription. A past-due subscription has no paid period left: it ends at once.
 * Returns whether anything changed (a second cancellation changes nothing).
 */
export async function cancelSubscription(tx: Tx, id: string, actor: SubscriptionActor, now: Date): Promise<"canceling" | "ended" | null> {
  const s = await tx.subscription.findUniqueOrThrow({ where: { id } });
  if (s.status === "past_due") {
    return (await endSubscription(tx, id, "canceled", now, actor, ["past_due"])) ? "ended" : null;
  }
  const moved = await tx.subscription.updateMany({
    where: { id, status: { in: ["active", "trialing"] } },
    data: { status: "canceling", canceledAt: now, canceledBy: actor.type },
  });
  if (moved.count === 0) return null;
  const after = await tx.subscription.findUniqueOrThrow({ where: { id } });
  await changed(
    tx,
    after,
    { expiresAt: after.currentPeriodEnd, billing: "canceling" },
    { event: "canceled", webhook: "subscription.canceled", mail: "canceled", actor },
    now,
  );
  return "canceling";
}

/** Undoes a cancellation before the period's end: charged again at its end, the grace back on the license. */
export async function resumeSubscription(tx: Tx, id: string, actor: SubscriptionActor, now: Date): Promise<boolean> {
  const s = await tx.subscription.findUniqueOrThrow({ where: { id } });
  const status = s.trialEnd && s.paidPeriods === 0 ? "trialing" : "active";
  const moved = await tx.subscription.updateMany({
    where: { id, status: "canceling", currentPeriodEnd: { gt: now } },
    data: { status, canceledAt: null, canceledBy: null },
  });
  if (moved.count === 0) return false;
  const after = await tx.subscription.findUniqueOrThrow({ where: { id } });
  await changed(
    tx,
    after,
    { expiresAt: licenseExpiry(after.currentPeriodEnd, after.graceDays), billing: status },
    { event: "resumed", webhook: "subscription.resumed", actor },
    now,
  );
  return true;
}

/**
 * Ends a subscription, from one of the statuses given: canceled at its period's end, unpaid after PAST_DUE_DAYS,
 * refunded (its latest charge went back), or canceled while past due. The license stops at the end of what was paid
 * (at once for a refund, which also revokes it elsewhere), unless the product's perpetual fallback applies: then it is
 * kept for good, for the releases published until the last paid day. An open renewal charge is closed.
 */
export async function endSubscription(
  tx: Tx,
  id: string,
  reason: "canceled" | "unpaid" | "refunded",
  now: Date,
  actor: Actor | SubscriptionActor = SYSTEM,
  from: SubscriptionStatus[] = ["active", "trialing", "past_due", "canceling"],
): Promise<boolean> {
  const s = await tx.subscription.findUniqueOrThrow({ where: { id }, include: { product: { select: { fallbackAfterMonths: true } } } });
  const moved = await tx.subscription.updateMany({
    where: { id, status: { in: from } },
    data: {
      status: "ended",
      endedAt: now,
      endReason: reason,
      ...(reason === "canceled" && !s.canceledAt ? { canceledAt: now, canceledBy: actor.type } : {}),
    },
  });
  if (moved.count === 0) return false;
  await tx.order.updateMany({ where: { subscriptionId: id, status: "open" }, data: { status: "failed" } });
  const after = await tx.subscription.findUniqueOrThrow({ where: { id } });
  const fallback = reason !== "refunded" && s.product.fallbackAfterMonths !== null && s.paidMonths >= s.product.fallbackAfterMonths;
  const paidUntil = s.status === "past_due" ? s.currentPeriodEnd : s.currentPeriodEnd < now ? s.currentPeriodEnd : now;
  const license = fallback
    ? { expiresAt: null, billing: "ended", updatesUntil: s.currentPeriodEnd }
    : reason === "refunded"
      ? { billing: "ended" }
      : { expiresAt: s.status === "canceling" ? s.currentPeriodEnd : paidUntil, billing: "ended" };
  await changed(
    tx,
    after,
    license,
    {
      event: "expired",
      webhook: "subscription.expired",
      mail: reason === "refunded" ? undefined : "expired",
      mailDate: now,
      actor,
      keepsFallback: fallback,
    },
    now,
  );
  return true;
}

/**
 * An updates plan's renewal was paid: the license's updates run a year longer, from the day they end or from today if
 * they have ended already (a lapsed plan renewed late buys a year from now, not the months it missed). Logged as
 * "renewed" on the license, told to the buyer. Returns the license's key.
 */
export async function renewUpdates(
  tx: Tx,
  order: { id: string; renewsLicenseId: string; buyerEmail: string; amountCents: number; currency: string; provider: string },
  paidAt: Date,
): Promise<string | null> {
  const license = await tx.license.findUnique({
    where: { id: order.renewsLicenseId },
    select: { id: true, updatesUntil: true, product: { select: { name: true, developer: { select: { name: true } } } } },
  });
  if (!license) return null;
  const from = license.updatesUntil && license.updatesUntil > paidAt ? license.updatesUntil : paidAt;
  const until = addMonths(from, UPDATES_PLAN_MONTHS);
  await tx.license.update({ where: { id: license.id }, data: { updatesUntil: until } });
  const facts = await tx.license.findUniqueOrThrow({ where: { id: license.id }, select: LICENSE_FACTS });
  await licenseChanged(
    tx,
    facts,
    "renewed",
    { type: "payment", name: order.provider },
    {
      detail: { order_id: order.id, updates_until: until.toISOString() },
      at: paidAt,
    },
  );
  const mail = subscriptionEmail({
    kind: "updates_renewed",
    productName: license.product.name,
    developerName: license.product.developer.name,
    subscriptionId: facts.key,
    interval: "year",
    amountCents: order.amountCents,
    currency: order.currency,
    date: until,
    manageUrl: absoluteUrl(paths.myLicenses),
    orderId: order.id,
  });
  await enqueueEmail(tx, { to: order.buyerEmail, ...mail, kind: "updates-renewed", dedupeKey: `updates:${order.id}` });
  return facts.key;
}
