import { getDb } from "../db.ts";
import type { Category } from "./constants.ts";
import type { ProductSort } from "./schemas.ts";
import { searchTerms } from "./search-text.ts";
import { productSelect, type ProductRow } from "./serialize.ts";
import { cachedRead } from "./read-cache.ts";

export interface ListProductsInput {
  category?: Category;
  search?: string;
  developerId?: string;
  sort: ProductSort;
  page: number;
  limit: number;
}

export interface ProductPage {
  rows: ProductRow[];
  total: number;
  page: number;
  limit: number;
  pages: number;
}

const ORDER = {
  newest: [{ createdAt: "desc" }, { id: "asc" }],
  price_asc: [{ priceCents: "asc" }, { name: "asc" }, { id: "asc" }],
  price_desc: [{ priceCents: "desc" }, { name: "asc" }, { id: "asc" }],
  popular: [{ salesCount: "desc" }, { createdAt: "desc" }, { id: "asc" }],
  name: [{ name: "asc" }, { id: "asc" }],
} as const;

function listedProductsWhere(input: Pick<ListProductsInput, "category" | "search" | "developerId">) {
  const terms = searchTerms(input.search);
  // A search with nothing searchable left in it (only wildcards, say) matches nothing rather than everything.
  const unmatchable = terms.length === 0 && Boolean(input.search?.trim());
  return {
    status: "active",
    ...(input.category ? { category: input.category } : {}),
    ...(input.developerId ? { developerId: input.developerId } : {}),
    AND: unmatchable ? [{ id: { in: [] as string[] } }] : terms.map((term) => ({ searchText: { contains: term } })),
  };
}

/** Listed (active) products, filtered, sorted and paged. One function behind the listing, the catalog and the storefront. */
export function listProducts(input: ListProductsInput): Promise<ProductPage> {
  const key = `list:${input.category ?? ""}:${input.developerId ?? ""}:${input.sort}:${input.page}:${input.limit}:${input.search ?? ""}`;
  return cachedRead(key, () => queryProducts(input));
}

async function queryProducts(input: ListProductsInput): Promise<ProductPage> {
  const db = getDb();
  const where = listedProductsWhere(input);
  const [total, rows] = await Promise.all([
    db.product.count({ where }),
    db.product.findMany({
      where,
      orderBy: [...ORDER[input.sort]],
      skip: (input.page - 1) * input.limit,
      take: input.limit,
      select: productSelect,
    }),
  ]);
  return { rows, total, page: input.page, limit: input.limit, pages: Math.max(1, Math.ceil(total / input.limit)) };
}
