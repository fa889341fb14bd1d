import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache, type ReactNode } from "react";
import { currentSeller } from "@/lib/auth/next-session";
import { formatMoment, param } from "@/components/dashboard/format";
import { isNotFound } from "@/components/dashboard/form-state";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { ScrollTable, td, tdNum, th, thNum } from "@/components/dashboard/table";
import { card, focusRing, textLink } from "@/components/ui/styles";
import { formatPrice, minorToDecimal, TAX_NOT_CALCULATED } from "@/lib/pricing";
import { getOrder } from "@/lib/refunds/orders";
import { orderParamsSchema, type OrderDetail } from "@/lib/refunds/schemas";
import { pageSeller } from "../../../../_lib/seller";
import { refundAction } from "../actions";
import { DisputeBadge, OrderStatusBadge, RefundStatusBadge } from "../badges";
import { RefundForm } from "../refund-form";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const findOrder = cache(async (developerId: string, id: string): Promise<OrderDetail | null> => {
  const parsed = orderParamsSchema.safeParse({ id });
  if (!parsed.success) return null;
  try {
    return await getOrder(developerId, parsed.data.id);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const seller = await currentSeller();
  const order = seller?.developer ? await findOrder(seller.developer.id, (await params).id) : null;
  return { title: order ? `Order for ${order.product.name}` : "Order not found", robots: { index: false } };
}

function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-3 sm:grid-cols-3 sm:gap-4">
      <dt className="text-sm font-medium text-slate-600">{term}</dt>
      <dd className="text-sm wrap-anywhere text-slate-900 sm:col-span-2">{children}</dd>
    </div>
  );
}

const LICENSE_STATE: Record<string, string> = {
  refunded: "Revoked: the purchase was refunded",
  disputed: "Suspended while the payment dispute is open",
  dispute_lost: "Revoked: the payment dispute was lost",
  seller: "Revoked by you",
};

/** Why the refund form is not offered, in words; null when it is. */
function notRefundable(o: OrderDetail): string | null {
  if (o.status !== "paid") return "Only paid orders can be refunded.";
  if (o.dispute_status === "open") return "The buyer's bank is deciding a dispute on this payment; it cannot be refunded meanwhile.";
  if (o.dispute_status === "lost") return "The buyer's bank already returned this payment (the dispute was lost).";
  if (o.refundable_cents <= 0) return "Everything paid for this order has been refunded.";
  return null;
}

