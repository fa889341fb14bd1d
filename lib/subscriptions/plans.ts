import { AppError } from "../http/errors.ts";

/**
 * How a product is sold, and the arithmetic of recurring periods: pure functions over rows the caller loaded, so the
 * checkout, the renewals, the product page and the agent documents apply one rule.
 *
 * - `one_time`: bought once, valid forever (the update policy decides which releases it gets).
 * - `subscription`: billed every month and/or every year; the license is valid for the paid period plus the grace
 *   days, and follows the subscription (renewed, past due, canceled, ended).
 * - `updates_plan`: bought once, valid forever; it gets the releases published while a yearly plan is paid, and
 *   renewing the plan (at the seller's renewal price) buys another year of updates.
 */
export const PRICING_MODELS = ["one_time", "subscription", "updates_plan"] as const;

export const INTERVALS = ["month", "year"] as const;
export type Interval = (typeof INTERVALS)[number];

export const SUBSCRIPTION_STATUSES = ["trialing", "active", "past_due", "canceling", "ended"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** How long a year of updates is, bought with an "updates_plan" product or renewed, in months. */
export const UPDATES_PLAN_MONTHS = 12;

/** The grace a new subscription product gets unless the seller sets another, in days. */
export const DEFAULT_GRACE_DAYS = 3;
/** The longest grace and free trial a seller may set, in days. */
export const MAX_GRACE_DAYS = 30;
export const MAX_SUBSCRIPTION_TRIAL_DAYS = 90;
/** How long an unpaid renewal is retried before the subscription ends as unpaid, in days. */
export const PAST_DUE_DAYS = 14;
/** How many days before a yearly renewal the buyer is reminded of it. */
export const YEARLY_REMINDER_DAYS = 7;

const DAY_MS = 86_400_000;

export const monthsOf = (interval: Interval): number => (interval === "year" ? 12 : 1);

/**
 * `anchor` plus `months` calendar months, in UTC, on the anchor's day of the month where the month has it and on its
 * last day where it does not (Jan 31 → Feb 28 → Mar 31), as card processors bill.
 */
export function addMonths(anchor: Date, months: number): Date {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const d = new Date(anchor.getTime());
  d.setUTCFullYear(y, m, Math.min(anchor.getUTCDate(), lastDay));
  return d;
}

/** The end of the n-th period (1-based) counted from the billing anchor. */
export const periodEnd = (anchor: Date, interval: Interval, n: number): Date => addMonths(anchor, monthsOf(interval) * n);

/** The date a license that follows a subscription stops validating: the paid period's end plus the grace. */
export const licenseExpiry = (paidUntil: Date, graceDays: number): Date => new Date(paidUntil.getTime() + graceDays * DAY_MS);

export const addDays = (at: Date, days: number): Date => new Date(at.getTime() + days * DAY_MS);

/** What recurring pricing a product row carries. */
export interface PlanFacts {
  pricingModel: string;
  priceCents: number;
  monthlyPriceCents: number | null;
  yearlyPriceCents: number | null;
  renewalPriceCents: number | null;
}

export const isRecurring = (p: Pick<PlanFacts, "pricingModel">): boolean => p.pricingModel === "subscription";

/** The intervals a subscription product is sold by ([] for a product sold once). */
export function offeredIntervals(p: PlanFacts): Interval[] {
  if (p.pricingModel !== "subscription") return [];
  return INTERVALS.filter((i) => (i === "month" ? p.monthlyPriceCents : p.yearlyPriceCents) !== null);
}

/**
 * The price of one seat for what a checkout sells: the product's price for a product sold once (an interval is then
 * refused), the interval's price for a subscription (the interval defaults to the monthly one when there is one).
 */
export function checkoutPrice(p: PlanFacts, interval: Interval | undefined): { unitCents: number; interval: Interval | null } {
  if (p.pricingModel !== "subscription") {
    if (interval) {
      throw new AppError("interval_not_offered", 400, "This product is sold once, not by the month or the year: leave out the interval.");
    }
    return { unitCents: p.priceCents, interval: null };
  }
  const offered = offeredIntervals(p);
  const chosen = interval ?? offered[0];
  const unitCents = chosen === "month" ? p.monthlyPriceCents : chosen === "year" ? p.yearlyPriceCents : null;
  if (!chosen || !offered.includes(chosen) || unitCents === null) {
    throw new AppError(
      "interval_not_offered",
      400,
      `This subscription is sold ${offered.map((i) => `${i}ly`).join(" and ")}, not ${interval ?? "without an interval"}ly.`,
    );
  }
  return { unitCents, interval: chosen };
}

/** What a subscription's coupon takes off a charge, from when the charge's period starts. */
export interface CouponTerms {
  couponDuration: string | null;
  couponMonths: number | null;
}

/**
 * Whether the coupon applies to the charge of the period that starts `monthsIn` months after the subscription's first
 * paid period started: "once" only the first charge, "forever" every charge, "repeating" the charges of periods that
 * start within its months.
 */
export function couponApplies(terms: CouponTerms, monthsIn: number): boolean {
  if (!terms.couponDuration) return false;
  if (terms.couponDuration === "forever") return true;
  if (terms.couponDuration === "repeating") return monthsIn < (terms.couponMonths ?? 0);
  return monthsIn === 0;
}

/** The price model in one line for people and agents: "$9.00 USD a month or $90.00 USD a year". */
export function describePlan(p: PlanFacts & { currency: string }, format: (cents: number, currency: string) => string): string {
  if (p.pricingModel === "subscription") {
    const parts: string[] = [];
    if (p.monthlyPriceCents !== null) parts.push(`${format(p.monthlyPriceCents, p.currency)} a month`);
    if (p.yearlyPriceCents !== null) parts.push(`${format(p.yearlyPriceCents, p.currency)} a year`);
    return parts.join(" or ");
  }
  if (p.pricingModel === "updates_plan" && p.renewalPriceCents !== null) {
    return `${format(p.priceCents, p.currency)} once, with a year of updates; ${format(p.renewalPriceCents, p.currency)} for each further year of updates`;
  }
  return `${format(p.priceCents, p.currency)} once`;
}

/**
 * The part of `amountCents` for `remainingMs` of a period `lengthMs` long, to the minor unit, half up (away from zero
 * for a negative amount): what a plan change charges or credits for the rest of a period. Exact for any amount and
 * period (integer arithmetic, no float).
 */
export function prorate(amountCents: number, remainingMs: number, lengthMs: number): number {
  if (lengthMs <= 0 || remainingMs <= 0) return 0;
  const remaining = BigInt(Math.min(remainingMs, lengthMs));
  const length = BigInt(lengthMs);
  const sign = amountCents < 0 ? -1n : 1n;
  const abs = BigInt(Math.abs(amountCents));
  return Number(sign * ((abs * remaining * 2n + length) / (length * 2n)));
}
