import { blankControlCharacters } from "@/lib/http/input";
import type { Category } from "@/lib/marketplace/constants";
import { ALL_SORTS, categorySchema, defaultSort, MAX_PAGE, SEARCH_MAX_LENGTH, type ProductSort } from "@/lib/marketplace/schemas";

export type RawSearchParams = Record<string, string | string[] | undefined>;

/** The storefront's browse state, read leniently from the URL: anything unknown falls back to the default. */
export interface BrowseQuery {
  q: string;
  category?: Category;
  sort: ProductSort;
  page: number;
  developer?: string;
}

/** The order without a search; with one it is relevance (defaultSort). */
export const DEFAULT_SORT: ProductSort = defaultSort(undefined);
export const PAGE_SIZE = 12;

const DEVELOPER_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isSort(value: string | undefined): value is ProductSort {
  return value !== undefined && (ALL_SORTS as readonly string[]).includes(value);
}

export function parseBrowseQuery(params: RawSearchParams): BrowseQuery {
  const q = blankControlCharacters(first(params.q) ?? "")
    .trim()
    .slice(0, SEARCH_MAX_LENGTH)
    .trim();
  const category = categorySchema.safeParse(first(params.category));
  const sort = first(params.sort);
  const pageNumber = Number.parseInt(first(params.page) ?? "", 10);
  const developer = first(params.developer)?.trim().toLowerCase();
  return {
    q,
    category: category.success ? category.data : undefined,
    sort: isSort(sort) ? sort : defaultSort(q),
    page: Number.isFinite(pageNumber) ? Math.min(Math.max(pageNumber, 1), MAX_PAGE) : 1,
    developer: developer && DEVELOPER_ID.test(developer) ? developer : undefined,
  };
}

/** A storefront URL for a browse state; defaults (the sort included, which depends on the search) are left out. */
export function browseHref(query: Partial<BrowseQuery>): string {
  const params = new URLSearchParams();
  if (query.q) params.set("q", query.q);
  if (query.category) params.set("category", query.category);
  if (query.developer) params.set("developer", query.developer);
  if (query.sort && query.sort !== defaultSort(query.q)) params.set("sort", query.sort);
  if (query.page && query.page > 1) params.set("page", String(query.page));
  const qs = params.toString();
  return qs ? `/?${qs}` : "/";
}
