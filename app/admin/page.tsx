import type { Metadata } from "next";
import { adminOverview, type MonthFigures } from "@/lib/admin/overview";
import { adminMetadata, requireAdmin } from "@/lib/admin/session";
import { formatPrice } from "@/lib/pricing";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { StatCard, StatGrid } from "@/components/dashboard/stat-card";
import { ScrollTable, td, tdNum, th, thNum } from "@/components/dashboard/table";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("Overview");

const COLUMNS = [
  ["orders", "Sales"],
  ["gross", "Gross"],
  ["discounts", "Discounts"],
  ["fees", "Fees"],
  ["fee_refunds", "Fees refunded"],
  ["revenue", "Revenue"],
  ["refunds", "Refunds"],
  ["disputes", "Disputes"],
  ["tax", "Tax"],
] as const;

const monthLabel = (month: string) =>
  new Intl.DateTimeFormat("en-GB", { month: "short", year: "numeric", timeZone: "UTC" }).format(new Date(`${month}-01T00:00:00Z`));

function FigureCells({ f }: { f: Omit<MonthFigures, "month"> }) {
  return (
    <>
      {COLUMNS.map(([key, label]) => (
        <td key={key} data-label={label} className={tdNum}>
          {key === "orders" ? f.orders.toLocaleString("en-US") : formatPrice(f[key], f.currency)}
        </td>
      ))}
    </>
  );
}

function FigureHead({ first }: { first: string }) {
  return (
    <thead>
      <tr>
        <th scope="col" className={th}>
          {first}
        </th>
        {COLUMNS.map(([key, label]) => (
          <th key={key} scope="col" className={thNum}>
            {label}
          </th>
        ))}
      </tr>
    </thead>
  );
}

export default async function AdminOverviewPage() {
  await requireAdmin();
  const o = await adminOverview();
  const currencies = o.totals.map((t) => t.currency);
  const products = o.counts.products;
  return (
    <>
      <PageHeader
        title="Overview"
        description="The last 12 months, from the ledger alone: every figure is a sum of ledger entries, per currency (amounts in different currencies are never added). Revenue is the platform's fees less fees refunded."
      />
      <div className="mt-8">
        <StatGrid label="Marketplace counts">
          <StatCard label="Paid orders" value={o.counts.orders_paid.toLocaleString("en-US")} />
          <StatCard label="Sellers" value={o.counts.sellers.toLocaleString("en-US")} note={`${String(o.counts.sellers_suspended)} suspended`} />
          <StatCard label="Listed products" value={(products.active ?? 0).toLocaleString("en-US")} emphasis />
          <StatCard label="Unlisted by sellers" value={(products.unlisted ?? 0).toLocaleString("en-US")} />
          <StatCard
            label="Held by the operator"
            value={((products.removed ?? 0) + (products.suspended ?? 0)).toLocaleString("en-US")}
            note={`${String(products.removed ?? 0)} removed, ${String(products.suspended ?? 0)} of suspended sellers`}
          />
        </StatGrid>
      </div>

      <Section id="totals-heading" title="Last 12 months" className="mt-10">
        {currencies.length === 0 ? (
          <p className="text-sm text-slate-600">No money has moved in the last 12 months.</p>
        ) : (
          <ScrollTable label="Totals by currency" minWidth="sm:min-w-[60rem]">
            <caption className="sr-only">Totals for the last 12 months by currency</caption>
            <FigureHead first="Currency" />
            <tbody>
              {o.totals.map((t) => (
                <tr key={t.currency}>
                  <th scope="row" className={`${td} font-semibold`}>
                    {t.currency.toUpperCase()}
                  </th>
                  <FigureCells f={t} />
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        )}
      </Section>

      {currencies.map((c) => (
        <Section key={c} id={`months-${c}`} title={`By month, ${c.toUpperCase()}`} className="mt-10">
          <ScrollTable label={`Months in ${c.toUpperCase()}`} minWidth="sm:min-w-[60rem]">
            <caption className="sr-only">Figures by month in {c.toUpperCase()}</caption>
            <FigureHead first="Month" />
            <tbody>
              {o.months
                .filter((m) => m.currency === c)
                .map((m) => (
                  <tr key={m.month}>
                    <th scope="row" className={`${td} font-medium whitespace-nowrap`}>
                      {monthLabel(m.month)}
                    </th>
                    <FigureCells f={m} />
                  </tr>
                ))}
            </tbody>
          </ScrollTable>
        </Section>
      ))}
    </>
  );
}
