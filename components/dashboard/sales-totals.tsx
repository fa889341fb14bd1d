import type { SellerSales } from "@/lib/selling/sales";
import { PRICING } from "@/lib/pricing";
import { card } from "@/components/ui/styles";
import { StatCard } from "./stat-card";

type Currency = SellerSales["currencies"][number];

function Figure({ label, value, note, emphasis }: { label: string; value: string; note: string; emphasis?: boolean }) {
  return (
    <div className="min-w-0">
      <dt className="text-sm font-medium text-slate-600">{label}</dt>
      <dd className={`mt-1 text-lg font-semibold tabular-nums wrap-anywhere ${emphasis ? "text-indigo-700" : "text-slate-900"}`}>{value}</dd>
      <dd className="mt-0.5 text-xs text-slate-600">{note}</dd>
    </div>
  );
}

/**
 * One currency's figures, all from the ledger: gross at list price, less discounts, the platform fee, refunds and
 * disputes gives net. Tax is listed apart because it is collected for the tax authority, not earned.
 */
function CurrencyFigures({ c, detailed }: { c: Currency; detailed: boolean }) {
  const code = c.currency.toUpperCase();
  return (
    <section aria-label={`Sales in ${code}`} className={`${card} min-w-0 p-4 sm:p-5`}>
      {/* h2: the totals come straight after the page's h1 (overview and Sales), before any section of its own. */}
      <h2 className="text-sm font-semibold text-slate-900">
        In {code}{" "}
        <span className="font-normal text-slate-600">
          · {c.orders.toLocaleString("en-US")} {c.orders === 1 ? "order" : "orders"}
        </span>
      </h2>
      <dl className={`mt-3 grid grid-cols-2 gap-4 ${detailed ? "sm:grid-cols-3 lg:grid-cols-6" : "sm:grid-cols-4"}`}>
        <Figure label="Gross" value={c.display.gross} note="List price × quantity" />
        {detailed || c.discounts > 0 ? <Figure label="Discounts" value={c.display.discounts} note="Taken off by coupons" /> : null}
        <Figure label="Platform fee" value={c.display.fees} note={`${PRICING.transaction_fee_percent} % of what buyers paid`} />
        {detailed || c.refunds + c.disputes > 0 ? (
          <Figure
            label="Refunds and disputes"
            value={c.disputes > 0 ? `${c.display.refunds} + ${c.display.disputes}` : c.display.refunds}
            note={c.disputes > 0 ? "Refunded + lost to disputes" : "Given back to buyers"}
          />
        ) : null}
        <Figure label="Net" value={c.display.net} note="What you earn" emphasis />
        {detailed || c.tax !== 0 ? <Figure label="Tax" value={c.display.tax} note="Tax collected, not part of your earnings" /> : null}
      </dl>
    </section>
  );
}

/** The seller's totals: order counts, then each currency's figures on their own (amounts in two currencies are never added). */
export function SalesTotals({ sales, detailed = false }: { sales: Pick<SellerSales, "totals" | "currencies">; detailed?: boolean }) {
  const { totals } = sales;
  const agentShare = totals.orders > 0 ? Math.round((totals.agent_orders / totals.orders) * 100) : 0;
  return (
    <div className="space-y-4">
      <dl aria-label="Orders, all time" className="grid grid-cols-2 gap-3 sm:gap-4">
        <StatCard label="Orders" value={totals.orders.toLocaleString("en-US")} note="Paid, all time" />
        <StatCard
          label="By AI agents"
          value={totals.agent_orders.toLocaleString("en-US")}
          note={totals.orders > 0 ? `${agentShare}% of orders` : "Orders placed by agents"}
        />
      </dl>
      {sales.currencies.map((c) => (
        <CurrencyFigures key={c.currency} c={c} detailed={detailed} />
      ))}
    </div>
  );
}
