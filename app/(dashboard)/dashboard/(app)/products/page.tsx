import type { Metadata } from "next";
import Link from "next/link";
import { operatorHolds } from "@/lib/admin/seller-holds";
import { listSellerProducts } from "@/lib/selling/products";
import { CATEGORY_LABELS, OPERATOR_PRODUCT_STATUSES } from "@/lib/marketplace/constants";
import { formatPrice } from "@/lib/pricing";
import { productIconPath } from "@/lib/urls";
import { Notice } from "@/components/dashboard/notice";
import { PageHeader } from "@/components/dashboard/page-header";
import { ProductStatusBadge } from "@/components/dashboard/status-badge";
import { ScrollTable, td, tdNum, th, thNum } from "@/components/dashboard/table";
import { buttonPrimary, buttonSecondary, card, focusRing } from "@/components/ui/styles";
import { pageSeller } from "../../../_lib/seller";
import { OperatorHoldsNotice } from "./_operator-holds";
import { setProductStatusAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Products", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const heldByOperator = (status: string) => (OPERATOR_PRODUCT_STATUSES as readonly string[]).includes(status);

const smallButton = "inline-flex items-center rounded-md px-2.5 py-1.5 text-sm font-medium";

export default async function ProductsPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const [products, holds] = await Promise.all([listSellerProducts(developer.id), operatorHolds(developer.id)]);

  return (
    <>
      <Notice searchParams={await searchParams} />
      <OperatorHoldsNotice holds={holds} />
      <PageHeader
        title="Products"
        description="Listed products are in the store, the catalog API and the MCP tools. Unlisting hides a product from new buyers; licenses already sold keep working."
        actions={
          <Link href="/dashboard/products/new" className={buttonPrimary}>
            New product
          </Link>
        }
      />
      <div className="mt-8">
        {products.length === 0 ? (
          <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-14 text-center">
            <p className="text-base font-medium text-slate-900">No products yet.</p>
            <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">
              Add one in a couple of minutes: a name, a price, an icon and a download link.
            </p>
            <Link href="/dashboard/products/new" className={`${buttonPrimary} mt-6`}>
              Add your first product
            </Link>
          </div>
        ) : (
          <>
            {/* Phones get a list of cards (every action in reach); wider screens the table. */}
            <ul aria-label="Your products" className="space-y-3 sm:hidden">
              {products.map((p) => {
                const listed = p.status === "active";
                const edit = `/dashboard/products/${encodeURIComponent(p.id)}`;
                return (
                  <li key={p.id} className={`${card} p-4`}>
                    <div className="flex items-start gap-3">
                      {/* eslint-disable-next-line @next/next/no-img-element -- uploaded or static icon */}
                      <img src={productIconPath(p.iconUrl)} alt="" width={44} height={44} className="size-11 shrink-0 rounded-lg bg-slate-100" />
                      <div className="min-w-0 flex-1">
                        <Link href={edit} className={`rounded-sm font-semibold text-slate-900 hover:text-indigo-700 hover:underline ${focusRing}`}>
                          {p.name}
                        </Link>
                        <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-slate-600">
                          <ProductStatusBadge status={p.status} />
                          <span>{formatPrice(p.priceCents, p.currency)}</span>
                        </div>
                      </div>
                    </div>
                    <dl className="mt-3 flex gap-6 text-sm">
                      <div>
                        <dt className="text-slate-600">Sales</dt>
                        <dd className="font-semibold text-slate-900 tabular-nums">{p.salesCount.toLocaleString("en-US")}</dd>
                      </div>
                      <div>
                        <dt className="text-slate-600">Licenses</dt>
                        <dd className="font-semibold text-slate-900 tabular-nums">{p._count.licenses.toLocaleString("en-US")}</dd>
                      </div>
                    </dl>
                    <div className="mt-3 flex flex-wrap gap-2">
                      <Link href={edit} className={`${buttonSecondary} px-3 py-1.5`}>
                        Edit<span className="sr-only"> {p.name}</span>
                      </Link>
                      <Link href={`${edit}/releases`} className={`${buttonSecondary} px-3 py-1.5`}>
                        Releases<span className="sr-only"> of {p.name}</span>
                      </Link>
                      {listed ? (
                        <a href={`/products/${encodeURIComponent(p.id)}`} className={`${buttonSecondary} px-3 py-1.5`}>
                          View<span className="sr-only"> {p.name} in the store</span>
                        </a>
                      ) : null}
                      {/* Removed and suspended listings are the operator's to restore (the notice above says why). */}
                      {heldByOperator(p.status) ? null : (
                        <form action={setProductStatusAction.bind(null, p.id, listed ? "unlisted" : "active", "list")}>
                          <button type="submit" className={`${buttonSecondary} px-3 py-1.5`}>
                            {listed ? "Unlist" : p.status === "draft" ? "Publish" : "Relist"}
                            <span className="sr-only"> {p.name}</span>
                          </button>
                        </form>
                      )}
                    </div>
                  </li>
                );
              })}
            </ul>
            <div className="hidden sm:block">
              <ScrollTable label="Your products" minWidth="sm:min-w-[48rem]">
                <caption className="sr-only">Your products with status, price, sales and licenses</caption>
                <thead>
                  <tr>
                    <th scope="col" className={th}>
                      Product
                    </th>
                    <th scope="col" className={th}>
                      Status
                    </th>
                    <th scope="col" className={thNum}>
                      Price
                    </th>
                    <th scope="col" className={thNum}>
                      Sales
                    </th>
                    <th scope="col" className={thNum}>
                      Licenses
                    </th>
                    <th scope="col" className={th}>
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {products.map((p) => {
                    const listed = p.status === "active";
                    const edit = `/dashboard/products/${encodeURIComponent(p.id)}`;
                    return (
                      <tr key={p.id} className="hover:bg-slate-50">
                        <td data-label="Product" className={td}>
                          <div className="flex items-center gap-3">
                            {/* eslint-disable-next-line @next/next/no-img-element -- uploaded or static icon */}
                            <img
                              src={productIconPath(p.iconUrl)}
                              alt=""
                              width={40}
                              height={40}
                              className="size-10 shrink-0 rounded-lg bg-slate-100"
                            />
                            <div className="min-w-0">
                              <Link
                                href={edit}
                                className={`rounded-sm font-semibold text-slate-900 hover:text-indigo-700 hover:underline ${focusRing}`}
                              >
                                {p.name}
                              </Link>
                              <p className="truncate text-xs text-slate-600">
                                {(CATEGORY_LABELS as Partial<Record<string, string>>)[p.category] ?? p.category}
                              </p>
                            </div>
                          </div>
                        </td>
                        <td data-label="Status" className={td}>
                          <ProductStatusBadge status={p.status} />
                        </td>
                        <td data-label="Price" className={tdNum}>
                          {formatPrice(p.priceCents, p.currency)}
                        </td>
                        <td data-label="Sales" className={tdNum}>
                          {p.salesCount.toLocaleString("en-US")}
                        </td>
                        <td data-label="Licenses" className={tdNum}>
                          {p._count.licenses.toLocaleString("en-US")}
                        </td>
                        <td className={`${td} whitespace-nowrap`}>
                          <div className="flex items-center justify-end gap-1">
                            <Link href={edit} className={`${smallButton} text-indigo-700 hover:bg-indigo-50 ${focusRing}`}>
                              Edit<span className="sr-only"> {p.name}</span>
                            </Link>
                            <Link href={`${edit}/releases`} className={`${smallButton} text-indigo-700 hover:bg-indigo-50 ${focusRing}`}>
                              Releases<span className="sr-only"> of {p.name}</span>
                            </Link>
                            {listed ? (
                              <a
                                href={`/products/${encodeURIComponent(p.id)}`}
                                className={`${smallButton} text-slate-700 hover:bg-slate-100 ${focusRing}`}
                              >
                                View<span className="sr-only"> {p.name} in the store</span>
                              </a>
                            ) : null}
                            {heldByOperator(p.status) ? null : (
                              <form action={setProductStatusAction.bind(null, p.id, listed ? "unlisted" : "active", "list")}>
                                <button type="submit" className={`${buttonSecondary} px-2.5 py-1.5`}>
                                  {listed ? "Unlist" : p.status === "draft" ? "Publish" : "Relist"}
                                  <span className="sr-only"> {p.name}</span>
                                </button>
                              </form>
                            )}
                          </div>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </ScrollTable>
            </div>
          </>
        )}
      </div>
    </>
  );
}
