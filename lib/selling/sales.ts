import { getDb } from "../db.ts";
import type { LedgerKind } from "../ledger/kinds.ts";
import { sellerTotals, type CurrencyTotals } from "../ledger/ledger.ts";
import { formatPrice, minorToDecimal, PRICING, TAX_NOT_CALCULATED } from "../pricing.ts";
import { absoluteUrl } from "../urls.ts";

const DAY = 86_400_000;

/**
 * Kinds that are not the seller's earnings: tax is collected for the tax authority and shown apart, a payout moves
 * earnings to the bank. Net (per currency, per day, per order) is the sum of every other kind.
 */
const OUTSIDE_NET: ReadonlySet<string> = new Set<LedgerKind>(["tax", "tax_refund", "payout"]);
const TAX: ReadonlySet<string> = new Set<LedgerKind>(["tax", "tax_refund"]);

/** What the Orders page of an order is; the Sales page links each row to it. */
const orderPath = (orderId: string) => `/dashboard/orders/${encodeURIComponent(orderId)}`;

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

/** Each currency's amount, formatted, never added across currencies: "$10.00 USD · €5.00 EUR". */
function display(totals: CurrencyTotals[], pick: (t: CurrencyTotals) => number, lead: string): string {
  if (totals.length === 0) return formatPrice(0, lead);
  return [...totals.filter((t) => t.currency === lead), ...totals.filter((t) => t.currency !== lead)]
    .map((t) => formatPrice(pick(t), t.currency))
    .join(" · ");
}

/** One currency's figures formatted for the page, each with its code. */
function displays(t: CurrencyTotals) {
  const f = (n: number) => formatPrice(n, t.currency);
  return {
    gross: f(t.gross),
    discounts: f(t.discounts),
    fees: f(t.fees),
    tax: f(t.tax),
    refunds: f(t.refunds),
    disputes: f(t.disputes),
    net: f(t.net),
    payouts: f(t.payouts),
  };
}

const NO_TOTALS = (currency: string): CurrencyTotals => ({
  currency,
  orders: 0,
  gross: 0,
  discounts: 0,
  fees: 0,
  tax: 0,
  refunds: 0,
  disputes: 0,
  net: 0,
  payouts: 0,
});

