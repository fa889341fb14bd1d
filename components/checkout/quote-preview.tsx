import { formatPrice } from "@/lib/pricing";

export interface Quote {
  currency: string;
  quantity: number;
  subtotal_cents: number;
  discount_cents: number;
  amount_cents: number;
  max_machines: number;
  coupon_code: string | null;
  tax: "calculated_at_checkout" | "not_calculated";
  interval: "month" | "year" | null;
  trial_days: number;
  /** A bundle: how much is taken off for the included products the buyer already holds. */
  bundle?: { prorated: boolean; reduction_cents: number; items: Array<{ name: string; held: boolean }> };
}

/**
 * The price a quote from POST /api/checkout/quote works out to. Loaded by BuyOptions only once a buyer types a coupon
 * or a seat count: a product page's first load does not carry it (or the price formatter) to the phone.
 */
export function QuotePreview({ quote }: { quote: Quote }) {
  return (
    <dl className="space-y-1 rounded-lg bg-slate-50 px-3.5 py-3 text-slate-700">
      <div className="flex justify-between gap-3">
        <dt>{quote.quantity > 1 ? `${quote.quantity} seats` : "Price"}</dt>
        {/* A prorated bundle's subtotal is already reduced: the full price shows here, the reduction below. */}
        <dd>{formatPrice(quote.subtotal_cents + (quote.bundle?.reduction_cents ?? 0), quote.currency)}</dd>
      </div>
      {quote.bundle && quote.bundle.reduction_cents > 0 ? (
        <div className="flex justify-between gap-3">
          <dt>
            Already yours:{" "}
            {quote.bundle.items
              .filter((i) => i.held)
              .map((i) => i.name)
              .join(", ")}
          </dt>
          <dd>−{formatPrice(quote.bundle.reduction_cents, quote.currency)}</dd>
        </div>
      ) : null}
      {quote.discount_cents > 0 ? (
        <div className="flex justify-between gap-3">
          <dt>Coupon {quote.coupon_code}</dt>
          <dd>−{formatPrice(quote.discount_cents, quote.currency)}</dd>
        </div>
      ) : null}
      <div className="flex justify-between gap-3 font-semibold text-slate-900">
        <dt>{quote.interval ? (quote.trial_days > 0 ? "After the free trial" : "You pay now") : "You pay"}</dt>
        <dd>
          {formatPrice(quote.amount_cents, quote.currency)}
          {quote.interval ? ` a ${quote.interval}` : ""}
        </dd>
      </div>
      {quote.interval && quote.trial_days > 0 ? (
        <p className="text-xs text-slate-600">Nothing is charged today: the first charge is in {quote.trial_days} days, unless you cancel before.</p>
      ) : null}
      <p className="text-xs text-slate-600">
        {quote.tax === "calculated_at_checkout" ? "Plus tax where it applies, calculated at checkout." : "Tax is not calculated."}
      </p>
    </dl>
  );
}
