import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { getAdminOrder } from "@/lib/admin/orders";
import { adminMetadata, requireAdmin } from "@/lib/admin/session";
import { AppError } from "@/lib/http/errors";
import { formatPrice, minorToDecimal, TAX_NOT_CALCULATED } from "@/lib/pricing";
import { formatMoment, param } from "@/components/dashboard/format";
import { RefundAmountLine } from "@/components/dashboard/refund-amount-line";
import { IdempotencyField } from "@/components/forms/idempotency-field";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { ScrollTable, td, tdNum, th, thNum } from "@/components/dashboard/table";
import { buttonSecondary, card, focusRing, inputBase } from "@/components/ui/styles";
import { testPaymentsEnabled } from "@/lib/payments/provider";
import { refundOrderAction, testDisputeAction } from "../../actions";
import { AdminMessages, AdminNotice, Badge, type SearchParams } from "../../_ui";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("Order");

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex justify-between gap-4 py-2.5">
      <dt className="text-slate-600">{term}</dt>
      <dd className="text-right font-medium wrap-anywhere text-slate-900">{children}</dd>
    </div>
  );
}

async function load(id: string) {
  try {
    return await getAdminOrder(id.slice(0, 100));
  } catch (error) {
    if (error instanceof AppError && error.status === 404) notFound();
    throw error;
  }
}