export default async function OrderPage({ params, searchParams }: Props) {
  const { developer } = await pageSeller();
  const order = await findOrder(developer.id, (await params).id);
  if (!order) notFound();
  const money = (minor: number) => formatPrice(minor, order.currency);
  const refundParam = param((await searchParams).refund);
  const justRefunded = order.refunds.find((r) => r.id === refundParam);
  const blocked = notRefundable(order);

  return (
    <>
      {justRefunded ? (
        <div role="status" className="mb-6 rounded-xl border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm font-medium text-emerald-900">
          Refunded {money(justRefunded.amount_cents)} to {order.buyer_email}. The buyer has been e-mailed
          {order.license && order.license.revocation === "refunded" ? "; the license is revoked." : "; the license keeps working."}
        </div>
      ) : null}
      <PageHeader
        eyebrow={
          <Link href="/dashboard/orders" className={`rounded-sm hover:text-slate-900 hover:underline ${focusRing}`}>
            <span aria-hidden="true">← </span>Orders
          </Link>
        }
        title={`Order for ${order.product.name}`}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <OrderStatusBadge status={order.status} refunded={order.refunded_cents} total={order.total_cents} />
            <DisputeBadge status={order.dispute_status} />
            <code className="font-mono text-sm text-slate-600">{order.id}</code>
          </span>
        }
      />

      <div className="mt-8 grid gap-6 lg:grid-cols-2">
        <Section id="charges-heading" title="Charges" className={`${card} p-5 sm:p-6`}>
          <dl className="divide-y divide-slate-100">
            <Detail term="Buyer">{order.buyer_email}</Detail>
            <Detail term="Ordered">{formatMoment(order.created_at)}</Detail>
            {order.paid_at ? <Detail term="Paid">{formatMoment(order.paid_at)}</Detail> : null}
            <Detail term="Quantity">{order.quantity}</Detail>
            <Detail term="Subtotal">{money(order.subtotal_cents)}</Detail>
            {order.discount_cents > 0 ? (
              <Detail term="Discount">
                −{money(order.discount_cents)}
                {order.coupon_code ? <span className="text-slate-600"> (coupon {order.coupon_code})</span> : null}
              </Detail>
            ) : null}
            <Detail term="Tax">{order.tax_cents === null ? TAX_NOT_CALCULATED : money(order.tax_cents)}</Detail>
            <Detail term="Total charged">{money(order.total_cents)}</Detail>
            <Detail term="Platform fee">{money(order.fee_cents)}</Detail>
            <Detail term="Refunded">{money(order.refunded_cents)}</Detail>
            <Detail term="Payment">{order.provider === "test" ? "Test mode (no money moved)" : "Stripe"}</Detail>
            {order.paid_at ? (
              <Detail term="Invoice">
                <a href={`/dashboard/orders/${encodeURIComponent(order.id)}/invoice`} className={textLink} download>
                  Download the invoice (PDF)
                </a>
              </Detail>
            ) : null}
          </dl>
        </Section>

        <Section id="license-heading" title="License" className={`${card} p-5 sm:p-6`}>
          {order.license ? (
            <dl className="divide-y divide-slate-100">
              <Detail term="Key">
                <Link href={`/dashboard/licenses/${encodeURIComponent(order.license.id)}`} className={`${textLink} font-mono`}>
                  {order.license.key}
                </Link>
              </Detail>
              <Detail term="Status">{order.license.is_active ? "Active" : (LICENSE_STATE[order.license.revocation ?? "seller"] ?? "Revoked")}</Detail>
              <Detail term="Machines">{order.license.max_machines}</Detail>
              {order.dispute_status ? (
                <Detail term="Dispute">
                  {order.dispute_status === "open"
                    ? "Open: the buyer's bank is deciding. Won, the license works again; lost, it stays revoked."
                    : order.dispute_status === "won"
                      ? "Won: the money came back."
                      : "Lost: the payment went back to the buyer."}
                </Detail>
              ) : null}
            </dl>
          ) : (
            <p className="text-sm text-slate-600">No license: the order was never paid.</p>
          )}
        </Section>
      </div>

      {order.refunds.length > 0 ? (
        <Section id="refunds-heading" title="Refunds" className="mt-10">
          <ScrollTable label="Refunds">
            <caption className="sr-only">Refunds of this order</caption>
            <thead>
              <tr>
                <th scope="col" className={th}>
                  When
                </th>
                <th scope="col" className={thNum}>
                  Amount
                </th>
                <th scope="col" className={th}>
                  Reason
                </th>
                <th scope="col" className={th}>
                  By
                </th>
                <th scope="col" className={th}>
                  Status
                </th>
              </tr>
            </thead>
            <tbody>
              {order.refunds.map((r) => (
                <tr key={r.id}>
                  <td data-label="When" className={`${td} whitespace-nowrap`}>
                    {formatMoment(r.created_at)}
                  </td>
                  <td data-label="Amount" className={tdNum}>
                    {money(r.amount_cents)}
                  </td>
                  <td data-label="Reason" className={`${td} wrap-anywhere`}>
                    {r.reason}
                  </td>
                  <td data-label="By" className={td}>
                    {r.initiated_by === "seller"
                      ? r.actor?.startsWith("token:")
                        ? `You (API token ${r.actor.slice("token:".length)})`
                        : "You"
                      : r.initiated_by === "operator"
                        ? "The marketplace"
                        : r.initiated_by === "buyer"
                          ? "The buyer's plan change"
                          : "Stripe dashboard"}
                  </td>
                  <td data-label="Status" className={td}>
                    <RefundStatusBadge status={r.status} />
                  </td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        </Section>
      ) : null}

      <Section
        id="refund-heading"
        title="Refund"
        description={blocked ?? `Up to ${money(order.refundable_cents)} can still be refunded. The buyer is e-mailed either way.`}
        className={`${card} mt-10 p-5 sm:p-6`}
      >
        {blocked ? null : (
          <div className="max-w-xl">
            <RefundForm
              action={refundAction.bind(null, order.id)}
              remainingDisplay={money(order.refundable_cents)}
              remainingCents={order.refundable_cents}
              currency={order.currency}
              buyerEmail={order.buyer_email}
              placeholder={minorToDecimal(Math.min(order.refundable_cents, 500), order.currency)}
              idempotencyKey={crypto.randomUUID()}
            />
          </div>
        )}
      </Section>
    </>
  );
}
