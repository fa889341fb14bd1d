import { getDb } from "../db.ts";
import { sellerTotals, type CurrencyTotals } from "../ledger/ledger.ts";
import { formatPrice, PRICING } from "../pricing.ts";

const DAY = 86_400_000;

/** The currency the figures lead with: the one with the most orders, the platform's own on a tie or with none. */
function leadingCurrency(totals: CurrencyTotals[]): string {
  const rank = (t: CurrencyTotals) => [t.orders, t.currency === PRICING.currency ? 1 : 0] as const;
  let best: CurrencyTotals | undefined;
  for (const t of totals) {
    const [o, home] = rank(t);
    if (!best || o > rank(best)[0] || (o === rank(best)[0] && home > rank(best)[1])) best = t;
  }
  return best?.currency ?? PRICING.currency;
}

/** Each currency's amount, formatted, never added across currencies: "$10.00 · €5.00". */
function display(totals: CurrencyTotals[], pick: (t: CurrencyTotals) => number, lead: string): string {
  if (totals.length === 0) return formatPrice(0, lead);
  return [...totals.filter((t) => t.currency === lead), ...totals.filter((t) => t.currency !== lead)]
    .map((t) => formatPrice(pick(t), t.currency))
    .join(" · ");
}

/**
 * A seller's sales, all derived from the ledger: totals per currency (the leading currency's in `totals`, every
 * currency's in `currencies`, displays listing each currency apart), net revenue per day over the last `days` days
 * per currency (`daily` is the leading currency's), and the latest paid orders with their fee and net.
 */
export async function sellerSales(developerId: string, opts: { days?: number; now?: Date; take?: number } = {}) {
  const db = getDb();
  const now = opts.now ?? new Date();
  const days = opts.days ?? 30;
  const start = new Date(Math.floor(now.getTime() / DAY) * DAY - (days - 1) * DAY);
  const [currencies, agentOrders, sales, recent] = await Promise.all([
    sellerTotals(developerId),
    db.ledgerEntry.count({ where: { developerId, kind: "sale", order: { agentId: { not: null } } } }),
    db.ledgerEntry.findMany({
      where: { developerId, kind: "sale" },
      orderBy: [{ createdAt: "desc" }, { key: "desc" }],
      take: opts.take ?? 200,
      select: {
        orderId: true,
        createdAt: true,
        currency: true,
        order: { select: { buyerEmail: true, agentId: true, provider: true, product: { select: { id: true, name: true } } } },
      },
    }),
    db.ledgerEntry.findMany({
      where: { developerId, createdAt: { gte: start }, kind: { not: "payout" } },
      select: { kind: true, amountMinor: true, currency: true, createdAt: true },
    }),
  ]);
  const lead = leadingCurrency(currencies);
  const leading = currencies.find((t) => t.currency === lead);

  const series = new Map<string, { date: string; net_cents: number; orders: number }[]>();
  const seriesOf = (currency: string) => {
    let s = series.get(currency);
    if (!s) {
      s = Array.from({ length: days }, (_, i) => ({ date: new Date(start.getTime() + i * DAY).toISOString().slice(0, 10), net_cents: 0, orders: 0 }));
      series.set(currency, s);
    }
    return s;
  };
  seriesOf(lead);
  for (const e of recent) {
    const day = seriesOf(e.currency)[Math.floor((e.createdAt.getTime() - start.getTime()) / DAY)];
    if (!day) continue;
    day.net_cents += e.amountMinor;
    if (e.kind === "sale") day.orders += 1;
  }

  const orderIds = sales.flatMap((s) => (s.orderId ? [s.orderId] : []));
  const perOrder = await db.ledgerEntry.findMany({
    where: { orderId: { in: orderIds }, kind: { not: "payout" } },
    select: { orderId: true, kind: true, amountMinor: true },
  });
  const sums = new Map<string, { amount: number; fee: number; net: number }>();
  for (const e of perOrder) {
    if (!e.orderId) continue;
    const s = sums.get(e.orderId) ?? { amount: 0, fee: 0, net: 0 };
    if (e.kind === "sale") s.amount += e.amountMinor;
    if (e.kind === "platform_fee" || e.kind === "fee_refund") s.fee -= e.amountMinor;
    s.net += e.amountMinor;
    sums.set(e.orderId, s);
  }

  const gross = leading?.gross ?? 0;
  const fees = leading?.fees ?? 0;
  const net = leading?.net ?? 0;
  return {
    totals: {
      orders: currencies.reduce((n, t) => n + t.orders, 0),
      currency: lead,
      gross_cents: gross,
      fee_cents: fees,
      net_cents: net,
      gross_display: display(currencies, (t) => t.gross, lead),
      fee_display: display(currencies, (t) => t.fees, lead),
      net_display: display(currencies, (t) => t.net, lead),
      agent_orders: agentOrders,
    },
    currencies: currencies.map((t) => ({ ...t, daily: seriesOf(t.currency) })),
    daily: seriesOf(lead),
    orders: sales.flatMap((s) => {
      if (!s.orderId || !s.order) return [];
      const m = sums.get(s.orderId) ?? { amount: 0, fee: 0, net: 0 };
      return [
        {
          id: s.orderId,
          paid_at: s.createdAt.toISOString(),
          product_id: s.order.product.id,
          product_name: s.order.product.name,
          buyer_email: s.order.buyerEmail,
          agent_id: s.order.agentId,
          provider: s.order.provider,
          currency: s.currency,
          amount_cents: m.amount,
          fee_cents: m.fee,
          net_cents: m.net,
          amount_display: formatPrice(m.amount, s.currency),
          fee_display: formatPrice(m.fee, s.currency),
          net_display: formatPrice(m.net, s.currency),
        },
      ];
    }),
  };
}

const CSV_COLUMNS = ["date", "kind", "order_id", "product", "buyer_email", "currency", "amount_minor", "amount"] as const;

/** A CSV field: quoted when it must be, and text a spreadsheet would run as a formula defused with a leading quote. */
function csvField(value: string, text: boolean): string {
  const v = text && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/** Minor units as a decimal in the currency's own precision: 1999 usd → "19.99", 500 jpy → "500". */
function decimal(minor: number, currency: string): string {
  const digits = new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 2;
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor)
    .toString()
    .padStart(digits + 1, "0");
  return digits === 0 ? `${sign}${abs}` : `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

/** The seller's ledger as CSV, one row per entry, oldest first, amounts signed from the seller's side. */
export async function salesCsv(developerId: string): Promise<string> {
  const entries = await getDb().ledgerEntry.findMany({
    where: { developerId },
    orderBy: [{ createdAt: "asc" }, { key: "asc" }],
    select: {
      createdAt: true,
      kind: true,
      orderId: true,
      currency: true,
      amountMinor: true,
      order: { select: { buyerEmail: true, product: { select: { name: true } } } },
    },
  });
  const rows = entries.map((e) =>
    [
      csvField(e.createdAt.toISOString(), false),
      csvField(e.kind, false),
      csvField(e.orderId ?? "", true),
      csvField(e.order?.product.name ?? "", true),
      csvField(e.order?.buyerEmail ?? "", true),
      csvField(e.currency, false),
      csvField(String(e.amountMinor), false),
      csvField(decimal(e.amountMinor, e.currency), false),
    ].join(","),
  );
  return [CSV_COLUMNS.join(","), ...rows].join("\r\n") + "\r\n";
}
