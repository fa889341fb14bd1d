import type { Category } from "@/lib/marketplace/constants";
import { paths } from "@/lib/urls";
import { DEFAULT_SORT, type BrowseQuery } from "./browse-query";

/** A developer page's URL for a category, sort and page; defaults are left out so links stay short and canonical. */
export function developerHref(developerId: string, query: { category?: Category | undefined; sort?: BrowseQuery["sort"]; page?: number }): string {
  const params = new URLSearchParams();
  if (query.category) params.set("category", query.category);
  if (query.sort && query.sort !== DEFAULT_SORT) params.set("sort", query.sort);
  if (query.page && query.page > 1) params.set("page", String(query.page));
  const qs = params.toString();
  return qs ? `${paths.developer(developerId)}?${qs}` : paths.developer(developerId);
}
