import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache, type ReactNode } from "react";
import { CATEGORY_LABELS } from "@/lib/marketplace/constants";
import { getDeveloperPage } from "@/lib/marketplace/get-developer";
import { listProducts } from "@/lib/marketplace/list-products";
import { toListingProduct } from "@/lib/marketplace/serialize";
import { coversOf } from "@/lib/media/read";
import { absoluteUrl, paths } from "@/lib/urls";
import { DEFAULT_SORT, PAGE_SIZE, parseBrowseQuery } from "@/components/store/browse-query";
import { developerHref } from "@/components/store/developer-href";
import { DeveloperJsonLd } from "@/components/store/developer-json-ld";
import { plural } from "@/components/store/labels";
import { Pagination } from "@/components/store/pagination";
import { CARD_SLOT, ProductCard } from "@/components/store/product-card";
import { RatingStars } from "@/components/store/rating-stars";
import { SortForm } from "@/components/store/sort-form";
import { container, focusRing, textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** One read per request, shared by generateMetadata and the page. Unknown, or nothing listed → the 404 page. */
const loadDeveloper = cache(async (id: string) => getDeveloperPage(id));

/** "November 2025". */
const monthYear = (when: Date) => new Intl.DateTimeFormat("en-GB", { month: "long", year: "numeric", timeZone: "UTC" }).format(when);

/** A web address as people read it: its host and path, without the scheme. */
const shortUrl = (url: string) => url.replace(/^https?:\/\//i, "").replace(/\/$/, "");

/** Links to pages the seller wrote: followed by nobody's ranking, and the new page gets no handle on this one. */
const SELLER_LINK_REL = "nofollow ugc noopener";

export async function generateMetadata({ params, searchParams }: Props): Promise<Metadata> {
  const developer = await loadDeveloper((await params).id);
  if (!developer) return { title: "Page not found", robots: { index: false } };
  const query = parseBrowseQuery(await searchParams);
  const filtered = Boolean(query.category || query.page > 1 || query.sort !== DEFAULT_SORT);
  return {
    title: `${developer.name}: software and plugins`,
    description: developer.bio || `Software by ${developer.name} on Indie License Market.`,
    ...(filtered ? { robots: { index: false, follow: true } } : { alternates: { canonical: absoluteUrl(paths.developer(developer.id)) } }),
  };
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-sm text-slate-600">{term}</dt>
      <dd className="mt-0.5 text-base font-semibold wrap-anywhere text-slate-900">{children}</dd>
    </div>
  );
}

export default async function DeveloperPageView({ params, searchParams }: Props) {
  const developer = await loadDeveloper((await params).id);
  if (!developer) notFound();
  const browse = parseBrowseQuery(await searchParams);
  // Only the categories this developer lists in; any other shows all their products.
  const category = developer.categories.some((c) => c.category === browse.category) ? browse.category : undefined;
  const input = { developerId: developer.id, category, sort: browse.sort, limit: PAGE_SIZE };
  let result = await listProducts({ ...input, page: browse.page });
  // A page past the end (an old link) shows the last page instead of an empty one.
  if (result.rows.length === 0 && result.total > 0 && browse.page > result.pages) result = await listProducts({ ...input, page: result.pages });
  const products = result.rows.map(toListingProduct);
  const covers = await coversOf(products.map((p) => p.id));
  const { rating } = developer;
  const chip = (active: boolean) =>
    `inline-flex items-center gap-2 rounded-full border px-3.5 py-1.5 text-sm font-medium transition-colors ${focusRing} ${
      active
        ? "border-indigo-600 bg-indigo-600 text-white shadow-sm"
        : "border-slate-200 bg-white text-slate-700 hover:border-slate-300 hover:bg-slate-50 hover:text-slate-900"
    }`;

  return (
    <>
      <DeveloperJsonLd developer={developer} />
      <section aria-labelledby="page-title" className="border-b border-slate-200 bg-white">
        <div className={`${container} py-8 sm:py-12`}>
          <p className="text-sm font-medium">
            <Link href="/" className={textLink}>
              <span aria-hidden="true">← </span>All products
            </Link>
          </p>
          <div className="mt-4 flex items-start gap-4">
            <span
              aria-hidden="true"
              className="flex size-14 shrink-0 items-center justify-center rounded-2xl bg-indigo-600 text-2xl font-semibold text-white sm:size-16"
            >
              {developer.name.trim().charAt(0).toUpperCase()}
            </span>
            <div className="min-w-0">
              <p className="text-sm font-medium text-slate-600">Developer</p>
              <h1 id="page-title" className="text-2xl font-semibold tracking-tight text-balance wrap-anywhere text-slate-900 sm:text-3xl">
                {developer.name}
              </h1>
            </div>
          </div>
          {developer.bio ? <p className="mt-4 max-w-3xl text-base whitespace-pre-line text-pretty text-slate-700">{developer.bio}</p> : null}
          <dl className="mt-6 grid grid-cols-2 gap-x-6 gap-y-4 sm:flex sm:flex-wrap sm:gap-x-10" data-testid="developer-facts">
            <Fact term="Member since">{monthYear(developer.memberSince)}</Fact>
            <Fact term="Products">{developer.productCount.toLocaleString("en-US")}</Fact>
            <Fact term="Rating">
              {rating.count > 0 ? (
                <RatingStars average={Math.round(rating.average * 10) / 10} count={rating.count} size="md" />
              ) : (
                <span className="font-normal text-slate-700">No reviews yet</span>
              )}
            </Fact>
            {developer.website ? (
              <Fact term="Website">
                <a href={developer.website} rel={SELLER_LINK_REL} className={textLink}>
                  {shortUrl(developer.website)}
                </a>
              </Fact>
            ) : null}
            {developer.supportEmail || developer.supportUrl ? (
              <Fact term="Support">
                {developer.supportEmail ? (
                  <a href={`mailto:${developer.supportEmail}`} className={`${textLink} block`}>
                    {developer.supportEmail}
                  </a>
                ) : null}
                {developer.supportUrl ? (
                  <a href={developer.supportUrl} rel={SELLER_LINK_REL} className={`${textLink} block`}>
                    Help pages<span className="sr-only"> of {developer.name}</span>
                  </a>
                ) : null}
              </Fact>
            ) : null}
          </dl>
        </div>
      </section>

      <div className={`${container} py-8`}>
        {developer.categories.length > 1 ? (
          <nav aria-label={`Categories of ${developer.name}'s products`} className="mb-8">
            <ul className="flex flex-wrap gap-2">
              {[{ category: undefined, count: developer.productCount }, ...developer.categories].map((c) => (
                <li key={c.category ?? "all"}>
                  <Link
                    href={developerHref(developer.id, { category: c.category, sort: browse.sort })}
                    aria-current={c.category === category ? "page" : undefined}
                    className={chip(c.category === category)}
                  >
                    {c.category ? CATEGORY_LABELS[c.category] : "All"}
                    <span className="sr-only"> ({plural(c.count, "product")})</span>
                    <span aria-hidden="true" className="tabular-nums opacity-80">
                      {c.count}
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}

        <section aria-labelledby="results-heading">
          <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
            <h2 id="results-heading" className="text-lg font-semibold text-slate-900">
              {plural(result.total, "product")} by {developer.name}
              {category ? ` in ${CATEGORY_LABELS[category]}` : ""}
            </h2>
            {/* The form goes to the home page, which sends a developer's listing here with the chosen order. */}
            <SortForm query={{ q: "", category, sort: browse.sort, page: 1, developer: developer.id }} />
          </div>
          <ul className="mt-6 grid grid-cols-1 gap-5 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
            {products.map((p) => (
              <li key={p.id} className={CARD_SLOT}>
                <ProductCard product={p} cover={covers.get(p.id)} />
              </li>
            ))}
          </ul>
          <Pagination
            query={browse}
            page={result.page}
            pages={result.pages}
            hrefFor={(page) => developerHref(developer.id, { category, sort: browse.sort, page })}
          />
        </section>
      </div>
    </>
  );
}
