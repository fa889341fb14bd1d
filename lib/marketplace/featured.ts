import { getDb } from "../db.ts";
import { latestReleases } from "../releases/read.ts";
import { bundleContents } from "../bundles/read-bundles.ts";
import { listProducts } from "./list-products.ts";
import { cachedRead } from "../cache/read-cache.ts";
import { productSelect, type ProductRow } from "./serialize.ts";

/** How many featured products the home page shows, newest featured first. */
export const FEATURED_LIMIT = 8;
/** How many products the home page's other rows (new, top rated) show. */
const HOME_ROW_LIMIT = 4;

export interface HomeRows {
  featured: ProductRow[];
  newest: ProductRow[];
  topRated: ProductRow[];
}

/**
 * The home page's rows: featured by the operator (newest featured first), the newest listings, and the best rated
 * (only products with at least one visible review; higher average first, then more reviews). Only listed products.
 * Cached like every marketplace read; featuring, as every product write, clears the cache.
 */
export function homeRows(): Promise<HomeRows> {
  return cachedRead("home-rows", queryRows);
}

async function queryRows(): Promise<HomeRows> {
  const db = getDb();
  const [featured, newest, topRated] = await Promise.all([
    db.product.findMany({
      where: { status: "active", featuredAt: { not: null } },
      orderBy: [{ featuredAt: "desc" }, { id: "asc" }],
      take: FEATURED_LIMIT,
      select: productSelect,
    }),
    listProducts({ sort: "newest", page: 1, limit: HOME_ROW_LIMIT }),
    db.product.findMany({
      where: { status: "active", ratingCount: { gte: 1 } },
      orderBy: [{ ratingAverage: "desc" }, { ratingCount: "desc" }, { id: "asc" }],
      take: HOME_ROW_LIMIT,
      select: productSelect,
    }),
  ]);
  // One query for the latest versions of both rows read here (the listing brings its own).
  const [latest, bundles] = await Promise.all([
    latestReleases([...featured, ...topRated].map((p) => p.id)),
    bundleContents([...featured, ...topRated]),
  ]);
  const withVersion = (rows: ProductRow[]) => rows.map((r) => ({ ...r, latestVersion: latest.get(r.id) ?? null, bundleItems: bundles.get(r.id) }));
  return { featured: withVersion(featured), newest: newest.rows, topRated: withVersion(topRated) };
}
