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
  amount_display: string;
  fee_display: string;
  net_display: string;
}

/** Paid orders with the platform fee and what the seller keeps. */
export function OrdersTable({ orders, label = "Orders" }: { orders: OrderRow[]; label?: string }) {
  return (
    <ScrollTable label={label} minWidth="min-w-[52rem]">
      <caption className="sr-only">{label}: date, product, buyer, amount, platform fee, net and the AI agent that placed the order</caption>
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
            Amount
          </th>
          <th scope="col" className={thNum}>
            Fee
          </th>
          <th scope="col" className={thNum}>
            Net
          </th>
          <th scope="col" className={th}>
            Agent
          </th>
        </tr>
      </thead>
      <tbody>
        {orders.map((o) => (
          <tr key={o.id} className="hover:bg-slate-50">
            <td className={`${td} whitespace-nowrap text-slate-700`}>
              <time dateTime={o.paid_at}>{formatMoment(o.paid_at)}</time>
            </td>
            <td className={td}>
              <Link
                href={`/dashboard/products/${encodeURIComponent(o.product_id)}`}
                className={`rounded-sm font-medium text-slate-900 hover:text-indigo-700 hover:underline ${focusRing}`}
              >
                {o.product_name}
              </Link>
            </td>
            <td className={`${td} break-all`}>
              <Link
                href={`/dashboard/licenses?q=${encodeURIComponent(o.buyer_email)}`}
                className={`rounded-sm hover:text-indigo-700 hover:underline ${focusRing}`}
                title="Find this buyer's licenses"
              >
                {o.buyer_email}
              </Link>
            </td>
            <td className={tdNum}>{o.amount_display}</td>
            <td className={`${tdNum} text-slate-600`}>−{o.fee_display}</td>
            <td className={`${tdNum} font-semibold text-slate-900`}>{o.net_display}</td>
            <td className={td}>
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
