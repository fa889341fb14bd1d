import { env } from "./env.ts";

/** An absolute URL on this deployment for a path, or the URL itself when it is already absolute. */
export function absoluteUrl(pathOrUrl: string): string {
  if (/^https?:\/\//i.test(pathOrUrl)) return pathOrUrl;
  return `${env().BASE_URL}${pathOrUrl.startsWith("/") ? "" : "/"}${pathOrUrl}`;
}

/**
 * An image this site serves: an upload (/uploads/<content hash>, what a seller's file or image URL is stored as) or
 * the demo catalogue's bundled icons and screenshots.
 */
export const SITE_IMAGE_PATH = /^\/(?:uploads|icons|screens)\/[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** What shows in place of a product icon that is not this site's (see productIconPath). */
const PLACEHOLDER_ICON_PATH = "/icons/placeholder.svg";

/**
 * The path of an image this site serves, from a stored value or an absolute URL on this deployment (lib hands those
 * out); null for anything else. The one test of whether an image may be shown: a product saved before images given
 * by URL were fetched and stored may still hold another site's address, and a page must never make a visitor's
 * browser load it (the page policy's img-src allows this site only).
 */
export function siteImagePath(value: string): string | null {
  if (SITE_IMAGE_PATH.test(value)) return value;
  if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) return null;
  const url = new URL(value);
  if (url.origin !== new URL(env().BASE_URL).origin || url.search || url.hash) return null;
  return SITE_IMAGE_PATH.test(url.pathname) ? url.pathname : null;
}

/** A product icon's path to show: its own when it is this site's, else the placeholder. */
export function productIconPath(value: string): string {
  return siteImagePath(value) ?? PLACEHOLDER_ICON_PATH;
}

/** A product's screenshots to show: those this site serves, as paths; another site's are left out. */
export function productImagePaths(values: readonly string[]): string[] {
  return values.flatMap((v) => siteImagePath(v) ?? []);
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
  /** A seller's checkout link: the page that sells one product with the link's presets. */
  checkoutLink: (developerId: string, slug: string) => `/developers/${encodeURIComponent(developerId)}/buy/${encodeURIComponent(slug)}`,
  /** The buyer's own page: licenses, machines, subscriptions. */
  myLicenses: "/licenses",
} as const;

/**
 * The buy button's overlay (lib/embed/framing.ts): its entry page, and the query parameter that carries the framing
 * page's origin through the checkout pages reached from it, so they answer in embed mode too.
 */
export const EMBED_ENTRY_PATH = "/embed/checkout";
export const EMBED_PARAM = "embed";

/** A page path with the framing origin carried on (`?embed=<origin>`), or unchanged outside the overlay. */
export function embedPath(path: string, origin: string | null | undefined): string {
  if (!origin) return path;
  return `${path}${path.includes("?") ? "&" : "?"}${EMBED_PARAM}=${encodeURIComponent(origin)}`;
}

/** An `embed` parameter when it is an origin and nothing else (what the checkout's routes pass on unchanged), or null. */
export function embedParamOf(value: string | null | undefined): string | null {
  if (!value || value.length > 300 || !URL.canParse(value)) return null;
  return new URL(value).origin === value ? value : null;
}

/** Whether an absolute URL is on this deployment (our own test-mode checkout, not Stripe's page). */
export function isOwnUrl(url: string): boolean {
  return URL.canParse(url) && new URL(url).origin === new URL(env().BASE_URL).origin;
}
