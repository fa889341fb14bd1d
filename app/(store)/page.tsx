import type { Metadata } from "next";
import Link from "next/link";
import { cache } from "react";
import { countCategories } from "@/lib/marketplace/count-categories";
import { CATEGORY_LABELS } from "@/lib/marketplace/constants";
import { listProducts, type ProductPage } from "@/lib/marketplace/list-products";
import { toListingProduct } from "@/lib/marketplace/serialize";
import { absoluteUrl } from "@/lib/urls";
import { browseHref, DEFAULT_SORT, PAGE_SIZE, parseBrowseQuery, type BrowseQuery } from "@/components/store/browse-query";
import { CategoryNav } from "@/components/store/category-nav";
import { plural } from "@/components/store/labels";
import { Pagination } from "@/components/store/pagination";
import { ProductCard } from "@/components/store/product-card";
import { SearchForm } from "@/components/store/search-form";
import { SortForm } from "@/components/store/sort-form";
import { buttonSecondary, container, textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  const query = parseBrowseQuery(await searchParams);
  // Filtered, sorted and paged views are variations of the home page: followed, but kept out of search indexes.
  const filtered = Boolean(query.q || query.category || query.developer || query.page > 1 || query.sort !== DEFAULT_SORT);
  let title: string | undefined;
  if (query.developer) {
    const name = await lookupDeveloperName(query.developer);
    title = name ? `Products by ${name}` : "Developer not found";
  } else if (query.q) {
    title = `Search: ${query.q}`;
  } else if (query.category) {
    title = CATEGORY_LABELS[query.category];
  }
  return {
    ...(title ? { title } : {}),
    ...(filtered ? { robots: { index: false, follow: true } } : { alternates: { canonical: absoluteUrl("/") } }),
  };
}

async function loadPage(query: BrowseQuery): Promise<ProductPage> {
  const input = {
    category: query.category,
    search: query.q || undefined,
    developerId: query.developer,
    sort: query.sort,
    limit: PAGE_SIZE,
  };
  const result = await listProducts({ ...input, page: query.page });
  // A page past the end (an old link, a hand-edited URL) shows the last page instead of an empty one.
  if (result.rows.length === 0 && result.total > 0 && query.page > result.pages) {
    return listProducts({ ...input, page: result.pages });
  }
  return result;
}

/** A developer's display name, read from one of their listed products (there is no developer lookup in lib yet). */
const lookupDeveloperName = cache(async (developerId: string): Promise<string | undefined> => {
  const any = await listProducts({ developerId, sort: "newest", page: 1, limit: 1 });
  return any.rows[0]?.developer.name;
});

async function developerName(query: BrowseQuery, result: ProductPage): Promise<string | undefined> {
  if (!query.developer) return undefined;
  return result.rows[0]?.developer.name ?? lookupDeveloperName(query.developer);
}

function resultSummary(query: BrowseQuery, total: number): string {
  const parts = [plural(total, "product")];
  if (query.q) parts.push(`matching “${query.q}”`);
  if (query.category) parts.push(`in ${CATEGORY_LABELS[query.category]}`);
  return parts.join(" ");
}

function emptySummary(query: BrowseQuery, developer: string | undefined): string {
  const where = [
    query.category ? ` in ${CATEGORY_LABELS[query.category]}` : "",
    query.developer ? ` from ${developer ?? "this developer"}` : "",
  ].join("");
  return query.q ? `No products match “${query.q}”${where}.` : `No products${where} yet.`;
}

export default async function Home({ searchParams }: Props) {
  const query = parseBrowseQuery(await searchParams);
  const [result, counts] = await Promise.all([loadPage(query), countCategories()]);
  const devName = await developerName(query, result);
  const products = result.rows.map(toListingProduct);
  const shownQuery: BrowseQuery = { ...query, page: result.page };
  const hasFilters = Boolean(query.q || query.category || query.developer);

  return (
    <>
      <section aria-labelledby="page-title" className="border-b border-slate-200 bg-white">
        <div className={`${container} py-10 sm:py-14`}>
          {query.developer ? (
            <>
              <p className="text-sm font-medium text-indigo-700">
                <Link href={browseHref({ sort: query.sort })} className={textLink}>
                  <span aria-hidden="true">← </span>All products
                </Link>
              </p>
              <h1 id="page-title" className="mt-3 text-3xl font-semibold tracking-tight text-balance text-slate-900 sm:text-4xl">
                Products by {devName ?? "this developer"}
              </h1>
              <p className="mt-3 max-w-2xl text-base text-pretty text-slate-600">
                {devName ? `Everything ${devName} currently sells on Indie License Market.` : "We couldn't find listed products from this developer."}
              </p>
            </>
          ) : (
            <>
              <h1 id="page-title" className="text-3xl font-semibold tracking-tight text-balance text-slate-900 sm:text-4xl">
                Software from independent developers
              </h1>
              <p className="mt-3 max-w-2xl text-base text-pretty text-slate-600 sm:text-lg">
                Plugins, apps, assets and tools, bought straight from the people who make them. Licensed per machine — try before you buy, move your
                license whenever you change computers.
              </p>
            </>
          )}
          <div className="mt-6">
            <SearchForm query={query} />
          </div>
        </div>
      </section>

      <div className={`${container} py-8`}>
        <CategoryNav query={query} counts={counts} />

        <section aria-labelledby="results-heading" className="mt-8">
          <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
            <h2 id="results-heading" className="text-lg font-semibold text-slate-900" aria-live="polite">
              {result.total > 0 ? resultSummary(query, result.total) : emptySummary(query, devName)}
            </h2>
            {result.total > 0 ? <SortForm query={query} /> : null}
          </div>

          {products.length > 0 ? (
            <>
              <ul className="mt-6 grid grid-cols-1 gap-5 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
                {products.map((p) => (
                  <li key={p.id}>
                    <ProductCard product={p} />
                  </li>
                ))}
              </ul>
              <Pagination query={shownQuery} page={result.page} pages={result.pages} />
            </>
          ) : (
            <div className="mt-6 rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-14 text-center">
              <p className="text-base font-medium text-slate-900">Nothing here.</p>
              <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">
                {query.q ? "Try fewer or different words, or look in every category." : "Try another category or browse the whole catalogue."}
              </p>
              {hasFilters ? (
                <Link href="/" className={`${buttonSecondary} mt-6`}>
                  Clear filters
                </Link>
              ) : null}
            </div>
          )}
        </section>
      </div>
    </>
  );
}
