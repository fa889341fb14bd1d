import { getDb } from "../db.ts";
import { CATEGORIES, type Category } from "./constants.ts";
import { cachedRead } from "./read-cache.ts";

export interface CategoryCount {
  category: Category;
  count: number;
}

/** Every category with its number of listed products, zero included, in the canonical order. */
export function countCategories(): Promise<CategoryCount[]> {
  return cachedRead("categories", queryCounts);
}

async function queryCounts(): Promise<CategoryCount[]> {
  const groups = await getDb().product.groupBy({ by: ["category"], where: { status: "active" }, _count: { _all: true } });
  const counts = new Map(groups.map((g) => [g.category, g._count._all]));
  return CATEGORIES.map((category) => ({ category, count: counts.get(category) ?? 0 }));
}
