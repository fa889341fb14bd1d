import type { Metadata } from "next";
import Link from "next/link";
import { searchOrders } from "@/lib/admin/orders";
import { adminMetadata, requireAdmin } from "@/lib/admin/session";
import { formatPrice } from "@/lib/pricing";
import { formatMoment, param } from "@/components/dashboard/format";
import { PageHeader } from "@/components/dashboard/page-header";
import { td, tdNum } from "@/components/dashboard/table";
import { textLink } from "@/components/ui/styles";
import { AdminNotice, AdminTable, Badge, FilterSelect, SearchForm, type SearchParams } from "../_ui";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("Orders");

const STATUSES = [
  ["", "Any status"],
  ["paid", "Paid"],
  ["open", "Open"],
  ["expired", "Expired"],
  ["cancelled", "Cancelled"],
  ["failed", "Failed"],
] as const;

export default async function AdminOrdersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requireAdmin();
  const query = await searchParams;
  const q = param(query.q).slice(0, 200);
  const status = param(query.status);
  const known = STATUSES.find(([v]) => v === status && v !== "")?.[0];
  const orders = await searchOrders({ q: q || undefined, status: known || undefined, limit: 100 });
  return (
    <>
      <AdminNotice searchParams={query} />
      <PageHeader
        title="Orders"
        description="Every seller's orders. Open one to see its license, refunds, ledger entries and payment events, and to refund it."
      />
      <div className="mt-6">
        <SearchForm label="Search orders" q={q} placeholder="Order id, buyer e-mail, product, seller or payment id">
          <FilterSelect name="status" label="Status" value={status} options={STATUSES} />
        </SearchForm>
      </div>
      <div className="mt-6">
        <AdminTable
          label="Orders"
          caption="Orders, newest first"
          minWidth="sm:min-w-[64rem]"
          rows={orders.length}
          empty="No order matches."
          columns={["Order", "Buyer", "Product and seller", { name: "Paid", numeric: true }, { name: "Refunded", numeric: true }, "Status"]}
        >
          {orders.map((o) => (
            <tr key={o.id} className="align-top">
              <td data-label="Order" className={td}>
                <Link href={`/admin/orders/${encodeURIComponent(o.id)}`} className={`${textLink} font-mono text-xs`}>
                  {o.id}
                </Link>
                <p className="text-xs text-slate-600">{formatMoment(o.created_at)}</p>
              </td>
              <td data-label="Buyer" className={td}>
                {o.buyer_email}
              </td>
              <td data-label="Product and seller" className={td}>
                <p>
                  {o.product.name}
                  {o.quantity > 1 ? ` × ${String(o.quantity)}` : ""}
                </p>
                <p className="text-xs text-slate-600">{o.seller.name}</p>
              </td>
              <td data-label="Paid" className={tdNum}>
                {formatPrice(o.amount_cents + (o.tax_cents ?? 0), o.currency)}
              </td>
              <td data-label="Refunded" className={tdNum}>
                {o.refunded_cents ? formatPrice(o.refunded_cents, o.currency) : "—"}
              </td>
              <td data-label="Status" className={td}>
                <Badge tone={o.status === "paid" ? "green" : "slate"}>{o.status}</Badge>
                {o.dispute_status ? (
                  <span className="ml-1">
                    <Badge tone="amber">dispute {o.dispute_status}</Badge>
                  </span>
                ) : null}
              </td>
            </tr>
          ))}
        </AdminTable>
      </div>
    </>
  );
}
