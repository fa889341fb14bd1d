import type { Prisma } from "../generated/sqlite/client.ts";
import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { toRefundOut } from "./refund-order.ts";
import { ORDERS_PAGE_SIZE, type OrderDetail, type OrderSummary, type OrdersQuery } from "./schemas.ts";
import { orderTotal } from "./settle-refund.ts";

type OrderRow = {
  id: string;
  buyerEmail: string;
  status: string;
  quantity: number;
  currency: string;
  amountCents: number;
  taxCents: number | null;
  refundedCents: number;
  disputeStatus: string | null;
  createdAt: Date;
  paidAt: Date | null;
  product: { id: string; name: string };
};

function summary(o: OrderRow): OrderSummary {
  const total = orderTotal(o);
  return {
    id: o.id,
    product: { id: o.product.id, name: o.product.name },
    buyer_email: o.buyerEmail,
    status: o.status as OrderSummary["status"],
    quantity: o.quantity,
    currency: o.currency,
    amount_cents: o.amountCents,
    tax_cents: o.taxCents,
    total_cents: total,
    refunded_cents: o.refundedCents,
    refundable_cents: o.status === "paid" && o.disputeStatus !== "open" && o.disputeStatus !== "lost" ? Math.max(0, total - o.refundedCents) : 0,
    dispute_status: o.disputeStatus as OrderSummary["dispute_status"],
    created_at: o.createdAt.toISOString(),
    paid_at: o.paidAt?.toISOString() ?? null,
  };
}

const summarySelect = {
  id: true,
  buyerEmail: true,
  status: true,
  quantity: true,
  currency: true,
  amountCents: true,
  taxCents: true,
  refundedCents: true,
  disputeStatus: true,
  createdAt: true,
  paidAt: true,
  product: { select: { id: true, name: true } },
} as const;

/**
 * Orders of a seller's products (`developerId`), or of every seller's (the operator: null), newest first, a page at a
 * time. `q` finds an order by its id, the buyer's e-mail or the product's name (case-insensitive on both engines:
 * e-mails are stored in lower case, and product names are matched through the product's lower-cased search text).
 */
export async function listOrders(developerId: string | null, query: OrdersQuery) {
  const raw = query.q?.trim() ?? "";
  const q = raw.toLowerCase();
  const where: Prisma.OrderWhereInput = {
    ...(developerId ? { product: { developerId } } : {}),
    ...(query.status ? { status: query.status } : {}),
    ...(q ? { OR: [{ id: raw }, { buyerEmail: { contains: q } }, { product: { searchText: { contains: q } } }] } : {}),
  };
  const db = getDb();
  const [total, rows] = await Promise.all([
    db.order.count({ where }),
    db.order.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: (query.page - 1) * ORDERS_PAGE_SIZE,
      take: ORDERS_PAGE_SIZE,
      select: summarySelect,
    }),
  ]);
  return { orders: rows.map(summary), total, page: query.page, page_size: ORDERS_PAGE_SIZE };
}

/** One order with its refunds, license and dispute; another seller's order is a 404, as if it did not exist. */
export async function getOrder(developerId: string | null, orderId: string): Promise<OrderDetail> {
  const o = await getDb().order.findUnique({
    where: { id: orderId },
    select: {
      ...summarySelect,
      subtotalCents: true,
      discountCents: true,
      couponCode: true,
      feeCents: true,
      provider: true,
      product: { select: { id: true, name: true, developerId: true } },
      refunds: { orderBy: { createdAt: "asc" } },
      license: { select: { id: true, key: true, isActive: true, revocation: true, maxMachines: true } },
    },
  });
  if (!o || (developerId !== null && o.product.developerId !== developerId)) throw notFound("order");
  return {
    ...summary(o),
    subtotal_cents: o.subtotalCents,
    discount_cents: o.discountCents,
    coupon_code: o.couponCode,
    fee_cents: o.feeCents,
    provider: o.provider,
    refunds: o.refunds.map(toRefundOut),
    license: o.license
      ? {
          id: o.license.id,
          key: o.license.key,
          is_active: o.license.isActive,
          revocation: o.license.revocation as NonNullable<OrderDetail["license"]>["revocation"],
          max_machines: o.license.maxMachines,
        }
      : null,
  };
}
