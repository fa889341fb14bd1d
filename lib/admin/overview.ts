import { getDb } from "../db.ts";

/**
 * One month's money in one currency, from ledger entries only, all non-negative minor units: gross sales at list
 * price, coupon discounts, platform fees charged and refunded (revenue = fees − fee refunds, the platform's), refunds
 * to buyers, disputes (less reversals), tax (collected less refunded), and the number of sales.
 */
export interface MonthFigures {
  month: string;
  currency: string;
  orders: number;
  gross: number;
  discounts: number;
  fees: number;
  fee_refunds: number;
  revenue: number;
  refunds: number;
  disputes: number;
  tax: number;
}

export interface AdminOverview {
  /** The last 12 calendar months (UTC), oldest first; a month appears once per currency that moved in it. */
  months: MonthFigures[];
  /** The same figures summed over the 12 months, per currency. */
  totals: Omit<MonthFigures, "month">[];
  counts: {
    orders_paid: number;
    sellers: number;
    sellers_suspended: number;
    products: Record<string, number>;
  };
}

const blank = (month: string, currency: string): MonthFigures => ({
  month,
  currency,
  orders: 0,
  gross: 0,
  discounts: 0,
  fees: 0,
  fee_refunds: 0,
  revenue: 0,
  refunds: 0,
  disputes: 0,
  tax: 0,
});

/** Adds one ledger sum (kind, signed amount, row count) into a month's figures. */
function addEntry(f: Omit<MonthFigures, "month">, kind: string, amount: number, count = 1): void {
  switch (kind) {
    case "sale":
      f.gross += amount;
      f.orders += count;
      break;
    case "discount":
      f.discounts -= amount;
      break;
    case "platform_fee":
      f.fees -= amount;
      f.revenue -= amount;
      break;
    case "fee_refund":
      f.fee_refunds += amount;
      f.revenue -= amount;
      break;
    case "refund":
      f.refunds -= amount;
      break;
    case "dispute":
    case "dispute_reversal":
      f.disputes -= amount;
      break;
    case "tax":
    case "tax_refund":
      f.tax += amount;
      break;
    // payouts move the seller's own money; they are not the marketplace's figures.
  }
}

const monthKey = (d: Date) => d.toISOString().slice(0, 7);

/** The first instants of the last 12 UTC months (oldest first) and of the month after the current one. */
function monthStarts(now: Date): Date[] {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return Array.from({ length: 13 }, (_, i) => new Date(Date.UTC(y, m - 11 + i, 1)));
}

/** The operator's overview, recomputed from the ledger on every call (12 grouped sums, one per month). */
export async function adminOverview(now = new Date()): Promise<AdminOverview> {
  const db = getDb();
  const starts = monthStarts(now);
  const ranges = starts.slice(0, 12).map((from, i) => ({ from, to: starts[i + 1] ?? from }));
  const perMonth = await Promise.all(
    ranges.map(({ from, to }) =>
      db.ledgerEntry.groupBy({
        by: ["currency", "kind"],
        where: { createdAt: { gte: from, lt: to } },
        _sum: { amountMinor: true },
        _count: { _all: true },
      }),
    ),
  );
  const months: MonthFigures[] = [];
  const totals = new Map<string, Omit<MonthFigures, "month">>();
  perMonth.forEach((groups, i) => {
    const month = monthKey(ranges[i]?.from ?? now);
    const byCurrency = new Map<string, MonthFigures>();
    for (const g of groups) {
      let f = byCurrency.get(g.currency);
      if (!f) byCurrency.set(g.currency, (f = blank(month, g.currency)));
      addEntry(f, g.kind, g._sum.amountMinor ?? 0, g._count._all);
      let t = totals.get(g.currency);
      if (!t) {
        const { month: _m, ...rest } = blank(month, g.currency);
        totals.set(g.currency, (t = rest));
      }
      addEntry(t, g.kind, g._sum.amountMinor ?? 0, g._count._all);
    }
    months.push(...[...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency)));
  });
  const [ordersPaid, sellers, suspended, products] = await Promise.all([
    db.order.count({ where: { paidAt: { not: null } } }),
    db.developer.count(),
    db.developer.count({ where: { suspendedAt: { not: null } } }),
    db.product.groupBy({ by: ["status"], _count: { _all: true } }),
  ]);
  return {
    months,
    totals: [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
    counts: {
      orders_paid: ordersPaid,
      sellers,
      sellers_suspended: suspended,
      products: Object.fromEntries(products.map((p) => [p.status, p._count._all])),
    },
  };
}
