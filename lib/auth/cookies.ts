import { env } from "../env.ts";
import { addressedOrigin } from "../http/host.ts";

/** Session cookies: HTTP-only, SameSite=Lax (no cross-site POSTs carry them), Secure whenever the site is HTTPS. */
export function sessionCookie(name: string, value: string, maxAgeSeconds: number): string {
  const secure = env().BASE_URL.startsWith("https://") ? "; Secure" : "";
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

export function clearedCookie(name: string): string {
  return sessionCookie(name, "", 0);
}

export function readCookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}

/**
 * Mutating form posts must come from our own pages (defence in depth next to SameSite cookies): the Origin must be
 * BASE_URL's or the one the request addressed by its (checked) Host, never Next's internal `request.url`.
 */
export function sameOrigin(request: Request): boolean {
  return originAllowed(request.headers, addressedOrigin(request.headers));
}

/**
 * The stricter check for the sign-in confirm POST: Fetch Metadata decides — `Sec-Fetch-Site`, which no page can set,
 * must be "same-origin" (it holds even where a `no-referrer` policy makes browsers send `Origin: null` for our own
 * pages). Without it (older browsers, non-browser clients) the Origin check above applies, and "null" fails it.
 */
export function sameOriginFetch(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  return site === null ? sameOrigin(request) : site === "same-origin";
}

/** The same check on a request's headers and the origin it addressed. */
export function originAllowed(headers: Headers, requestOrigin: string): boolean {
  const origin = headers.get("origin");
  if (!origin) return true; // non-browser clients and older browsers send none; SameSite still applies
  return origin === new URL(env().BASE_URL).origin || origin === requestOrigin;
}
