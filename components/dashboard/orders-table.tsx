import Link from "next/link";
import { focusRing } from "@/components/ui/styles";
import { formatMoment } from "./format";
import { None, ScrollTable, td, tdNum, th, thNum } from "./table";

export interface OrderRow {
  id: string;
  paid_at: string;
  product_id: string;
  product_name: string;
  buyer_email: string;
  agent_id: string | null;
  quantity: number;
  coupon_code: string | null;
  discount_cents: number;
  refunds_cents: number;
  tax_cents: number | null;
  amount_display: string;
  discount_display: string;
  fee_display: string;
  tax_display: string;
  refunds_display: string;
  net_display: string;
  order_path: string;
}

const link = `rounded-sm hover:text-indigo-700 hover:underline ${focusRing}`;

/**
 * Paid orders, each in its own currency: gross (list price × quantity), the coupon's discount, the platform fee,
 * refunds, what the seller keeps, and the tax collected on top (not part of net). The date opens the order.
 */
export function OrdersTable({ orders, label = "Orders" }: { orders: OrderRow[]; label?: string }) {
  return (
    <ScrollTable label={label} minWidth="sm:min-w-[64rem]">
      <caption className="sr-only">
        {label}: date, product, buyer, quantity, gross, discount, platform fee, refunds, net, tax collected and the AI agent that placed the order
      </caption>
      <thead>
        <tr>
          <th scope="col" className={th}>
            Date
          </th>
          <th scope="col" className={th}>
            Product
          </th>
          <th scope="col" className={th}>
            Buyer
          </th>
          <th scope="col" className={thNum}>
            Qty
          </th>
          <th scope="col" className={thNum}>
            Gross
          </th>
          <th scope="col" className={thNum}>
            Discount
          </th>
          <th scope="col" className={thNum}>
            Fee
          </th>
          <th scope="col" className={thNum}>
            Refunds
          </th>
          <th scope="col" className={thNum}>
            Net
          </th>
          <th scope="col" className={thNum}>
            Tax
          </th>
          <th scope="col" className={th}>
            Agent
          </th>
        </tr>
      </thead>
      <tbody>
        {orders.map((o) => (
          <tr key={o.id} className="hover:bg-slate-50">
            <td data-label="Date" className={`${td} whitespace-nowrap text-slate-700`}>
              <Link href={o.order_path} className={link} title="Open this order">
                <time dateTime={o.paid_at}>{formatMoment(o.paid_at)}</time>
              </Link>
            </td>
            <td data-label="Product" className={td}>
              <Link
                href={`/dashboard/products/${encodeURIComponent(o.product_id)}`}
                className={`rounded-sm font-medium text-slate-900 hover:text-indigo-700 hover:underline ${focusRing}`}
              >
                {o.product_name}
              </Link>
            </td>
            <td data-label="Buyer" className={`${td} break-all`}>
              <Link href={`/dashboard/licenses?q=${encodeURIComponent(o.buyer_email)}`} className={link} title="Find this buyer's licenses">
                {o.buyer_email}
              </Link>
            </td>
            <td data-label="Qty" className={tdNum}>
              {o.quantity}
            </td>
            <td data-label="Gross" className={`${tdNum} whitespace-nowrap`}>
              {o.amount_display}
            </td>
            <td data-label="Discount" className={`${tdNum} whitespace-nowrap text-slate-600`}>
              {o.discount_cents > 0 ? (
                <>
                  −{o.discount_display}
                  {o.coupon_code ? <span className="block font-mono text-xs">{o.coupon_code}</span> : null}
                </>
              ) : (
                <None label="no discount" />
              )}
            </td>
            <td data-label="Fee" className={`${tdNum} whitespace-nowrap text-slate-600`}>
              −{o.fee_display}
            </td>
            <td data-label="Refunds" className={`${tdNum} whitespace-nowrap text-slate-600`}>
              {o.refunds_cents !== 0 ? `−${o.refunds_display}` : <None label="no refunds" />}
            </td>
            <td data-label="Net" className={`${tdNum} whitespace-nowrap font-semibold text-slate-900`}>
              {o.net_display}
            </td>
            <td
              data-label="Tax"
              className={`${tdNum} whitespace-nowrap text-slate-600`}
              title="Tax collected on top of the price, not part of your earnings"
            >
              {o.tax_cents === null ? <span className="text-xs">not calculated</span> : o.tax_display}
            </td>
            <td data-label="Agent" className={td}>
              {o.agent_id ? (
                <code className="rounded bg-violet-50 px-1.5 py-0.5 font-mono text-xs text-violet-800 ring-1 ring-violet-200 ring-inset">
                  {o.agent_id}
                </code>
              ) : (
                <None label="no agent" />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}