export default async function AdminOrderPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  await requireAdmin();
  const o = await load((await params).id);
  const total = o.amount_cents + (o.tax_cents ?? 0);
  const remaining = total - o.refunded_cents;
  const money = (n: number) => formatPrice(n, o.currency);
  // The provider refuses a refund while the bank decides a dispute, and after a lost one (order_disputed): the form says so up front.
  const disputed = o.dispute_status === "open" || o.dispute_status === "lost";
  const query = await searchParams;
  // After the operator's refund, the notice repeats it as stored: the latest refund the operator made on this order.
  const justRefunded = param(query.notice) === "refunded" ? o.refunds.findLast((r) => r.initiated_by === "operator") : undefined;
  return (
    <>
      {justRefunded ? (
        <AdminMessages
          notice={`Refunded ${money(justRefunded.amount_cents)} to ${o.buyer_email}. The buyer is told by e-mail; a full refund revokes the license.`}
        />
      ) : (
        <AdminNotice searchParams={query} />
      )}
      <PageHeader
        eyebrow={
          <Link href="/admin/orders" className={`rounded-sm hover:text-slate-900 hover:underline ${focusRing}`}>
            <span aria-hidden="true">← </span>Orders
          </Link>
        }
        title={`Order ${o.id}`}
        description={
          <span className="flex flex-wrap items-center gap-2 text-sm">
            <Badge tone={o.status === "paid" ? "green" : "slate"}>{o.status}</Badge>
            {o.dispute_status ? <Badge tone="amber">dispute {o.dispute_status}</Badge> : null}
            <span>
              {o.product.name} by {o.seller.name} ({o.seller.email}), bought by {o.buyer_email}
            </span>
          </span>
        }
      />
      <div className="mt-8 grid gap-8 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0 space-y-10">
          <Section id="refunds-heading" title="Refunds">
            {o.refunds.length === 0 ? (
              <p className="text-sm text-slate-600">No refunds.</p>
            ) : (
              <ScrollTable label="Refunds">
                <thead>
                  <tr>
                    <th scope="col" className={th}>
                      When
                    </th>
                    <th scope="col" className={thNum}>
                      Amount
                    </th>
                    <th scope="col" className={th}>
                      By
                    </th>
                    <th scope="col" className={th}>
                      Reason
                    </th>
                    <th scope="col" className={th}>
                      Status
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {o.refunds.map((r) => (
                    <tr key={r.id}>
                      <td data-label="When" className={`${td} whitespace-nowrap`}>
                        {formatMoment(r.created_at)}
                      </td>
                      <td data-label="Amount" className={tdNum}>
                        {formatPrice(r.amount_cents, r.currency)}
                      </td>
                      <td data-label="By" className={td}>
                        {r.initiated_by}
                        {r.actor_email ? <span className="block text-xs text-slate-600">{r.actor_email}</span> : null}
                      </td>
                      <td data-label="Reason" className={td}>
                        {r.reason}
                      </td>
                      <td data-label="Status" className={td}>
                        {r.status}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </ScrollTable>
            )}
          </Section>
          <Section id="ledger-heading" title="Ledger entries">
            <ScrollTable label="Ledger entries">
              <thead>
                <tr>
                  <th scope="col" className={th}>
                    When
                  </th>
                  <th scope="col" className={th}>
                    Kind
                  </th>
                  <th scope="col" className={thNum}>
                    Amount (seller&apos;s side)
                  </th>
                </tr>
              </thead>
              <tbody>
                {o.ledger.map((e) => (
                  <tr key={e.key}>
                    <td data-label="When" className={`${td} whitespace-nowrap`}>
                      {formatMoment(e.created_at)}
                    </td>
                    <td data-label="Kind" className={td}>
                      {e.kind.replace(/_/g, " ")}
                    </td>
                    <td data-label="Amount (seller's side)" className={tdNum}>
                      {formatPrice(e.amount_minor, e.currency)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </ScrollTable>
          </Section>
          <Section id="events-heading" title="Payment events">
            {o.events.length === 0 ? (
              <p className="text-sm text-slate-600">None recorded for this order.</p>
            ) : (
              <ul className="space-y-2 text-sm">
                {o.events.map((e) => (
                  <li key={e.id} className="flex flex-wrap gap-x-3">
                    <span className="text-slate-600">{formatMoment(e.processed_at)}</span>
                    <span className="font-medium">{e.type}</span>
                    <span className="text-slate-600">{e.outcome ?? ""}</span>
                  </li>
                ))}
              </ul>
            )}
          </Section>
        </div>
        <aside className="space-y-6">
          <div className={`${card} p-5`}>
            <h2 className="text-sm font-semibold text-slate-900">Money</h2>
            <dl className="mt-2 divide-y divide-slate-100 text-sm">
              <Row term="Subtotal">
                {money(o.subtotal_cents)}
                {o.quantity > 1 ? ` (${String(o.quantity)} seats)` : ""}
              </Row>
              {o.discount_cents ? <Row term={`Discount ${o.coupon_code ?? ""}`}>−{money(o.discount_cents)}</Row> : null}
              <Row term="Tax">{o.tax_cents === null ? TAX_NOT_CALCULATED : money(o.tax_cents)}</Row>
              <Row term="Total paid">{money(total)}</Row>
              <Row term="Platform fee">{money(o.fee_cents)}</Row>
              <Row term="Refunded">{money(o.refunded_cents)}</Row>
              <Row term="License">{o.license ? (o.license.is_active ? "active" : `revoked (${o.license.revocation ?? "seller"})`) : "none"}</Row>
              <Row term="Provider">
                {o.provider}
                {o.provider_payment_id ? ` · ${o.provider_payment_id}` : ""}
              </Row>
            </dl>
          </div>
          {o.status === "paid" && remaining > 0 ? (
            <form action={refundOrderAction} className={`${card} space-y-3 p-5`} aria-labelledby="refund-heading">
              <h2 id="refund-heading" className="text-sm font-semibold text-slate-900">
                Refund
              </h2>
              {disputed ? (
                <p id="refund-disputed" className="text-sm font-medium text-amber-900">
                  {o.dispute_status === "open"
                    ? "A dispute is open on this payment: the buyer's bank is deciding it, so it cannot be refunded until the dispute closes."
                    : "The buyer's bank already returned this payment (a lost dispute): there is nothing to refund."}
                </p>
              ) : (
                <p className="text-sm text-slate-600">
                  Up to {money(remaining)} remains. A full refund revokes the license; the buyer is told by e-mail.
                </p>
              )}
              <fieldset
                disabled={disputed}
                aria-describedby={disputed ? "refund-disputed" : undefined}
                className="min-w-0 space-y-3 disabled:opacity-60"
              >
                <legend className="sr-only">Refund this order</legend>
                <input type="hidden" name="id" value={o.id} />
                <IdempotencyField value={crypto.randomUUID()} />
                <RefundAmountLine id="refund-amount-understood" currency={o.currency} buyerEmail={o.buyer_email} remainingCents={remaining}>
                  <label htmlFor="refund-amount" className="block text-sm font-medium text-slate-900">
                    Amount in {o.currency.toUpperCase()} (empty: all that remains)
                  </label>
                  <input
                    id="refund-amount"
                    name="amount"
                    inputMode="decimal"
                    maxLength={32}
                    placeholder={minorToDecimal(remaining, o.currency)}
                    aria-describedby="refund-amount-understood"
                    className={`${inputBase} mt-1.5`}
                  />
                </RefundAmountLine>
                <div>
                  <label htmlFor="refund-reason" className="block text-sm font-medium text-slate-900">
                    Reason (the buyer sees it)
                  </label>
                  <input id="refund-reason" name="reason" required maxLength={500} className={`${inputBase} mt-1.5`} />
                </div>
                <div className="flex items-start gap-3">
                  <input id="refund-confirm" name="confirm" type="checkbox" required className="mt-0.5 size-5 shrink-0 accent-red-600" />
                  <label htmlFor="refund-confirm" className="text-sm text-slate-900">
                    I understand the money goes back to the buyer&apos;s payment method and cannot be taken back.
                  </label>
                </div>
                <button
                  type="submit"
                  className="inline-flex min-h-6 rounded-lg bg-red-600 px-4 py-2.5 text-sm font-semibold text-white hover:bg-red-700 disabled:cursor-not-allowed disabled:bg-slate-400"
                >
                  Refund
                </button>
              </fieldset>
            </form>
          ) : null}
          {o.provider === "test" && o.status === "paid" && testPaymentsEnabled() && o.dispute_status !== "won" && o.dispute_status !== "lost" ? (
            <form action={testDisputeAction} className={`${card} space-y-3 p-5`} aria-labelledby="test-dispute-heading">
              <h2 id="test-dispute-heading" className="text-sm font-semibold text-slate-900">
                Test mode: play the buyer&apos;s bank
              </h2>
              <p className="text-sm text-slate-600">
                {o.dispute_status === "open"
                  ? "The dispute is open and the license suspended. Close it as the bank would."
                  : "Open a dispute on this test order: the license is suspended and the seller is e-mailed, as with a real chargeback."}
              </p>
              <input type="hidden" name="id" value={o.id} />
              <IdempotencyField value={crypto.randomUUID()} />
              <div className="flex flex-wrap gap-2">
                {o.dispute_status === "open" ? (
                  <>
                    <button type="submit" name="step" value="won" className={buttonSecondary}>
                      Close as won
                    </button>
                    <button type="submit" name="step" value="lost" className={buttonSecondary}>
                      Close as lost
                    </button>
                  </>
                ) : (
                  <button type="submit" name="step" value="open" className={buttonSecondary}>
                    Open a test dispute
                  </button>
                )}
              </div>
            </form>
          ) : null}
        </aside>
      </div>
    </>
  );
}
