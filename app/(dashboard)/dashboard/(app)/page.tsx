import type { Metadata } from "next";
import Link from "next/link";
import { profileGaps } from "@/lib/selling/developer-profile";
import { listSellerProducts } from "@/lib/selling/products";
import { sellerSales } from "@/lib/selling/sales";
import { getPayoutAccount } from "@/lib/payouts/payout-account";
import { PRICING, SELLER_SHARE_PERCENT } from "@/lib/pricing";
import { NextSteps } from "@/components/dashboard/next-steps";
import { Notice } from "@/components/dashboard/notice";
import { OrdersTable } from "@/components/dashboard/orders-table";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { RevenueCharts } from "@/components/dashboard/revenue-chart";
import { SalesTotals } from "@/components/dashboard/sales-totals";
import { buttonPrimary, buttonSecondary, card, focusRing, textLink } from "@/components/ui/styles";
import { paths } from "@/lib/urls";
import { pageSeller } from "../../_lib/seller";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Seller dashboard", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function OverviewPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const [sales, products] = await Promise.all([sellerSales(developer.id), listSellerProducts(developer.id)]);
  const payout = await getPayoutAccount(developer.id);
  const listed = products.filter((p) => p.status === "active").length;
  const licenses = products.reduce((n, p) => n + p._count.licenses, 0);
  const recent = sales.orders.slice(0, 5);
  // Someone with no product yet has not been here to sell before: a welcome and the way to the first sale.
  const firstTime = products.length === 0;
  const steps = [
    {
      id: "support",
      title: "Add your refund policy and support contact",
      text: "Shown on your product pages; needed before a paid listing.",
      href: paths.profileSupport,
      done: profileGaps(developer).length === 0,
    },
    ...(payout.connect_with !== null
      ? [
          {
            id: "payouts",
            title: "Connect your payout account",
            text: "So the money from your sales reaches you.",
            href: "/dashboard/payouts",
            done: payout.ready,
          },
        ]
      : []),
    { id: "product", title: "Add your first product", text: "Listed at once for people and agents.", href: "/dashboard/products/new", done: false },
  ];
  const links = [
    { href: "/dashboard/products/new", title: "Add a product", text: "Icon, price, seats, trial — listed at once for people and agents." },
    { href: "/dashboard/licenses", title: "Find a license", text: "Search by key or buyer e-mail, release machines, revoke." },
    {
      href: "/dashboard/licenses#complimentary",
      title: "Give a free license",
      text: "For reviewers, giveaways and support, e-mailed like a purchase.",
    },
    { href: "/agents", title: "How agents buy", text: "Your products are in the MCP tools and the catalog API automatically." },
  ];

  return (
    <>
      <Notice searchParams={await searchParams} />
      <PageHeader
        title={firstTime ? `Welcome, ${developer.name}` : `Welcome back, ${developer.name}`}
        description={`You receive ${SELLER_SHARE_PERCENT} % of what each buyer pays (after any coupon, before tax); the platform keeps ${PRICING.transaction_fee_percent} % and pays Stripe's processing fee from it. No monthly fee.`}
        actions={
          <>
            <Link href="/dashboard/products/new" className={buttonPrimary}>
              New product
            </Link>
            <Link href="/dashboard/sales" className={buttonSecondary}>
              All sales
            </Link>
          </>
        }
      />

      {firstTime ? <NextSteps steps={steps} /> : null}

      {!payout.ready && payout.connect_with !== null ? (
        <div
          id="payout-cta"
          className="mt-6 flex flex-wrap items-center justify-between gap-3 rounded-xl border border-amber-200 bg-amber-50 px-4 py-3"
        >
          <p className="text-sm text-amber-900">
            {payout.status === "not_connected"
              ? "Connect your payout account to publish paid listings and get paid."
              : "Your payout account needs attention before paid listings can be published or sold."}
          </p>
          <Link href="/dashboard/payouts" className={buttonSecondary}>
            {payout.status === "not_connected" ? "Connect payout account" : "See what is needed"}
          </Link>
        </div>
      ) : null}

      <div className="mt-8">
        <SalesTotals sales={sales} />
      </div>

      <div className="mt-8 grid gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)] lg:items-start">
        <Section id="chart-heading" title="Net revenue, last 30 days" className={`${card} p-5 sm:p-6`}>
          <RevenueCharts currencies={sales.currencies} id="overview-revenue" />
        </Section>
        <Section id="catalogue-heading" title="Your catalogue" className={`${card} p-5 sm:p-6`}>
          <dl className="grid grid-cols-3 gap-3 text-center">
            <div className="rounded-xl bg-slate-50 p-3">
              <dt className="text-xs font-medium text-slate-600">Products</dt>
              <dd className="mt-1 text-2xl font-semibold text-slate-900 tabular-nums">{products.length}</dd>
            </div>
            <div className="rounded-xl bg-slate-50 p-3">
              <dt className="text-xs font-medium text-slate-600">Listed</dt>
              <dd className="mt-1 text-2xl font-semibold text-slate-900 tabular-nums">{listed}</dd>
            </div>
            <div className="rounded-xl bg-slate-50 p-3">
              <dt className="text-xs font-medium text-slate-600">Licenses</dt>
              <dd className="mt-1 text-2xl font-semibold text-slate-900 tabular-nums">{licenses}</dd>
            </div>
          </dl>
          <h3 className="sr-only">Quick links</h3>
          <ul className="mt-5 space-y-2">
            {links.map((l) => (
              <li key={l.href}>
                <Link
                  href={l.href}
                  className={`group block rounded-xl border border-slate-200 p-3 hover:border-indigo-300 hover:bg-indigo-50/50 ${focusRing}`}
                >
                  <span className="text-sm font-semibold text-slate-900 group-hover:text-indigo-700">
                    {l.title} <span aria-hidden="true">→</span>
                  </span>
                  <span className="mt-0.5 block text-sm text-slate-600">{l.text}</span>
                </Link>
              </li>
            ))}
          </ul>
        </Section>
      </div>

      <Section
        id="recent-heading"
        title="Recent orders"
        className="mt-10"
        actions={
          sales.orders.length > recent.length ? (
            <Link href="/dashboard/sales" className={textLink}>
              See all {sales.totals.orders} orders
            </Link>
          ) : undefined
        }
      >
        {recent.length > 0 ? <OrdersTable orders={recent} label="Recent orders" /> : <EmptyOrders hasProducts={products.length > 0} />}
      </Section>
    </>
  );
}

function EmptyOrders({ hasProducts }: { hasProducts: boolean }) {
  return (
    <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
      <p className="text-base font-medium text-slate-900">No orders yet.</p>
      <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">
        {hasProducts
          ? "Orders appear here the moment they are paid, with the fee and what you keep — including those placed by AI agents."
          : "Add your first product; it is listed in the store, the catalog API and the MCP tools as soon as you save it."}
      </p>
      {!hasProducts ? (
        <Link href="/dashboard/products/new" className={`${buttonPrimary} mt-6`}>
          Add a product
        </Link>
      ) : null}
    </div>
  );
}
