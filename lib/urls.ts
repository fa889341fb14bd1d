import { env } from "./env.ts";

/** An absolute URL on this deployment for a path, or the URL itself when it is already absolute. */
export function absoluteUrl(pathOrUrl: string): string {
  if (/^https?:\/\//i.test(pathOrUrl)) return pathOrUrl;
  return `${env().BASE_URL}${pathOrUrl.startsWith("/") ? "" : "/"}${pathOrUrl}`;
}

/** Paths of the pages and endpoints other documents link to. */
export const paths = {
  mcp: "/api/mcp",
  openapi: "/openapi.json",
  catalog: "/api/catalog",
  tools: "/api/tools",
  discover: "/api/discover",
  terms: "/api/terms",
  product: (id: string) => `/products/${encodeURIComponent(id)}`,
  checkout: (productId: string) => `/products/${encodeURIComponent(productId)}#buy`,
  download: (productId: string) => `/downloads/${encodeURIComponent(productId)}`,
  developer: (developerId: string) => `/?developer=${encodeURIComponent(developerId)}`,
} as const;