/**
 * A seller's sales, all derived from the ledger: totals per currency (`currencies`, leading currency first, each with
 * formatted figures and its own 30-day chart; `totals` keeps the leading currency's figures and displays listing
 * each currency apart), net per day per currency (`daily` is the leading currency's), and the latest paid orders
 * with quantity, coupon, discount, fee, tax, refunds and net. Tax is never part of net; currencies are never added.
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
        order: {
          select: {
            buyerEmail: true,
            agentId: true,
            provider: true,
            quantity: true,
            couponCode: true,
            taxCents: true,
            product: { select: { id: true, name: true } },
          },
        },
      },
    }),
    db.ledgerEntry.findMany({
      where: { developerId, createdAt: { gte: start }, kind: { notIn: [...OUTSIDE_NET] } },
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
  const sums = new Map<string, { amount: number; discount: number; fee: number; tax: number; refunds: number; net: number }>();
  for (const e of perOrder) {
    if (!e.orderId) continue;
    const s = sums.get(e.orderId) ?? { amount: 0, discount: 0, fee: 0, tax: 0, refunds: 0, net: 0 };
    const k = e.kind as LedgerKind;
    if (k === "sale") s.amount += e.amountMinor;
    if (k === "discount") s.discount -= e.amountMinor;
    if (k === "platform_fee" || k === "fee_refund") s.fee -= e.amountMinor;
    if (k === "refund" || k === "dispute" || k === "dispute_reversal") s.refunds -= e.amountMinor;
    if (TAX.has(k)) s.tax += e.amountMinor;
    else s.net += e.amountMinor;
    sums.set(e.orderId, s);
  }

  // The leading currency first, then the others alphabetically; a seller without sales sees the platform's currency.
  const ordered =
    currencies.length > 0 ? [...currencies.filter((t) => t.currency === lead), ...currencies.filter((t) => t.currency !== lead)] : [NO_TOTALS(lead)];

  return {
    totals: {
      orders: currencies.reduce((n, t) => n + t.orders, 0),
      currency: lead,
      gross_cents: leading?.gross ?? 0,
      fee_cents: leading?.fees ?? 0,
      net_cents: leading?.net ?? 0,
      gross_display: display(currencies, (t) => t.gross, lead),
      fee_display: display(currencies, (t) => t.fees, lead),
      net_display: display(currencies, (t) => t.net, lead),
      agent_orders: agentOrders,
    },
    currencies: ordered.map((t) => ({ ...t, display: displays(t), daily: seriesOf(t.currency) })),
    daily: seriesOf(lead),
    orders: sales.flatMap((s) => {
      if (!s.orderId || !s.order) return [];
      const m = sums.get(s.orderId) ?? { amount: 0, discount: 0, fee: 0, tax: 0, refunds: 0, net: 0 };
      const f = (n: number) => formatPrice(n, s.currency);
      // Tax the provider did not calculate (test mode, Stripe Tax off) is "not calculated", not zero.
      const tax = s.order.taxCents === null ? null : m.tax;
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
          quantity: s.order.quantity,
          coupon_code: s.order.couponCode,
          amount_cents: m.amount,
          discount_cents: m.discount,
          fee_cents: m.fee,
          tax_cents: tax,
          refunds_cents: m.refunds,
          net_cents: m.net,
          amount_display: f(m.amount),
          discount_display: f(m.discount),
          fee_display: f(m.fee),
          tax_display: tax === null ? TAX_NOT_CALCULATED : f(tax),
          refunds_display: f(m.refunds),
          net_display: f(m.net),
          order_path: orderPath(s.orderId),
        },
      ];
    }),
  };
}

export type SellerSales = Awaited<ReturnType<typeof sellerSales>>;

const CSV_COLUMNS = [
  "date",
  "kind",
  "order_id",
  "product",
  "buyer_email",
  "currency",
  "amount_minor",
  "amount",
  "in_net",
  "quantity",
  "coupon_code",
  "order_url",
] as const;

/** A CSV field: quoted when it must be, and text a spreadsheet would run as a formula defused with a leading quote. */
function csvField(value: string, text: boolean): string {
  const v = text && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/**
 * The seller's ledger as CSV, one row per entry, oldest first, amounts signed from the seller's side in the entry's
 * own currency (never converted or added across currencies). `in_net` is "no" for tax (collected, not part of the
 * seller's earnings) and payouts, so summing the "yes" rows of one currency gives the Sales page's net.
 */
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
      order: { select: { buyerEmail: true, quantity: true, couponCode: true, product: { select: { name: true } } } },
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
      csvField(minorToDecimal(e.amountMinor, e.currency), false),
      OUTSIDE_NET.has(e.kind) ? "no" : "yes",
      e.order ? String(e.order.quantity) : "",
      csvField(e.order?.couponCode ?? "", true),
      e.orderId ? csvField(absoluteUrl(orderPath(e.orderId)), false) : "",
    ].join(","),
  );
  return [CSV_COLUMNS.join(","), ...rows].join("\r\n") + "\r\n";
}

/** How many products the sales summary ranks. */
const TOP_PRODUCTS = 5;

/**
 * A seller's figures over the last `days` days (whole UTC days, today included), from the ledger and the licenses:
 * money per currency (never added across currencies; net without tax, as the Sales page shows it), paid orders,
 * refunded orders, licenses issued (purchases, complimentary and trials apart), licenses active now, and the products
 * that sold most in the window. What a seller's own agent reads to answer "how are sales?".
 */
