import { getDb } from "../db.ts";
import { formatPrice } from "../pricing.ts";
import { addDays } from "./plans.ts";
import { nextCharge } from "./lifecycle.ts";

/**
 * A seller's subscription figures per currency (never added across currencies), for the Sales page and the API:
 *
 * - `mrr_cents`: monthly recurring revenue, what the subscriptions that will renew charge a month (a yearly one counts
 *   a twelfth, rounded to the minor unit), after the coupon that applies to their next charge. Past-due ones count
 *   (they are retried); canceled ones (ending at their period's end) and free trials do not.
 * - `active`: subscriptions paid up or being retried (active, past due) and those canceled but not yet ended;
 *   `trialing` apart.
 * - `churned_30d`: ended in the last 30 days; `churn_rate`: of those running 30 days ago, the fraction that has ended
 *   since; null with none.
 * - `upcoming_30d`: renewals due in the next 30 days, how many and what they will charge.
 */
export async function subscriptionMetrics(developerId: string, now = new Date()) {
  const since = addDays(now, -30);
  const until = addDays(now, 30);
  const rows = await getDb().subscription.findMany({
    where: { developerId, OR: [{ status: { not: "ended" } }, { endedAt: { gte: since } }] },
    select: {
      status: true,
      interval: true,
      currency: true,
      unitAmountCents: true,
      quantity: true,
      couponDuration: true,
      couponMonths: true,
      paidMonths: true,
      currentPeriodEnd: true,
      createdAt: true,
      endedAt: true,
      coupon: { select: { percentOff: true, amountOffMinor: true } },
    },
  });
  const per = new Map<
    string,
    {
      mrr: number;
      active: number;
      trialing: number;
      churned: number;
      base: number;
      churnedOfBase: number;
      upcomingCount: number;
      upcomingCents: number;
    }
  >();
  for (const s of rows) {
    const m = per.get(s.currency) ?? { mrr: 0, active: 0, trialing: 0, churned: 0, base: 0, churnedOfBase: 0, upcomingCount: 0, upcomingCents: 0 };
    per.set(s.currency, m);
    const charge = nextCharge(s, s.coupon?.percentOff ?? null, s.coupon?.amountOffMinor ?? null).amountCents;
    if (s.status === "ended") m.churned++;
    else if (s.status === "trialing") m.trialing++;
    else m.active++;
    if (s.status === "active" || s.status === "past_due") m.mrr += s.interval === "year" ? Math.round(charge / 12) : charge;
    if (s.createdAt <= since) {
      m.base++;
      if (s.status === "ended") m.churnedOfBase++;
    }
    if ((s.status === "active" || s.status === "trialing") && s.currentPeriodEnd > now && s.currentPeriodEnd <= until) {
      m.upcomingCount++;
      m.upcomingCents += charge;
    }
  }
  return [...per.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, m]) => ({
      currency,
      mrr_cents: m.mrr,
      mrr_display: formatPrice(m.mrr, currency),
      active: m.active,
      trialing: m.trialing,
      churned_30d: m.churned,
      churn_rate: m.base > 0 ? Math.round((m.churnedOfBase / m.base) * 1000) / 1000 : null,
      upcoming_30d: { count: m.upcomingCount, amount_cents: m.upcomingCents, amount_display: formatPrice(m.upcomingCents, currency) },
    }));
}
