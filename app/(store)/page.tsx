import type { Metadata } from "next";
import Link from "next/link";
import { permanentRedirect } from "next/navigation";
import { countCategories } from "@/lib/marketplace/count-categories";
import { CATEGORY_LABELS } from "@/lib/marketplace/constants";
import { homeRows, type HomeRows } from "@/lib/marketplace/featured";
import { listProducts, type ProductPage } from "@/lib/marketplace/list-products";
import { toListingProduct } from "@/lib/marketplace/serialize";
import { coversOf } from "@/lib/media/read";
import type { MediaView } from "@/lib/media/schemas";
import { absoluteUrl } from "@/lib/urls";
import { browseHref, DEFAULT_SORT, PAGE_SIZE, parseBrowseQuery, type BrowseQuery } from "@/components/store/browse-query";
import { CategoryNav } from "@/components/store/category-nav";
import { developerHref } from "@/components/store/developer-href";
import { plural } from "@/components/store/labels";
import { Pagination } from "@/components/store/pagination";
import { CARD_SLOT, ProductCard } from "@/components/store/product-card";
import { ProductRow } from "@/components/store/product-row";
import { SearchForm } from "@/components/store/search-form";
import { SortForm } from "@/components/store/sort-form";
import { buttonSecondary, container } from "@/components/ui/styles";

export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  const query = parseBrowseQuery(await searchParams);
  // Filtered, sorted and paged views are variations of the home page: followed, but kept out of search indexes.
  const filtered = Boolean(query.q || query.category || query.developer || query.page > 1 || query.sort !== DEFAULT_SORT);
  let title: string | undefined;
  if (query.q) {
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

/** The home page's rows (featured, new, top rated) show on the plain home page only: no search, filter, sort or page. */
function showsRows(query: BrowseQuery): boolean {
  return !query.q && !query.category && !query.developer && query.page === 1 && query.sort === DEFAULT_SORT;
}

/** The rows above the full listing; a row with nothing in it is left out. */
function HomeRowsSection({ rows, covers }: { rows: HomeRows; covers: ReadonlyMap<string, MediaView> }) {
  const listing = (list: HomeRows["featured"]) => list.map(toListingProduct);
  return (
    <div className={`${container} space-y-10 pt-8`}>
      <ProductRow id="featured" title="Featured" description="Picked by the marketplace team." products={listing(rows.featured)} covers={covers} />
      <ProductRow
        id="new"
        title="New"
        description="The latest listings."
        products={listing(rows.newest)}
        covers={covers}
        seeAll={{ href: "#all-products", label: "products, newest first" }}
      />
      <ProductRow
        id="top-rated"
        title="Top rated"
        description="By verified buyers' reviews."
        products={listing(rows.topRated)}
        covers={covers}
        seeAll={{ href: browseHref({ sort: "rating" }), label: "products, top rated first" }}
      />
    </div>
  );
}

function resultSummary(query: BrowseQuery, total: number): string {
  const parts = [plural(total, "product")];
  if (query.q) parts.push(`matching “${query.q}”`);
  if (query.category) parts.push(`in ${CATEGORY_LABELS[query.category]}`);
  return parts.join(" ");
}

function emptySummary(query: BrowseQuery): string {
  const where = query.category ? ` in ${CATEGORY_LABELS[query.category]}` : "";
  return query.q ? `No products match “${query.q}”${where}.` : `No products${where} yet.`;
}

export default async function Home({ searchParams }: Props) {
  const query = parseBrowseQuery(await searchParams);
  // A developer's products have their own page now; old links keep working (308, sort and page kept).
  if (query.developer) permanentRedirect(developerHref(query.developer, query));
  const [result, counts, rows] = await Promise.all([
    loadPage(query),
    // The chips count what this view lists: the search and the developer apply to them too.
    countCategories({ search: query.q || undefined, developerId: query.developer }),
    showsRows(query) ? homeRows() : null,
  ]);
  const products = result.rows.map(toListingProduct);
  // The cards' covers, for the listing and the rows in one query.
  const covers = await coversOf([
    ...products.map((p) => p.id),
    ...(rows ? [...rows.featured, ...rows.newest, ...rows.topRated].map((p) => p.id) : []),
  ]);
  const shownQuery: BrowseQuery = { ...query, page: result.page };
  const hasFilters = Boolean(query.q || query.category);

  return (
    <>
      <section aria-labelledby="page-title" className="border-b border-slate-200 bg-white">
        {/* Compact on phones, so the first products show on the first screen. */}
        <div className={`${container} py-5 sm:py-14`}>
          <h1 id="page-title" className="text-2xl font-semibold tracking-tight text-balance text-slate-900 sm:text-4xl">
            Software from independent developers
          </h1>
          <p className="mt-1.5 text-sm text-pretty text-slate-600 sm:hidden">
            Plugins, apps, assets and tools, licensed per machine. Try before you buy.
          </p>
          <p className="mt-3 hidden max-w-2xl text-lg text-pretty text-slate-600 sm:block">
            Plugins, apps, assets and tools, bought straight from the people who make them. Licensed per machine — try before you buy, move your
            license whenever you change computers.
          </p>
          <div className="mt-4 sm:mt-6">
            <SearchForm query={query} />
          </div>
        </div>
      </section>

      {rows ? <HomeRowsSection rows={rows} covers={covers} /> : null}

      {/* Below the first screen on the home page: its layout and paint wait until it nears the screen (a phone paints and
          hydrates the page sooner). The container's padding keeps the cards' focus rings inside the painted box. */}
      <div className={`${container} py-8 [content-visibility:auto] [contain-intrinsic-size:auto_80rem]`}>
        <CategoryNav query={query} counts={counts} />

        <section id="all-products" aria-labelledby="results-heading" className="mt-8 scroll-mt-6">
          <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
            <h2 id="results-heading" className="min-w-0 text-lg font-semibold wrap-anywhere text-slate-900" aria-live="polite">
              {result.total > 0 ? resultSummary(query, result.total) : emptySummary(query)}
            </h2>
            {result.total > 0 ? <SortForm query={query} /> : null}
          </div>

          {products.length > 0 ? (
            <>
              <ul className="mt-6 grid grid-cols-1 gap-5 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
                {products.map((p) => (
                  <li key={p.id} className={CARD_SLOT}>
                    <ProductCard product={p} cover={covers.get(p.id)} />
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