export async function sellerSalesSummary(developerId: string, days: number, now = new Date()) {
  const db = getDb();
  const from = new Date(Math.floor(now.getTime() / DAY) * DAY - (days - 1) * DAY);
  const window = { gte: from, lte: now };
  const [currencies, refunded, sales, issued, active] = await Promise.all([
    sellerTotals(developerId, { from, to: new Date(now.getTime() + 1) }),
    db.ledgerEntry.findMany({ where: { developerId, kind: "refund", createdAt: window }, distinct: ["orderId"], select: { orderId: true } }),
    db.ledgerEntry.findMany({
      where: { developerId, kind: "sale", createdAt: window },
      select: { amountMinor: true, currency: true, order: { select: { productId: true } } },
    }),
    db.license.groupBy({ by: ["source"], where: { product: { developerId }, issuedAt: window }, _count: { _all: true } }),
    db.license.count({ where: { product: { developerId }, isActive: true, trial: false, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] } }),
  ]);

  const byProduct = new Map<string, { orders: number; gross: Map<string, number> }>();
  for (const s of sales) {
    if (!s.order) continue;
    const p = byProduct.get(s.order.productId) ?? { orders: 0, gross: new Map<string, number>() };
    p.orders += 1;
    p.gross.set(s.currency, (p.gross.get(s.currency) ?? 0) + s.amountMinor);
    byProduct.set(s.order.productId, p);
  }
  const top = [...byProduct.entries()].sort((a, b) => b[1].orders - a[1].orders || a[0].localeCompare(b[0])).slice(0, TOP_PRODUCTS);
  const names = new Map(
    (await db.product.findMany({ where: { id: { in: top.map(([id]) => id) } }, select: { id: true, name: true } })).map((p) => [p.id, p.name]),
  );
  const issuedBy = (source: string) => issued.find((g) => g.source === source)?._count._all ?? 0;

  return {
    days,
    from: from.toISOString(),
    to: now.toISOString(),
    orders: currencies.reduce((n, t) => n + t.orders, 0),
    refunded_orders: refunded.filter((r) => r.orderId !== null).length,
    currencies: currencies.map((t) => ({
      currency: t.currency,
      orders: t.orders,
      gross_cents: t.gross,
      discount_cents: t.discounts,
      fee_cents: t.fees,
      refund_cents: t.refunds,
      dispute_cents: t.disputes,
      net_cents: t.net,
      tax_cents: t.tax,
      gross_display: formatPrice(t.gross, t.currency),
      fee_display: formatPrice(t.fees, t.currency),
      refund_display: formatPrice(t.refunds, t.currency),
      net_display: formatPrice(t.net, t.currency),
    })),
    licenses_issued: {
      total: issued.reduce((n, g) => n + g._count._all, 0),
      purchase: issuedBy("purchase"),
      complimentary: issuedBy("complimentary"),
      trial: issuedBy("trial"),
    },
    active_licenses: active,
    top_products: top.map(([id, p]) => ({
      product_id: id,
      name: names.get(id) ?? id,
      orders: p.orders,
      gross: [...p.gross.entries()]
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([currency, cents]) => ({ currency, gross_cents: cents, gross_display: formatPrice(cents, currency) })),
    })),
  };
}

/**
 * The seller's checkout links with how each sold: visits, checkouts opened, paid orders, and revenue (what the paid
 * orders through it charged before tax, in the product's currency, refunds not taken off), newest link first.
 */
export async function checkoutLinkSales(developerId: string) {
  const db = getDb();
  const [links, paid] = await Promise.all([
    db.checkoutLink.findMany({
      where: { developerId },
      orderBy: [{ createdAt: "desc" }, { id: "asc" }],
      take: 500,
      select: {
        id: true,
        name: true,
        slug: true,
        visits: true,
        checkouts: true,
        sales: true,
        active: true,
        product: { select: { name: true, currency: true } },
      },
    }),
    db.order.groupBy({
      by: ["checkoutLinkId"],
      where: { status: "paid", checkoutLink: { developerId } },
      _sum: { amountCents: true },
    }),
  ]);
  const revenue = new Map(paid.map((g) => [g.checkoutLinkId, g._sum.amountCents ?? 0]));
  return links.map((l) => {
    const cents = revenue.get(l.id) ?? 0;
    return {
      id: l.id,
      name: l.name,
      slug: l.slug,
      product_name: l.product.name,
      active: l.active,
      visits: l.visits,
      checkouts: l.checkouts,
      sales: l.sales,
      currency: l.product.currency,
      revenue_cents: cents,
      revenue_display: formatPrice(cents, l.product.currency),
    };
  });
}
