/**
 * The path Next renders a request under, set by proxy.ts on every request (a client's own copy is replaced), so
 * the root not-found page can say what was not found. A request for a missing record reaches Next under the
 * unmatched path missingPath(kind) (server.ts, lib/transports/page-guards.ts): Next renders only an unmatched URL's
 * 404 page in full without JavaScript, and that page is always the root one.
 */
export const REQUEST_PATH_HEADER = "x-request-path";

export type MissingKind = "product" | "checkout";

const MISSING_PREFIX = "/_missing/";

export function missingPath(kind: MissingKind): string {
  return `${MISSING_PREFIX}${kind}`;
}

/** The kind of record a 404 page is rendered for, from the request's headers; null for any other unknown address. */
export function missingKind(headers: Headers): MissingKind | null {
  const path = headers.get(REQUEST_PATH_HEADER) ?? "";
  if (!path.startsWith(MISSING_PREFIX)) return null;
  const kind = path.slice(MISSING_PREFIX.length);
  return kind === "product" || kind === "checkout" ? kind : null;
}
