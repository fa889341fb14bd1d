import { getDb } from "../db.ts";
import { env } from "../env.ts";
import { EMBED_ENTRY_PATH, EMBED_PARAM } from "../urls.ts";
import { verifiedOrigins } from "./origins.ts";

/**
 * Which pages the buy button's overlay may frame, and by whom. Every page of the site refuses framing
 * (`frame-ancestors 'none'`, lib/http/security-headers.ts); only the checkout pages the overlay shows, in embed mode,
 * name the product seller's verified origins instead, read from the database for each response, so an origin removed
 * or failing verification stops framing from the next response on:
 * - the overlay's entry page, `/embed/checkout?product=<id>&origin=<the page's origin>`;
 * - the checkout reached from it, `/checkout/<session>` with `?embed=<origin>` (the test-mode pay page), and its
 *   `/success` and `/cancelled` pages.
 * Our own origin may frame them only where the page says it opened them (`origin`/`embed` = BASE_URL's origin): the
 * dashboard's live preview of the button.
 * And `/embed/preview` (the preview itself) may be framed by our own pages only.
 */

const EMBED_PREVIEW_PATH = "/embed/preview";

const CHECKOUT_PAGE = /^\/checkout\/([A-Za-z0-9_-]{1,64})(?:\/(?:success|cancelled))?$/;

/** Who may frame a page: `self` for our own origin, and the listed origins; an empty list and no `self` is 'none'. */
export interface FrameSources {
  self: boolean;
  origins: string[];
}

const ownOrigin = () => new URL(env().BASE_URL).origin;

/** The seller's verified origins for a product, or none when it does not exist. */
async function originsOfProduct(productId: string): Promise<string[]> {
  const product = await getDb().product.findUnique({ where: { id: productId }, select: { developerId: true } });
  return product ? verifiedOrigins(product.developerId) : [];
}

async function originsOfCheckout(sessionId: string): Promise<string[]> {
  const order = await getDb().order.findUnique({ where: { id: sessionId }, select: { product: { select: { developerId: true } } } });
  return order ? verifiedOrigins(order.product.developerId) : [];
}

/** Whether a request's path and query may name an embeddable page: cheap, so every request can ask. */
export function maybeEmbeddable(url: string): boolean {
  return url.startsWith("/embed/") || (url.startsWith("/checkout/") && url.includes(`${EMBED_PARAM}=`));
}

/**
 * Who may frame the answer to this path and query, or null for every page that keeps the default (`'none'`). The
 * `origin` (entry page) or `embed` (checkout pages) parameter only decides whether our own origin may frame it (the
 * dashboard's preview); a third-party origin must be among the seller's verified origins, whatever the URL claims.
 */
export async function frameSourcesFor(url: string): Promise<FrameSources | null> {
  if (!maybeEmbeddable(url)) return null;
  const parsed = new URL(url, "http://x");
  const path = parsed.pathname;
  if (path === EMBED_PREVIEW_PATH) return { self: true, origins: [] };
  if (path === EMBED_ENTRY_PATH) {
    const product = parsed.searchParams.get("product");
    const self = parsed.searchParams.get("origin") === ownOrigin();
    if (!product || product.length > 64) return { self, origins: [] };
    return { self, origins: await originsOfProduct(product) };
  }
  const checkout = CHECKOUT_PAGE.exec(path);
  const embed = parsed.searchParams.get(EMBED_PARAM);
  if (!checkout?.[1] || !embed) return null;
  return { self: embed === ownOrigin(), origins: await originsOfCheckout(checkout[1]) };
}

/**
 * The origin the overlay's page said it has, when this product's seller verified it (or it is our own, for the
 * preview): the only target a checkout page posts its outcome to. Null otherwise: nothing is posted.
 */
export async function trustedEmbedOrigin(raw: string | undefined, by: { productId: string }): Promise<string | null> {
  if (!raw || raw.length > 300) return null;
  if (raw === ownOrigin()) return raw;
  const origins = await originsOfProduct(by.productId);
  return origins.includes(raw) ? raw : null;
}
