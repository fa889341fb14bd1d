import type { Metadata } from "next";
import Link from "next/link";
import { listSellers } from "@/lib/admin/sellers";
import { adminMetadata, requireAdmin } from "@/lib/admin/session";
import { formatDay, param } from "@/components/dashboard/format";
import { PageHeader } from "@/components/dashboard/page-header";
import { None, td } from "@/components/dashboard/table";
import { textLink } from "@/components/ui/styles";
import { reinstateSellerAction, suspendSellerAction } from "../actions";
import { AdminNotice, AdminTable, Badge, FilterSelect, MeasureForms, SearchForm, type SearchParams } from "../_ui";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("Sellers");

const STANDINGS = [
  ["", "All sellers"],
  ["active", "In good standing"],
  ["suspended", "Suspended"],
] as const;

export default async function AdminSellersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requireAdmin();
  const query = await searchParams;
  const q = param(query.q).slice(0, 200);
  const standing = param(query.standing);
  const sellers = await listSellers({
    q: q || undefined,
    standing: standing === "active" || standing === "suspended" ? standing : undefined,
    limit: 100,
  });
  return (
    <>
      <AdminNotice searchParams={query} />
      <PageHeader
        title="Sellers"
        description="Suspending a seller hides their listed products from the store, the catalog API and agents and stops them publishing; licenses they sold keep working. Reinstating lists again exactly what the suspension hid."
      />
      <div className="mt-6">
        <SearchForm label="Search sellers" q={q} placeholder="Name, e-mail address or id">
          <FilterSelect name="standing" label="Standing" value={standing} options={STANDINGS} />
        </SearchForm>
      </div>
      <div className="mt-6">
        <AdminTable
          label="Sellers"
          caption="Sellers, newest first, with their products and standing"
          minWidth="sm:min-w-[56rem]"
          rows={sellers.length}
          empty="No seller matches."
          columns={["Seller", "Joined", "Products", "Payouts", "Standing", { name: "Actions", hidden: true }]}
        >
          {sellers.map((s) => (
            <tr key={s.id} className="align-top">
              <td data-label="Seller" className={td}>
                <p className="font-semibold text-slate-900">{s.name}</p>
                <p className="text-xs text-slate-600">{s.email}</p>
              </td>
              <td data-label="Joined" className={`${td} whitespace-nowrap`}>
                {formatDay(s.created_at)}
              </td>
              <td data-label="Products" className={td}>
                <Link href={`/admin/products?seller=${encodeURIComponent(s.id)}`} className={textLink}>
                  {Object.values(s.products).reduce((a, b) => a + b, 0)} products
                </Link>
                <p className="text-xs text-slate-600">
                  {Object.entries(s.products)
                    .map(([status, n]) => `${String(n)} ${status}`)
                    .join(", ") || "none yet"}
                </p>
              </td>
              <td data-label="Payouts" className={td}>
                {s.payout_ready ? <Badge tone="green">Ready</Badge> : <None label="not ready" />}
              </td>
              <td data-label="Standing" className={td}>
                {s.suspended_at ? (
                  <>
                    <Badge tone="red">Suspended</Badge>
                    <p className="mt-1 text-xs text-slate-600">
                      {formatDay(s.suspended_at)}: {s.suspended_reason}
                    </p>
                  </>
                ) : (
                  <Badge tone="green">Good standing</Badge>
                )}
              </td>
              <td className={td}>
                <MeasureForms
                  id={s.id}
                  inForce={Boolean(s.suspended_at)}
                  take={{ action: suspendSellerAction, summary: "Suspend", submit: "Suspend seller" }}
                  undo={{ action: reinstateSellerAction, summary: "Reinstate", submit: "Reinstate seller" }}
                />
              </td>
            </tr>
          ))}
        </AdminTable>
      </div>
    </>
  );
}
