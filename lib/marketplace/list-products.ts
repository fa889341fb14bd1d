import { Prisma } from "../generated/sqlite/client.ts";
import { getDb } from "../db.ts";
import type { Category } from "./constants.ts";
import { defaultSort, type ProductSort } from "./schemas.ts";
import { compileSearch, type CompiledSearch } from "./search.ts";
import { productSelect, type ProductRow } from "./serialize.ts";
import { cachedRead } from "../cache/read-cache.ts";
import { latestReleases } from "../releases/read.ts";
import { bundleContents } from "../bundles/read-bundles.ts";

export interface ListProductsInput {
  category?: Category;
  search?: string;
  developerId?: string;
  /** Without it: relevance when there is a search, else newest. */
  sort?: ProductSort;
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

type Direction = "asc" | "desc";
type Column = "createdAt" | "priceCents" | "name" | "salesCount" | "ratingAverage" | "ratingCount" | "id";

/** Each order as columns, read both by Prisma (no search) and by the search's SQL; ties end on the id. */
const ORDER: Record<Exclude<ProductSort, "relevance">, [Column, Direction][]> = {
  newest: [
    ["createdAt", "desc"],
    ["id", "asc"],
  ],
  price_asc: [
    ["priceCents", "asc"],
    ["name", "asc"],
    ["id", "asc"],
  ],
  price_desc: [
    ["priceCents", "desc"],
    ["name", "asc"],
    ["id", "asc"],
  ],
  popular: [
    ["salesCount", "desc"],
    ["createdAt", "desc"],
    ["id", "asc"],
  ],
  name: [
    ["name", "asc"],
    ["id", "asc"],
  ],
  rating: [
    ["ratingAverage", "desc"],
    ["ratingCount", "desc"],
    ["id", "asc"],
  ],
};

/**
 * Listed (active) products, filtered, searched (lib/marketplace/search.ts), sorted and paged, each with its latest
 * published version. One function behind the listing, the catalog and the storefront.
 */
export function listProducts(input: ListProductsInput): Promise<ProductPage> {
  const sort = input.sort ?? defaultSort(input.search);
  const key = `list:${input.category ?? ""}:${input.developerId ?? ""}:${sort}:${input.page}:${input.limit}:${input.search ?? ""}`;
  return cachedRead(key, () => queryProducts({ ...input, sort }));
}

async function queryProducts(input: ListProductsInput & { sort: ProductSort }): Promise<ProductPage> {
  const { rows, total } = input.search?.trim() ? await searchPage(input, await compileSearch(input.search)) : await browsePage(input);
  // One query for the whole page's latest versions, not one per product; the bundles' items likewise.
  const [latest, bundles] = await Promise.all([
    rows.length > 0 ? latestReleases(rows.map((r) => r.id)) : new Map<string, never>(),
    bundleContents(rows),
  ]);
  return {
    rows: rows.map((r) => ({ ...r, latestVersion: latest.get(r.id) ?? null, bundleItems: bundles.get(r.id) })),
    total,
    page: input.page,
    limit: input.limit,
    pages: Math.max(1, Math.ceil(total / input.limit)),
  };
}

type Rows = { rows: Omit<ProductRow, "latestVersion">[]; total: number };

/** No search: Prisma's query, "relevance" meaning the newest first. */
async function browsePage(input: ListProductsInput & { sort: ProductSort }): Promise<Rows> {
  const db = getDb();
  const where = {
    status: "active",
    ...(input.category ? { category: input.category } : {}),
    ...(input.developerId ? { developerId: input.developerId } : {}),
  };
  const order = ORDER[input.sort === "relevance" ? "newest" : input.sort];
  const [total, rows] = await Promise.all([
    db.product.count({ where }),
    db.product.findMany({
      where,
      orderBy: order.map(([column, direction]) => ({ [column]: direction })),
      skip: (input.page - 1) * input.limit,
      take: input.limit,
      select: productSelect,
    }),
  ]);
  return { rows, total };
}

/** SQL conditions on `"Product" p` for a listing's filters other than the search. */
export function listedFilter(input: Pick<ListProductsInput, "category" | "developerId">): Prisma.Sql {
  return Prisma.join(
    [
      Prisma.sql`p."status" = 'active'`,
      ...(input.category ? [Prisma.sql`p."category" = ${input.category}`] : []),
      ...(input.developerId ? [Prisma.sql`p."developerId" = ${input.developerId}`] : []),
    ],
    " AND ",
  );
}

/** A search: the page's ids in SQL (ranked or in the chosen order), then their rows through Prisma. */
async function searchPage(input: ListProductsInput & { sort: ProductSort }, search: CompiledSearch | null): Promise<Rows> {
  // A search with nothing searchable left in it (only punctuation, say) matches nothing rather than everything.
  if (!search) return { rows: [], total: 0 };
  const db = getDb();
  const where = Prisma.sql`${listedFilter(input)} AND ${search.where}`;
  const order =
    input.sort === "relevance"
      ? Prisma.sql`${search.rank}, p."id" ASC`
      : Prisma.join(
          ORDER[input.sort].map(([column, direction]) => Prisma.raw(`p."${column}" ${direction.toUpperCase()}`)),
          ", ",
        );
  const [counted, page] = await Promise.all([
    db.$queryRaw<{ n: number | bigint }[]>`SELECT COUNT(*) AS "n" FROM "Product" p ${search.from} WHERE ${where}`,
    db.$queryRaw<{ id: string }[]>`
      SELECT p."id" FROM "Product" p ${search.from} WHERE ${where}
      ORDER BY ${order} LIMIT ${input.limit} OFFSET ${(input.page - 1) * input.limit}`,
  ]);
  const ids = page.map((r) => r.id);
  const found = ids.length > 0 ? await db.product.findMany({ where: { id: { in: ids } }, select: productSelect }) : [];
  const byId = new Map(found.map((r) => [r.id, r]));
  return { rows: ids.flatMap((id) => byId.get(id) ?? []), total: Number(counted[0]?.n ?? 0) };
}
