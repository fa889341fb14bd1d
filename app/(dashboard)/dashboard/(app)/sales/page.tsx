import type { Metadata } from "next";
import Link from "next/link";
import { sellerSales } from "@/lib/selling/sales";
import { PRICING } from "@/lib/pricing";
import { OrdersTable } from "@/components/dashboard/orders-table";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { RevenueCharts } from "@/components/dashboard/revenue-chart";
import { SalesTotals } from "@/components/dashboard/sales-totals";
import { buttonSecondary, card, textLink } from "@/components/ui/styles";
import { paths } from "@/lib/urls";
import { pageSeller } from "../../../_lib/seller";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sales", robots: { index: false } };

export default async function SalesPage() {
  const { developer } = await pageSeller();
  const sales = await sellerSales(developer.id);
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
