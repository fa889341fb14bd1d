import { getDb } from "../db.ts";
import { CATEGORIES, type Category } from "./constants.ts";
import { listedFilter } from "./list-products.ts";
import { cachedRead } from "../cache/read-cache.ts";
import { compileSearch } from "./search.ts";

export interface CategoryCount {
  category: Category;
  count: number;
}

/** What the counts are of: listed products, optionally only those matching a search and of one developer. */
interface CountCategoriesInput {
  search?: string;
  developerId?: string;
}

/**
 * Every category with its number of listed products, zero included, in the canonical order. With a search or a
 * developer, the counts are of the products that view shows, so a category's count is what choosing it lists.
 */
export function countCategories(input: CountCategoriesInput = {}): Promise<CategoryCount[]> {
  const search = input.search?.trim() ?? "";
  return cachedRead(`categories:${input.developerId ?? ""}:${search}`, () => queryCounts(search, input.developerId));
}

async function queryCounts(search: string, developerId: string | undefined): Promise<CategoryCount[]> {
  const groups = search ? await searchCounts(search, developerId) : await browseCounts(developerId);
  const counts = new Map(groups.map((g) => [g.category, Number(g.n)]));
  return CATEGORIES.map((category) => ({ category, count: counts.get(category) ?? 0 }));
}

async function browseCounts(developerId: string | undefined) {
  const groups = await getDb().product.groupBy({
    by: ["category"],
    where: { status: "active", ...(developerId ? { developerId } : {}) },
    _count: { _all: true },
  });
  return groups.map((g) => ({ category: g.category, n: g._count._all }));
}

async function searchCounts(search: string, developerId: string | undefined) {
  const compiled = await compileSearch(search);
  if (!compiled) return [];
  return getDb().$queryRaw<{ category: string; n: number | bigint }[]>`
    SELECT p."category" AS "category", COUNT(*) AS "n" FROM "Product" p ${compiled.from}
    WHERE ${listedFilter({ developerId })} AND ${compiled.where}
    GROUP BY p."category"`;
}
