/**
 * The browser-facing security headers: a Content-Security-Policy with a fresh nonce for every HTML page (Next.js puts
 * the nonce on its own scripts, see proxy.ts), and the same framing, sniffing, referrer, permission and transport
 * rules on every other answer. Pure functions of their inputs, so a unit test can pin each rule.
 */

/** Where Stripe's hosted Checkout lives: the Buy form's POST to /checkout/start answers with a 303 to it. */
export const STRIPE_CHECKOUT_ORIGIN = "https://checkout.stripe.com";

export interface SecurityContext {
  /** The deployment's public URL (BASE_URL); https turns on HSTS and upgrade-insecure-requests. */
  baseUrl: string;
  /** `next dev`: React needs eval for its error overlays and server stacks. */
  development: boolean;
}

/** Paths whose answers are data or files, never one of our HTML pages: they get the locked-down policy. */
const NON_PAGE =
  /^\/(?:api|\.well-known|uploads|downloads|_next)(?:\/|$)|^\/(?:openapi\.json|llms\.txt|llms-full\.txt|oacs|robots\.txt|sitemap\.xml|icon\.svg|favicon\.ico|buy-button\.js)$/;
/**
 * Pages whose URL is itself a capability (a checkout session id, a sign-in token): no Referer at all leaves the site
 * from them. Not `no-referrer`: that also turns the Origin of their own same-origin form posts into "null", and the
 * sign-in and Server Action checks then refuse them.
 */
const SAME_ORIGIN_REFERRER = /^\/(?:checkout|auth|dev\/mailbox)(?:\/|$)/;

export function isPagePath(pathname: string): boolean {
  return !NON_PAGE.test(pathname);
}

function isHttps(baseUrl: string): boolean {
  return baseUrl.toLowerCase().startsWith("https:");
}

/** 128 random bits, base64: unguessable and fresh for each response. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

const join = (directives: Array<string | false>) => directives.filter((d): d is string => d !== false).join("; ");

/**
 * The policy of an HTML page. Scripts run only with this response's nonce ('strict-dynamic' lets those scripts load
 * Next's further chunks); styles allow 'unsafe-inline' because React renders style attributes (a nonce cannot cover
 * those) — a style can restyle a page but not run code. Images come from this site only (and data:/blob: URLs a page
 * makes itself): a seller's icon and screenshots are uploads, and one given by URL is fetched once and stored as an
 * upload (lib/selling/uploads.ts), so no other host learns who views a product.
 */
export function pageContentSecurityPolicy(nonce: string, ctx: SecurityContext): string {
  const https = isHttps(ctx.baseUrl);
  return join([
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${ctx.development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    `form-action 'self' ${STRIPE_CHECKOUT_ORIGIN}`,
    "frame-ancestors 'none'",
    https && "upgrade-insecure-requests",
  ]);
}

/** The policy of everything else (JSON, files, uploads): nothing may run or load, nothing may frame it. */
export const NON_PAGE_CONTENT_SECURITY_POLICY = join([
  "default-src 'none'",
  // The browser's own viewer for a JSON or text document styles it inline.
  "style-src 'unsafe-inline'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
]);

const PERMISSIONS_POLICY = [
  "accelerometer",
  "camera",
  "display-capture",
  "geolocation",
  "gyroscope",
  "hid",
  "magnetometer",
  "microphone",
  "midi",
  "payment",
  "serial",
  "usb",
]
  .map((feature) => `${feature}=()`)
  .join(", ");

/** HSTS: two years, subdomains included; only for an https deployment (on http the browser ignores it anyway). */
const HSTS = "max-age=63072000; includeSubDomains";

export type SecurityHeaders = {
  "Content-Security-Policy": string;
  "X-Frame-Options": string;
  "X-Content-Type-Options": string;
  "Referrer-Policy": string;
  "Permissions-Policy": string;
  "Strict-Transport-Security"?: string;
};

/** Every header for the answer to `pathname`; `nonce` is required for pages and ignored otherwise. */
export function securityHeaders(pathname: string, ctx: SecurityContext, nonce?: string): SecurityHeaders {
  const page = isPagePath(pathname);
  if (page && nonce === undefined) throw new Error("a page's policy needs a nonce");
  return {
    "Content-Security-Policy": page && nonce !== undefined ? pageContentSecurityPolicy(nonce, ctx) : NON_PAGE_CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": SAME_ORIGIN_REFERRER.test(pathname) ? "same-origin" : "strict-origin-when-cross-origin",
    "Permissions-Policy": PERMISSIONS_POLICY,
    ...(isHttps(ctx.baseUrl) ? { "Strict-Transport-Security": HSTS } : {}),
  };
}

/** The headers of a data answer that never passes through proxy.ts: server.ts's lean path (/validate, /activate, /deactivate, /health). */
export function dataSecurityHeaders(ctx: SecurityContext): SecurityHeaders {
  return securityHeaders("/api", ctx);
}

/**
 * The `frame-ancestors` sources of a page the buy button's overlay may frame (lib/embed/framing.ts): our own origin
 * (`'self'`, the dashboard's preview) and the seller's verified origins, or `'none'` when there are neither, as on
 * every other page.
 */
export function frameAncestorsSources(sources: { self: boolean; origins: readonly string[] }): string {
  const list = [...(sources.self ? ["'self'"] : []), ...sources.origins];
  return list.length ? list.join(" ") : "'none'";
}

/** A page policy with its `frame-ancestors` directive replaced (the rest untouched). */
export function withFrameAncestors(policy: string, sources: string): string {
  const directives = policy.split(";").map((d) => d.trim());
  const kept = directives.filter((d) => d !== "" && !/^frame-ancestors(\s|$)/i.test(d));
  return [...kept, `frame-ancestors ${sources}`].join("; ");
}

/**
 * X-Frame-Options beside such a policy. Browsers that know `frame-ancestors` ignore it, so it only speaks to those that
 * do not: DENY when nobody may frame the page, SAMEORIGIN when only our own pages may, and no header at all when
 * another origin may (X-Frame-Options cannot name one; sending DENY there would contradict the policy).
 */
export function frameOptionsFor(sources: { self: boolean; origins: readonly string[] }): string | null {
  if (sources.origins.length > 0) return null;
  return sources.self ? "SAMEORIGIN" : "DENY";
}
