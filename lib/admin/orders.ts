import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { containsText, DEFAULT_LIMIT } from "./search.ts";

export interface AdminOrder {
  id: string;
  status: string;
  buyer_email: string;
  product: { id: string; name: string };
  seller: { id: string; name: string; email: string };
  quantity: number;
  amount_cents: number;
  tax_cents: number | null;
  refunded_cents: number;
  fee_cents: number;
  currency: string;
  coupon_code: string | null;
  dispute_status: string | null;
  provider: string;
  created_at: string;
  paid_at: string | null;
}

export interface AdminOrderDetail extends AdminOrder {
  subtotal_cents: number;
  discount_cents: number;
  provider_payment_id: string | null;
  agent_id: string | null;
  license: { id: string; is_active: boolean; revocation: string | null; max_machines: number; active_machines: number } | null;
  refunds: {
    id: string;
    amount_cents: number;
    currency: string;
    reason: string;
    initiated_by: string;
    actor_email: string | null;
    status: string;
    created_at: string;
  }[];
  ledger: { key: string; kind: string; amount_minor: number; currency: string; created_at: string }[];
  events: { id: string; type: string; outcome: string | null; processed_at: string }[];
}

const SELECT = {
  id: true,
  status: true,
  buyerEmail: true,
  quantity: true,
  amountCents: true,
  taxCents: true,
  refundedCents: true,
  feeCents: true,
  currency: true,
  couponCode: true,
  disputeStatus: true,
  provider: true,
  createdAt: true,
  paidAt: true,
  product: { select: { id: true, name: true, developer: { select: { id: true, name: true, email: true } } } },
} as const;

type Row = {
  id: string;
  status: string;
  buyerEmail: string;
  quantity: number;
  amountCents: number;
  taxCents: number | null;
  refundedCents: number;
  feeCents: number;
  currency: string;
  couponCode: string | null;
  disputeStatus: string | null;
  provider: string;
  createdAt: Date;
  paidAt: Date | null;
  product: { id: string; name: string; developer: { id: string; name: string; email: string } };
};

const toAdminOrder = (o: Row): AdminOrder => ({
  id: o.id,
  status: o.status,
  buyer_email: o.buyerEmail,
  product: { id: o.product.id, name: o.product.name },
  seller: o.product.developer,
  quantity: o.quantity,
  amount_cents: o.amountCents,
  tax_cents: o.taxCents,
  refunded_cents: o.refundedCents,
  fee_cents: o.feeCents,
  currency: o.currency,
  coupon_code: o.couponCode,
  dispute_status: o.disputeStatus,
  provider: o.provider,
  created_at: o.createdAt.toISOString(),
  paid_at: o.paidAt?.toISOString() ?? null,
});

/** Orders, newest first: by order id, buyer address, product (id or words) or seller (id, name or address), and status. */
export async function searchOrders(filter: { q?: string; status?: string; limit?: number } = {}): Promise<AdminOrder[]> {
  const q = filter.q?.trim();
  const rows = await getDb().order.findMany({
    where: {
      ...(q
        ? {
            OR: [
              { id: q },
              { providerPaymentId: q },
              { buyerEmail: containsText(q) },
              { productId: q },
              { product: { searchText: { contains: q.toLowerCase() } } },
              { product: { developerId: q } },
              { product: { name: containsText(q) } },
              { product: { developer: { name: containsText(q) } } },
              { product: { developer: { email: containsText(q) } } },
            ],
          }
        : {}),
      ...(filter.status ? { status: filter.status } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: filter.limit ?? DEFAULT_LIMIT,
    select: SELECT,
  });
  return rows.map(toAdminOrder);
}

/** One order with its license, refunds, ledger entries and the payment events that named it. */
export async function getAdminOrder(id: string): Promise<AdminOrderDetail> {
  const db = getDb();
  const o = await db.order.findUnique({
    where: { id },
    select: {
      ...SELECT,
      subtotalCents: true,
      discountCents: true,
      providerPaymentId: true,
      agentId: true,
      license: { select: { id: true, isActive: true, revocation: true, maxMachines: true, activeMachines: true } },
      refunds: { orderBy: { createdAt: "asc" } },
      ledger: { orderBy: [{ createdAt: "asc" }, { key: "asc" }] },
    },
  });
  if (!o) throw notFound("order");
  const events = await db.paymentEvent.findMany({ where: { orderId: id }, orderBy: { processedAt: "asc" } });
  return {
    ...toAdminOrder(o),
    subtotal_cents: o.subtotalCents,
    discount_cents: o.discountCents,
    provider_payment_id: o.providerPaymentId,
    agent_id: o.agentId,
    license: o.license
      ? {
          id: o.license.id,
          is_active: o.license.isActive,
          revocation: o.license.revocation,
          max_machines: o.license.maxMachines,
          active_machines: o.license.activeMachines,
        }
      : null,
    refunds: o.refunds.map((r) => ({
      id: r.id,
      amount_cents: r.amountCents,
      currency: r.currency,
      reason: r.reason,
      initiated_by: r.initiatedBy,
      actor_email: r.actorEmail,
      status: r.status,
      created_at: r.createdAt.toISOString(),
    })),
    ledger: o.ledger.map((e) => ({
      key: e.key,
      kind: e.kind,
      amount_minor: e.amountMinor,
      currency: e.currency,
      created_at: e.createdAt.toISOString(),
    })),
    events: events.map((e) => ({ id: e.id, type: e.type, outcome: e.outcome, processed_at: e.processedAt.toISOString() })),
  };
}
