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
  LISTING_LIMIT,
  LISTING_SORTS,
  listingsQuerySchema,
  listingsResponseSchema,
  productDetailsSchema,
  MAX_PAGE,
  productParamsSchema,
  SEARCH_MAX_LENGTH,
} from "../marketplace/schemas.ts";
import { toListingProduct } from "../marketplace/serialize.ts";
import { operation } from "./define.ts";

/**
 * The `limit` of the browse_marketplace tool, on every transport that offers it (MCP, A2A, the OpenAI manifest): 1 to
 * 20, default 10, as the interface's table fixes it. GET /api/marketplace/listings keeps its own (LISTING_LIMIT: the
 * interface leaves the REST page size open).
 */
const BROWSE_LIMIT = { default: 10, max: 20 } as const;

/** Browsing the marketplace: the reads people, agents and the catalog crawlers make. */
export const MARKETPLACE = [
  operation({
    id: "listListings",
    summary: "Browse listings",
    description: `Listed products, filtered by category and search words, sorted and paged (limit defaults to ${LISTING_LIMIT.default}, at most ${LISTING_LIMIT.max}).`,
    tag: "Marketplace",
    auth: "public",
    http: { method: "GET", path: "/api/marketplace/listings", cache: CACHE.short },
    input: { query: listingsQuerySchema },
    output: listingsResponseSchema,
    handler: async (q) => {
      const page = await listProducts(q);
      return {
        products: page.rows.map(toListingProduct),
        total: page.total,
        page: page.page,
        limit: page.limit,
        pages: page.pages,
        next_page: page.page < page.pages ? page.page + 1 : null,
      };
    },
    tools: [
      {
        name: "browse_marketplace",
        title: "Browse the marketplace",
        layer: 2,
        description: `Search and browse software listed on the marketplace (audio plugins, desktop apps, game assets, 3D/VFX, developer tools, creative tools). Returns products with price, platforms, seat limits and trial availability, a page at a time: \`total\` products match, \`pages\` pages of \`limit\`; call again with \`page: next_page\` until \`next_page\` is null to see them all. Sort by relevance (best match first: the default with a query), newest (the default without one), popular, rating (top rated), price_asc or price_desc. The search forgives: word endings (mixing finds mix), British and American spellings (colour, color) and a typo in a word.`,
        args: z.object({
          query: z.string().max(SEARCH_MAX_LENGTH).optional().describe("Free-text search"),
          category: z.enum(CATEGORIES).optional(),
          sort: z
            .enum(LISTING_SORTS)
            .optional()
            .describe(`${LISTING_SORTS.join(", ")}; without it, relevance when there is a query, else newest`),
          page: z.int().min(1).max(MAX_PAGE).default(1).describe("Which page, from 1; the answer's next_page names the next one"),
          limit: z
            .int()
            .min(1)
            .max(BROWSE_LIMIT.max)
            .default(BROWSE_LIMIT.default)
            .describe(`How many products a page holds, 1 to ${BROWSE_LIMIT.max}; page for more`),
        }),
        toInput: (a) =>
          listingsQuerySchema.parse({
            search: a.query,
            category: a.category,
            sort: a.sort,
            page: a.page,
            limit: a.limit,
          }),
        text: (out) => {
          const lines = out.products.map(
            (p) =>
              `- ${p.name} (${p.id}) by ${p.developer}: ${p.price_display}, ${p.category}, up to ${p.max_machines} machine(s)${p.trial_available ? `, ${p.trial_days}-day trial` : ""}. ${p.tagline}`,
          );
          const from = (out.page - 1) * out.limit + 1;
          const shown = out.products.length
            ? `showing ${from}–${from + out.products.length - 1} (page ${out.page} of ${out.pages})`
            : `page ${out.page} of ${out.pages} is empty`;
          const next =
            out.next_page !== null
              ? `More: call browse_marketplace again with the same arguments and page: ${out.next_page}.`
              : "This is the last page.";
          return [`${out.total} product(s) match; ${shown}.`, ...lines, next].join("\n");
        },
      },
    ],
  }),
  operation({
    id: "getProduct",
    summary: "Product details",
    description:
      "One listed product with developer info, images, pricing, system requirements, demo links, update policy and latest version. Unknown and unlisted products are 404.",
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
        description:
          "Full details of one product: description, developer, images, pricing, platforms, compatibility, seat model and trial, system requirements, demo links, which updates a license includes (update_policy, update_days) the latest published version (latest_version; list_releases has the changelog and files) and the rating from verified-purchase reviews (rating: average and count; list_product_reviews has the reviews).",
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
