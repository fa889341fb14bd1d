import type { Metadata } from "next";
import Link from "next/link";
import { formatDay, param } from "@/components/dashboard/format";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { ScrollTable, td, tdNum, th, thNum } from "@/components/dashboard/table";
import { buttonPrimary, buttonSecondary, inputBase } from "@/components/ui/styles";
import { getDb } from "@/lib/db";
import { formatPrice } from "@/lib/pricing";
import { listSubscriptions, listSubscriptionsQuery } from "@/lib/subscriptions/manage";
import { SUBSCRIPTION_STATUSES } from "@/lib/subscriptions/plans";
import { pageSeller } from "../../../_lib/seller";
import { cancelSubscriptionAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Subscriptions", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const STATUS_LABELS: Record<(typeof SUBSCRIPTION_STATUSES)[number], string> = {
  trialing: "Free trial",
  active: "Active",
  past_due: "Payment failed",
  canceling: "Canceled (runs to period end)",
  ended: "Ended",
};
const NOTICES: Record<string, string> = {
  canceled: "Canceled: nothing more will be charged; the license works until the end of the paid period.",
  unchanged: "That subscription could not be canceled: it has ended or is canceled already.",
  failed: "That did not work. Please try again.",
};

/**
 * The seller's subscribers: each subscription with its buyer, plan, standing and next charge, filtered by status; the
 * seller cancels one at its period's end here, and refunds its latest charge from that order's page (which ends it at
 * once). The same data as GET /api/v1/subscriptions.
 */
export default async function SubscriptionsPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const query = await searchParams;
  const parsed = listSubscriptionsQuery.safeParse({ status: param(query.status) || undefined, limit: "200" });
  const q = parsed.success ? parsed.data : listSubscriptionsQuery.parse({ limit: "200" });
  const rows = await listSubscriptions({ developerId: developer.id }, q);
  // The latest paid charge of each, where a refund starts.
  const latest = new Map<string, string>();
  if (rows.length > 0) {
    const charges = await getDb().order.findMany({
      where: { subscriptionId: { in: rows.map((r) => r.id) }, status: "paid" },
      orderBy: { paidAt: "asc" },
      select: { id: true, subscriptionId: true },
    });
    for (const c of charges) if (c.subscriptionId) latest.set(c.subscriptionId, c.id);
  }
  const notice = NOTICES[param(query.notice)] ?? null;

  return (
    <>
      <PageHeader
        title="Subscriptions"
        description="Your subscribers: plan, standing and next charge. Cancel one at the end of its period here; to give money back, refund its latest charge from the order, which ends it at once."
      />
      {notice ? (
        <p id="subscriptions-notice" role="status" className="mt-6 rounded-lg border border-slate-200 bg-white px-4 py-3 text-sm text-slate-800">
          {notice}
        </p>
      ) : null}
      <form method="get" action="/dashboard/subscriptions" className="mt-8 flex items-end gap-2">
        <div>
          <label htmlFor="subscription-status" className="block text-sm font-medium text-slate-900">
            Status
          </label>
          <select id="subscription-status" name="status" defaultValue={q.status ?? ""} className={`${inputBase} mt-1.5`}>
            <option value="">Any</option>
            {SUBSCRIPTION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className={buttonPrimary}>
          Show
        </button>
        {q.status ? (
          <Link href="/dashboard/subscriptions" className={buttonSecondary}>
            Clear
          </Link>
        ) : null}
      </form>
      <Section
        id="subscriptions-heading"
        title={q.status ? STATUS_LABELS[q.status] : "All subscriptions"}
        description={rows.length === 0 ? "" : `${rows.length} ${rows.length === 1 ? "subscription" : "subscriptions"}, newest first.`}
        className="mt-8"
      >
        {rows.length === 0 ? (
          <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
            <p className="text-base font-medium text-slate-900">No subscriptions{q.status ? " with this status" : " yet"}.</p>
            <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">
              Sell a product by the month or the year (Products → edit → Pricing) and its subscribers appear here.
            </p>
          </div>
        ) : (
          <ScrollTable label="Subscriptions" minWidth="sm:min-w-[64rem]">
            <caption className="sr-only">Subscriptions with buyer, product, plan, status, next charge and actions</caption>
            <thead>
              <tr>
                <th scope="col" className={th}>
                  Buyer
                </th>
                <th scope="col" className={th}>
                  Product
                </th>
                <th scope="col" className={thNum}>
                  Plan
                </th>
                <th scope="col" className={th}>
                  Status
                </th>
                <th scope="col" className={th}>
                  Next charge or end
                </th>
                <th scope="col" className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => {
                const charge = latest.get(s.id);
                return (
                  <tr key={s.id} data-testid="subscription-row">
                    <td className={td}>
                      <span className="wrap-anywhere">{s.buyer_email}</span>
                    </td>
                    <td className={td}>{s.product_name}</td>
                    <td className={tdNum}>
                      {formatPrice(s.unit_amount_cents * s.quantity, s.currency)} a {s.interval}
                      {s.quantity > 1 ? ` · ${s.quantity} seats` : ""}
                    </td>
                    <td className={td}>{STATUS_LABELS[s.status]}</td>
                    <td className={td}>
                      {s.next_charge
                        ? `${formatPrice(s.next_charge.amount_cents, s.currency)} on ${formatDay(new Date(s.next_charge.at))}`
                        : s.status === "ended"
                          ? `Ended ${s.ended_at ? formatDay(new Date(s.ended_at)) : ""}${s.end_reason ? ` (${s.end_reason})` : ""}`
                          : `Ends ${formatDay(new Date(s.current_period_end))}`}
                    </td>
                    <td className={`${td} whitespace-nowrap`}>
                      <div className="flex gap-2">
                        {s.status === "active" || s.status === "trialing" || s.status === "past_due" ? (
                          <form action={cancelSubscriptionAction}>
                            <input type="hidden" name="subscription_id" value={s.id} />
                            <button type="submit" className={`${buttonSecondary} py-1.5`}>
                              Cancel<span className="sr-only"> the subscription of {s.buyer_email}</span>
                            </button>
                          </form>
                        ) : null}
                        {charge ? (
                          <Link href={`/dashboard/orders/${encodeURIComponent(charge)}`} className={`${buttonSecondary} py-1.5`}>
                            Latest charge<span className="sr-only"> of {s.buyer_email}</span>
                          </Link>
                        ) : null}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </ScrollTable>
        )}
      </Section>
    </>
  );
}
