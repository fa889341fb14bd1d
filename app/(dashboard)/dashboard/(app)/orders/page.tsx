import type { Metadata } from "next";
import Link from "next/link";
import { formatDay, param } from "@/components/dashboard/format";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { ScrollTable, td, tdNum, th, thNum } from "@/components/dashboard/table";
import { buttonPrimary, buttonSecondary, focusRing, inputBase } from "@/components/ui/styles";
import { formatPrice } from "@/lib/pricing";
import { listOrders } from "@/lib/refunds/orders";
import { ORDER_STATUSES, ordersQuerySchema } from "@/lib/refunds/schemas";
import { pageSeller } from "../../../_lib/seller";
import { DisputeBadge, OrderStatusBadge } from "./badges";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Orders", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const STATUS_LABELS: Record<string, string> = {
  paid: "Paid",
  open: "Awaiting payment",
  expired: "Expired",
  cancelled: "Cancelled",
  failed: "Failed",
};
const orderHref = (id: string) => `/dashboard/orders/${encodeURIComponent(id)}`;

export default async function OrdersPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const query = await searchParams;
  // A hand-edited address (bad page, control characters) shows the first page of everything rather than an error.
  const parsed = ordersQuerySchema.safeParse({
    q: param(query.q) || undefined,
    status: param(query.status) || undefined,
    page: param(query.page) || undefined,
  });
  const q = parsed.success ? parsed.data : ordersQuerySchema.parse({});
  const { orders, total, page, page_size } = await listOrders(developer.id, q);
  const pages = Math.max(1, Math.ceil(total / page_size));
  const link = (p: number) =>
    `/dashboard/orders?${new URLSearchParams({ ...(q.q ? { q: q.q } : {}), ...(q.status ? { status: q.status } : {}), page: String(p) }).toString()}`;
  const filtered = Boolean(q.q ?? q.status);
  const summary =
    total === 0 ? "" : `${total} ${total === 1 ? "order" : "orders"}${filtered ? " match" : ""}, newest first. Page ${page} of ${pages}.`;

  return (
    <>
      <PageHeader
        title="Orders"
        description="Every checkout for your products. Open an order to see its charges, its license and any dispute, and to refund it in full or in part."
      />

      <form method="get" action="/dashboard/orders" role="search" className="mt-8 flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex-1">
          <label htmlFor="order-search" className="block text-sm font-medium text-slate-900">
            Search by buyer e-mail, order id or product
          </label>
          <input
            id="order-search"
            type="search"
            name="q"
            defaultValue={q.q ?? ""}
            maxLength={200}
            autoComplete="off"
            spellCheck={false}
            className={`${inputBase} mt-1.5`}
          />
        </div>
        <div>
          <label htmlFor="order-status" className="block text-sm font-medium text-slate-900">
            Status
          </label>
          <select id="order-status" name="status" defaultValue={q.status ?? ""} className={`${inputBase} mt-1.5`}>
            <option value="">Any</option>
            {ORDER_STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="flex gap-2">
          <button type="submit" className={buttonPrimary}>
            Search
          </button>
          {filtered ? (
            <Link href="/dashboard/orders" className={buttonSecondary}>
              Clear
            </Link>
          ) : null}
        </div>
      </form>

      <Section id="orders-heading" title={filtered ? "Matching orders" : "All orders"} description={summary} className="mt-8">
        {orders.length === 0 ? (
          <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
            <p className="text-base font-medium text-slate-900">{filtered ? "No order matches." : "No orders yet."}</p>
            <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">
              {filtered
                ? "Try part of the buyer's e-mail address, the whole order id, or a word of the product's name."
                : "Orders appear here as soon as a buyer starts a checkout."}
            </p>
          </div>
        ) : (
          <>
            <ScrollTable label="Orders" minWidth="sm:min-w-[62rem]">
              <caption className="sr-only">Orders with date, product, buyer, status, amount and refunds</caption>
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
                  <th scope="col" className={th}>
                    Status
                  </th>
                  <th scope="col" className={thNum}>
                    Amount
                  </th>
                  <th scope="col" className={thNum}>
                    Refunded
                  </th>
                  <th scope="col" className={th}>
                    <span className="sr-only">Details</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {orders.map((o) => (
                  <tr key={o.id} className="hover:bg-slate-50">
                    <td data-label="Date" className={`${td} whitespace-nowrap text-slate-700`}>
                      <time dateTime={o.created_at}>{formatDay(o.created_at)}</time>
                    </td>
                    <td data-label="Product" className={td}>
                      {o.product.name}
                      {o.quantity > 1 ? <span className="text-slate-500"> × {o.quantity}</span> : null}
                    </td>
                    <td data-label="Buyer" className={`${td} break-all`}>
                      {o.buyer_email}
                    </td>
                    <td data-label="Status" className={td}>
                      <span className="flex flex-wrap gap-1.5">
                        <OrderStatusBadge status={o.status} refunded={o.refunded_cents} total={o.total_cents} />
                        <DisputeBadge status={o.dispute_status} />
                      </span>
                    </td>
                    <td data-label="Amount" className={tdNum}>
                      {formatPrice(o.total_cents, o.currency)}
                    </td>
                    <td data-label="Refunded" className={tdNum}>
                      {o.refunded_cents > 0 ? formatPrice(o.refunded_cents, o.currency) : <span className="text-slate-500">—</span>}
                    </td>
                    <td className={`${td} text-right`}>
                      <Link
                        href={orderHref(o.id)}
                        className={`inline-flex rounded-md px-2.5 py-1.5 text-sm font-medium whitespace-nowrap text-indigo-700 hover:bg-indigo-50 ${focusRing}`}
                      >
                        Open<span className="sr-only"> order {o.id}</span>
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </ScrollTable>
            {pages > 1 ? (
              <nav aria-label="Pages" className="mt-4 flex items-center justify-between text-sm">
                {page > 1 ? (
                  <Link href={link(page - 1)} className={buttonSecondary}>
                    Newer
                  </Link>
                ) : (
                  <span />
                )}
                {page < pages ? (
                  <Link href={link(page + 1)} className={buttonSecondary}>
                    Older
                  </Link>
                ) : null}
              </nav>
            ) : null}
          </>
        )}
      </Section>
    </>
  );
}
