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
  /** The human pages next to the machine documents: the marketplace terms (fees at #fees), refunds, privacy, contact. */
  termsPage: "/terms",
  refundsPage: "/refunds",
  privacyPage: "/privacy",
  contactPage: "/contact",
  /** Where a seller fills in what a paid listing needs (the profile form's support and refunds group). */
  profileSupport: "/dashboard/profile#support",
  /** The signed receipt: the page for people (?key=…) and the JSON for programs (GET ?key=…, POST to verify). */
  receiptPage: (key: string) => `/receipt?key=${encodeURIComponent(key)}`,
  receiptVerify: "/api/receipt",
  product: (id: string) => `/products/${encodeURIComponent(id)}`,
  checkout: (productId: string) => `/products/${encodeURIComponent(productId)}#buy`,
  download: (productId: string) => `/downloads/${encodeURIComponent(productId)}`,
  developer: (developerId: string) => `/developers/${encodeURIComponent(developerId)}`,
} as const;
