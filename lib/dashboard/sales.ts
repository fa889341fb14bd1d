import { getDb } from "../db.ts";
import { formatPrice } from "../pricing.ts";

const DAY = 86_400_000;

/** When a paid order was paid: every paid order has paidAt, so its absence is a broken invariant. */
function paidAtOf(order: { id: string; paidAt: Date | null }): Date {
  if (!order.paidAt) throw new Error(`paid order ${order.id} has no paidAt`);
  return order.paidAt;
}

/** A seller's paid orders with fee and net, totals, and revenue per day over the last `days` days. */
export async function sellerSales(developerId: string, opts: { days?: number; now?: Date; take?: number } = {}) {
  const now = opts.now ?? new Date();
  const days = opts.days ?? 30;
  const orders = await getDb().order.findMany({
    where: { status: "paid", product: { developerId } },
    orderBy: { paidAt: "desc" },
    take: opts.take ?? 200,
    select: {
      id: true,
      buyerEmail: true,
      agentId: true,
      amountCents: true,
      feeCents: true,
      currency: true,
      paidAt: true,
      provider: true,
      product: { select: { id: true, name: true } },
    },
  });
  const all = await getDb().order.aggregate({
    where: { status: "paid", product: { developerId } },
    _sum: { amountCents: true, feeCents: true },
    _count: { _all: true },
  });
  const gross = all._sum.amountCents ?? 0;
  const fees = all._sum.feeCents ?? 0;
  const start = new Date(Math.floor(now.getTime() / DAY) * DAY - (days - 1) * DAY);
  const recent = await getDb().order.findMany({
    where: { status: "paid", product: { developerId }, paidAt: { gte: start } },
    select: { amountCents: true, feeCents: true, paidAt: true },
  });
  const daily = Array.from({ length: days }, (_, i) => ({
    date: new Date(start.getTime() + i * DAY).toISOString().slice(0, 10),
    net_cents: 0,
    orders: 0,
  }));
  for (const o of recent) {
    if (!o.paidAt) continue; // the query asks for paidAt >= start, so never null here
    const i = Math.floor((o.paidAt.getTime() - start.getTime()) / DAY);
    if (daily[i]) {
      daily[i].net_cents += o.amountCents - o.feeCents;
      daily[i].orders += 1;
    }
  }
  return {
    totals: {
      orders: all._count._all,
      gross_cents: gross,
      fee_cents: fees,
      net_cents: gross - fees,
      gross_display: formatPrice(gross),
      fee_display: formatPrice(fees),
      net_display: formatPrice(gross - fees),
      agent_orders: await getDb().order.count({ where: { status: "paid", product: { developerId }, agentId: { not: null } } }),
    },
    daily,
    orders: orders.map((o) => ({
      id: o.id,
      paid_at: paidAtOf(o).toISOString(),
      product_id: o.product.id,
      product_name: o.product.name,
      buyer_email: o.buyerEmail,
      agent_id: o.agentId,
      provider: o.provider,
      amount_cents: o.amountCents,
      fee_cents: o.feeCents,
      net_cents: o.amountCents - o.feeCents,
      amount_display: formatPrice(o.amountCents, o.currency),
      fee_display: formatPrice(o.feeCents, o.currency),
      net_display: formatPrice(o.amountCents - o.feeCents, o.currency),
    })),
  };
}
