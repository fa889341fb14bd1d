import { VERSIONS } from "../versions.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { CATEGORIES } from "./constants.ts";
import { listProducts } from "./list-products.ts";
import { CATALOG_PAGE_SIZE, CATALOG_SORTS, type CatalogQuery } from "./schemas.ts";
import { toCatalogProduct } from "./serialize.ts";
import { env } from "../env.ts";

function catalogUrl(q: CatalogQuery, page: number): string {
  const params = new URLSearchParams();
  if (q.category) params.set("category", q.category);
  if (q.search) params.set("search", q.search);
  if (q.sort !== "newest") params.set("sort", q.sort);
  params.set("page", String(page));
  return absoluteUrl(`${paths.catalog}?${params}`);
}

/** The capability catalog: listed products with the metadata agents need to choose and buy. */
export async function getCatalog(q: CatalogQuery) {
  const result = await listProducts({ ...q, limit: CATALOG_PAGE_SIZE });
  const hasNext = q.page * CATALOG_PAGE_SIZE < result.total;
  return {
    catalog_version: VERSIONS.catalog,
    issuer: env().BASE_URL,
    generated_at: new Date().toISOString(),
    total: result.total,
    _oacs: {
      version: VERSIONS.oacs,
      spec: absoluteUrl("/oacs"),
      discovery: absoluteUrl(paths.discover),
      catalog: absoluteUrl(paths.catalog),
    },
    products: result.rows.map(toCatalogProduct),
    _agent_howto: {
      browse: `GET ${absoluteUrl(paths.catalog)}?category=<category>&search=<words>&sort=<${CATALOG_SORTS.join("|")}>&page=<n>, or the MCP tool browse_marketplace.`,
      details: `GET ${absoluteUrl("/api/marketplace/product/")}<id>, or the MCP tool get_product_details.`,
      purchase: `POST ${absoluteUrl("/api/checkout/create")} with {"product_id","buyer_email","agent_id"}; open the returned url to pay. MCP: agent_checkout.`,
      activate: `POST ${absoluteUrl("/activate")} with {"license_key","machine_fingerprint","plugin_id"} from the licensed app.`,
      verify: `GET ${absoluteUrl("/api/receipt")}?key=<license key> for a signed receipt; POST it back to ${absoluteUrl("/api/receipt")} to verify.`,
      paging: `${CATALOG_PAGE_SIZE} products per page; follow _links.next until it is null.`,
    },
    filters: {
      categories: [...CATEGORIES],
      sort_options: [...CATALOG_SORTS],
      current: { category: q.category ?? null, search: q.search || null, sort: q.sort, page: q.page },
    },
    _links: {
      self: catalogUrl(q, q.page),
      next: hasNext ? catalogUrl(q, q.page + 1) : null,
      mcp: absoluteUrl(paths.mcp),
      tools: absoluteUrl(paths.tools),
      openapi: absoluteUrl(paths.openapi),
      discover: absoluteUrl(paths.discover),
      terms: absoluteUrl(paths.terms),
    },
  };
}
