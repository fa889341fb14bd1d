import type { OrderCharges } from "@/lib/pricing";
import { plural } from "./labels";

/**
 * An order's charges, each amount with its currency code: quantity and seats, subtotal, the coupon's discount, tax
 * ("not calculated" when the payment provider did not calculate any) and the total. Used by the checkout and
 * success pages and My licenses, so they all say the same.
 */
export function OrderChargesList({ charges, seats, className = "" }: { charges: OrderCharges; seats: number; className?: string }) {
  const row = "flex items-baseline justify-between gap-4 py-2.5";
  return (
    <dl className={`divide-y divide-slate-200 text-sm ${className}`} data-testid="order-charges">
      <div className={row}>
        <dt className="text-slate-600">Quantity</dt>
        <dd className="text-right text-slate-900">
          {charges.quantity} × {charges.unit}
        </dd>
      </div>
      <div className={row}>
        <dt className="text-slate-600">Seats</dt>
        <dd className="text-right text-slate-900">Up to {plural(seats, "machine")}</dd>
      </div>
      <div className={row}>
        <dt className="text-slate-600">Subtotal</dt>
        <dd className="text-right whitespace-nowrap text-slate-900 tabular-nums">{charges.subtotal}</dd>
      </div>
      {charges.discount ? (
        <div className={row}>
          <dt className="text-slate-600">
            Discount{charges.couponCode ? <span className="ml-1 font-mono text-xs text-slate-700">({charges.couponCode})</span> : null}
          </dt>
          <dd className="text-right whitespace-nowrap text-emerald-700 tabular-nums">−{charges.discount}</dd>
        </div>
      ) : null}
      <div className={row}>
        <dt className="text-slate-600">Tax</dt>
        <dd className={`text-right whitespace-nowrap tabular-nums ${charges.taxCalculated ? "text-slate-900" : "text-slate-600"}`}>{charges.tax}</dd>
      </div>
      <div className={row}>
        <dt className="text-base font-semibold text-slate-900">Total</dt>
        <dd className="text-right text-xl font-semibold whitespace-nowrap text-slate-900 tabular-nums">{charges.total}</dd>
      </div>
      {charges.refunded ? (
        <div className={row}>
          <dt className="text-slate-600">Refunded</dt>
          <dd className="text-right whitespace-nowrap text-slate-900 tabular-nums">{charges.refunded}</dd>
        </div>
      ) : null}
    </dl>
  );
}
