import { z } from "zod";
import { catalogResponseSchema } from "../api/doc-schemas.ts";
import { CACHE } from "../http/headers.ts";
import { CATEGORIES } from "../marketplace/constants.ts";
import { countCategories } from "../marketplace/count-categories.ts";
import { getCatalog } from "../marketplace/get-catalog.ts";
import { getProduct } from "../marketplace/get-product.ts";
import { listProducts } from "../marketplace/list-products.ts";
import {
  catalogQuerySchema,
  categoriesResponseSchema,
  listingsQuerySchema,
  listingsResponseSchema,
  productDetailsSchema,
  productParamsSchema,
  SEARCH_MAX_LENGTH,
} from "../marketplace/schemas.ts";
import { toListingProduct } from "../marketplace/serialize.ts";
import { operation } from "./define.ts";

/** Browsing the marketplace: the reads people, agents and the catalog crawlers make. */
export const MARKETPLACE = [
  operation({
    id: "listListings",
    summary: "Browse listings",
    description: "Listed products, filtered by category and search words, sorted and paged (limit defaults to 20, at most 50).",
    tag: "Marketplace",
    auth: "public",
    http: { method: "GET", path: "/api/marketplace/listings", cache: CACHE.short },
    input: { query: listingsQuerySchema },
    output: listingsResponseSchema,
    handler: async (q) => {
      const page = await listProducts(q);
      return { products: page.rows.map(toListingProduct), total: page.total, page: page.page, limit: page.limit, pages: page.pages };
    },
    tools: [
      {
        name: "browse_marketplace",
        title: "Browse the marketplace",
        layer: 2,
        description:
          "Search and browse software listed on the marketplace (audio plugins, desktop apps, game assets, 3D/VFX, developer tools, creative tools). Returns products with price, platforms, seat limits and trial availability.",
        args: z.object({
          query: z.string().max(SEARCH_MAX_LENGTH).optional().describe("Free-text search"),
          category: z.enum(CATEGORIES).optional(),
          limit: z.number().int().min(1).max(20).default(10).describe("How many products to return, 1 to 20"),
        }),
        toInput: (a) =>
          listingsQuerySchema.parse({ search: a.query, category: a.category, sort: a.query ? "popular" : "newest", page: 1, limit: a.limit }),
        text: (out) => {
          const lines = out.products.map(
            (p) =>
              `- ${p.name} (${p.id}) by ${p.developer}: ${p.price_display}, ${p.category}, up to ${p.max_machines} machine(s)${p.trial_available ? `, ${p.trial_days}-day trial` : ""}. ${p.tagline}`,
          );
          return `${out.total} product(s) match; showing ${out.products.length}.\n${lines.join("\n")}`;
        },
      },
    ],
  }),
  operation({
    id: "getProduct",
    summary: "Product details",
    description: "One listed product with developer info, images and pricing. Unknown and unlisted products are 404.",
    tag: "Marketplace",
    auth: "public",
    http: { method: "GET", path: "/api/marketplace/product/{id}", cache: CACHE.short },
    input: { params: productParamsSchema },
    output: z.object({ product: productDetailsSchema }),
    errors: [404],
    handler: async (p) => ({ product: await getProduct(p.id) }),
    tools: [
      {
        name: "get_product_details",
        title: "Get product details",
        layer: 2,
        description: "Full details of one product: description, developer, images, pricing, platforms, compatibility, seat model and trial.",
        args: z.object({ product_id: productParamsSchema.shape.id.describe("Product id from browse_marketplace") }),
        toInput: (a) => ({ id: a.product_id as string }),
        text: (out) => JSON.stringify(out.product, null, 2),
      },
    ],
  }),
  operation({
    id: "listCategories",
    summary: "Categories with counts",
    tag: "Marketplace",
    auth: "public",
    http: { method: "GET", path: "/api/marketplace/categories", cache: CACHE.short },
    output: categoriesResponseSchema,
    handler: async () => ({ categories: await countCategories() }),
  }),
  operation({
    id: "getCatalog",
    summary: "Product catalog with capability metadata",
    description: "20 products a page; follow `_links.next` until it is null.",
    tag: "Agents",
    auth: "public",
    http: { method: "GET", path: "/api/catalog", cache: CACHE.short },
    input: { query: catalogQuerySchema },
    output: catalogResponseSchema,
    handler: (q) => getCatalog(q),
  }),
];
