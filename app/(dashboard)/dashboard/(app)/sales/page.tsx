import type { Metadata } from "next";
import Link from "next/link";
import { checkoutLinkSales, sellerSales } from "@/lib/selling/sales";
import { subscriptionMetrics } from "@/lib/subscriptions/metrics";
import { PRICING } from "@/lib/pricing";
import { OrdersTable } from "@/components/dashboard/orders-table";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { RevenueCharts } from "@/components/dashboard/revenue-chart";
import { SalesTotals } from "@/components/dashboard/sales-totals";
import { buttonSecondary, card, focusRing, textLink } from "@/components/ui/styles";
import { paths } from "@/lib/urls";
import { pageSeller } from "../../../_lib/seller";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sales", robots: { index: false } };

export default async function SalesPage() {
  const { developer } = await pageSeller();
  const [sales, subscriptions, links] = await Promise.all([
    sellerSales(developer.id),
    subscriptionMetrics(developer.id),
    checkoutLinkSales(developer.id),
  ]);
  return (
    <>
      <PageHeader
        title="Sales"
        description={
          <>
            Every paid order in its own currency: gross, coupon discount, the {PRICING.transaction_fee_percent} % platform fee (on what the buyer
            paid, after discounts and before tax), refunds and your net. Tax collected on top is listed apart: it is not part of your earnings. Orders
            placed by AI agents name the agent.{" "}
            <Link href={`${paths.termsPage}#fees`} className={textLink}>
              Fees and terms
            </Link>
          </>
        }
        actions={
          <a href="/dashboard/sales/export" download className={buttonSecondary}>
            Export CSV
          </a>
        }
      />
      <div className="mt-8">
        <SalesTotals sales={sales} detailed />
      </div>
      {subscriptions.length > 0 ? (
        <Section id="subscriptions-heading" title="Subscriptions" className={`${card} mt-8 p-5 sm:p-6`}>
          {/* Focusable: on a phone the table scrolls sideways, and keyboard users scroll it with the arrow keys. */}
          <div className={`overflow-x-auto rounded-sm ${focusRing}`} tabIndex={0}>
            <table className="w-full text-left text-sm" data-testid="subscription-metrics">
              <thead className="text-slate-600">
                <tr>
                  <th scope="col" className="py-2 pr-4 font-medium">
                    Currency
                  </th>
                  <th scope="col" className="py-2 pr-4 font-medium">
                    MRR
                  </th>
                  <th scope="col" className="py-2 pr-4 font-medium">
                    Subscribers
                  </th>
                  <th scope="col" className="py-2 pr-4 font-medium">
                    In free trial
                  </th>
                  <th scope="col" className="py-2 pr-4 font-medium">
                    Ended, last 30 days
                  </th>
                  <th scope="col" className="py-2 font-medium">
                    Renewals, next 30 days
                  </th>
                </tr>
              </thead>
              <tbody className="text-slate-900">
                {subscriptions.map((m) => (
                  <tr key={m.currency} className="border-t border-slate-200">
                    <th scope="row" className="py-2 pr-4 font-medium uppercase">
                      {m.currency}
                    </th>
                    <td className="py-2 pr-4">{m.mrr_display}</td>
                    <td className="py-2 pr-4">{m.active}</td>
                    <td className="py-2 pr-4">{m.trialing}</td>
                    <td className="py-2 pr-4">
                      {m.churned_30d}
                      {m.churn_rate !== null ? ` (${(m.churn_rate * 100).toFixed(1)} % churn)` : ""}
                    </td>
                    <td className="py-2">
                      {m.upcoming_30d.count} · {m.upcoming_30d.amount_display}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Section>
      ) : null}
      {links.length > 0 ? (
        <Section
          id="checkout-links-heading"
          title="Checkout links"
          description="Per link: visits of its page, checkouts opened, paid orders, and what they charged before tax (refunds not taken off)."
          className={`${card} mt-8 p-5 sm:p-6`}
        >
          {/* Focusable: on a phone the table scrolls sideways, and keyboard users scroll it with the arrow keys. */}
          <div className={`overflow-x-auto rounded-sm ${focusRing}`} tabIndex={0}>
            <table className="w-full text-left text-sm" data-testid="checkout-link-sales">
              <thead className="text-slate-600">
                <tr>
                  <th scope="col" className="py-2 pr-4 font-medium">
                    Link
                  </th>
                  <th scope="col" className="py-2 pr-4 font-medium">
                    Product
                  </th>
                  <th scope="col" className="py-2 pr-4 text-right font-medium">
                    Visits
                  </th>
                  <th scope="col" className="py-2 pr-4 text-right font-medium">
                    Checkouts
                  </th>
                  <th scope="col" className="py-2 pr-4 text-right font-medium">
                    Sales
                  </th>
                  <th scope="col" className="py-2 text-right font-medium">
                    Revenue
                  </th>
                </tr>
              </thead>
              <tbody className="text-slate-900">
                {links.map((l) => (
                  <tr key={l.id} className="border-t border-slate-200" data-testid={`link-sales-${l.slug}`}>
                    <th scope="row" className="py-2 pr-4 font-medium">
                      {l.name} <span className="font-mono text-xs font-normal text-slate-600">/{l.slug}</span>
                    </th>
                    <td className="py-2 pr-4">{l.product_name}</td>
                    <td className="py-2 pr-4 text-right tabular-nums">{l.visits}</td>
                    <td className="py-2 pr-4 text-right tabular-nums">{l.checkouts}</td>
                    <td className="py-2 pr-4 text-right tabular-nums">{l.sales}</td>
                    <td className="py-2 text-right tabular-nums">{l.revenue_display}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Section>
      ) : null}
      <Section id="chart-heading" title="Net revenue, last 30 days" className={`${card} mt-8 p-5 sm:p-6`}>
        <RevenueCharts currencies={sales.currencies} id="sales-revenue" />
      </Section>
      <Section
        id="orders-heading"
        title="Orders"
        className="mt-10"
        description={
          sales.orders.length < sales.totals.orders
            ? `The latest ${sales.orders.length} of ${sales.totals.orders} orders, newest first.`
            : "Newest first. Times in UTC."
        }
      >
        {sales.orders.length > 0 ? (
          <OrdersTable orders={sales.orders} />
        ) : (
          <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
            <p className="text-base font-medium text-slate-900">No orders yet.</p>
            <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">
              Paid orders appear here at once, whether a person bought in the store or an agent bought over the API.
            </p>
          </div>
        )}
      </Section>
    </>
  );
}
