import type { Metadata } from "next";
import { listProducts } from "@/lib/admin/products";
import { adminMetadata, requireAdmin } from "@/lib/admin/session";
import { OPERATOR_PRODUCT_STATUSES, PRODUCT_STATUSES } from "@/lib/marketplace/constants";
import { formatPrice } from "@/lib/pricing";
import { param } from "@/components/dashboard/format";
import { PageHeader } from "@/components/dashboard/page-header";
import { td, tdNum } from "@/components/dashboard/table";
import { buttonSecondary, textLink } from "@/components/ui/styles";
import { featureProductAction, removeProductAction, restoreProductAction, unfeatureProductAction } from "../actions";
import { AdminNotice, AdminTable, Badge, FilterSelect, MeasureForms, ProductBadge, SearchForm, type SearchParams } from "../_ui";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("Products");

const STATUSES = [["", "Any status"], ...[...PRODUCT_STATUSES, ...OPERATOR_PRODUCT_STATUSES].map((s) => [s, s] as const)] as const;
const isStatus = (s: string) => (STATUSES as readonly (readonly [string, string])[]).some(([v]) => v === s && v !== "");
const isId = (s: string) => /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/.test(s);

export default async function AdminProductsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requireAdmin();
  const query = await searchParams;
  const q = param(query.q).slice(0, 200);
  const status = param(query.status);
  const seller = param(query.seller);
  const products = await listProducts({
    q: q || undefined,
    status: isStatus(status) ? status : undefined,
    seller_id: isId(seller) ? seller : undefined,
    limit: 100,
  });
  return (
    <>
      <AdminNotice searchParams={query} />
      <PageHeader
        title="Products"
        description="Featuring a listed product puts it in the home page's Featured row, newest featured first. Removing a listing hides it everywhere with a reason its seller sees; they cannot relist it. Restoring puts it back as it was, as far as the publishing rules allow now."
      />
      <div className="mt-6">
        <SearchForm label="Search products" q={q} placeholder="Name, words, id, plugin id or seller's e-mail">
          <FilterSelect name="status" label="Status" value={status} options={STATUSES} />
          {isId(seller) ? <input type="hidden" name="seller" value={seller} /> : null}
        </SearchForm>
      </div>
      <div className="mt-6">
        <AdminTable
          label="Products"
          caption="Products of every seller and status, newest first"
          minWidth="sm:min-w-[60rem]"
          rows={products.length}
          empty="No product matches."
          columns={[
            "Product",
            "Seller",
            "Status",
            { name: "Price", numeric: true },
            { name: "Sales", numeric: true },
            { name: "Actions", hidden: true },
          ]}
        >
          {products.map((p) => (
            <tr key={p.id} className="align-top">
              <td data-label="Product" className={td}>
                {p.status === "active" ? (
                  <a href={`/products/${encodeURIComponent(p.id)}`} className={textLink}>
                    {p.name}
                  </a>
                ) : (
                  <span className="font-medium text-slate-900">{p.name}</span>
                )}
                <p className="text-xs text-slate-600">{p.plugin_id}</p>
              </td>
              <td data-label="Seller" className={td}>
                <p>{p.seller.name}</p>
                <p className="text-xs text-slate-600">
                  {p.seller.email}
                  {p.seller.suspended ? " · suspended" : ""}
                </p>
              </td>
              <td data-label="Status" className={td}>
                <ProductBadge status={p.status} />
                {p.featured_at ? (
                  <span className="ml-1.5">
                    <Badge tone="green">Featured</Badge>
                  </span>
                ) : null}
                {p.moderation_reason ? <p className="mt-1 max-w-xs text-xs text-slate-600">{p.moderation_reason}</p> : null}
              </td>
              <td data-label="Price" className={tdNum}>
                {formatPrice(p.price_cents, p.currency)}
              </td>
              <td data-label="Sales" className={tdNum}>
                {p.sales_count.toLocaleString("en-US")}
              </td>
              <td className={`${td} space-y-2`}>
                {p.featured_at || p.status === "active" ? (
                  <form action={p.featured_at ? unfeatureProductAction : featureProductAction}>
                    <input type="hidden" name="id" value={p.id} />
                    <button type="submit" className={`${buttonSecondary} px-2.5 py-1.5`}>
                      {p.featured_at ? "Unfeature" : "Feature"}
                      <span className="sr-only"> {p.name}</span>
                    </button>
                  </form>
                ) : null}
                <MeasureForms
                  id={p.id}
                  inForce={p.status === "removed"}
                  take={{ action: removeProductAction, summary: "Remove", submit: "Remove listing" }}
                  undo={{ action: restoreProductAction, summary: "Restore", submit: "Restore listing" }}
                />
              </td>
            </tr>
          ))}
        </AdminTable>
      </div>
    </>
  );
}
