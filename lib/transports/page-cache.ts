import type { IncomingMessage, ServerResponse } from "node:http";
import { contentVersion } from "../cache/content-version.ts";
import { env } from "../env.ts";
import { CATEGORIES } from "../marketplace/constants.ts";
import { clearReadCache } from "../cache/read-cache.ts";
import { ALL_SORTS, SEARCH_MAX_LENGTH } from "../marketplace/schemas.ts";
import { blankControlCharacters } from "../http/input.ts";
import { deflateParts, gzipJoin } from "./gzip-join.ts";
import { requestIdFrom } from "../http/respond.ts";
import { newNonce } from "../http/security-headers.ts";

/**
 * Storefront pages and the catalog served from memory in front of Next (server.ts), rendered once per content
 * version. The home page (plain, or with only a category, sort or page), product pages, developer pages and
 * `/api/catalog` are cached for anonymous requests: no cookie (a signed-in header, a refilled Buy form), no
 * Authorization, no Next router request (RSC payloads vary by header). Only a complete 200 without Set-Cookie is
 * kept. Searches of the home page are kept too, but apart: at most MAX_SEARCH_ENTRIES of them, the oldest going first,
 * and they leave first when the cache is over its budget, so distinct queries (junk included) only ever push out
 * other searches, never the shared pages.
 *
 * Freshness: an entry carries the content version (lib/cache/content-version.ts) read when its request began, and is
 * served only while the database still holds that version, read again for every request. Triggers raise the version
 * on every write to what these pages show, on any instance, so the next request after a change renders anew
 * everywhere. The same check clears this instance's marketplace read cache (lib/cache/read-cache.ts), so a
 * re-render never reads another instance's stale listing.
 *
 * Security: a page's Content-Security-Policy carries a per-response nonce. The cached HTML is kept split at its nonce,
 * and each hit gets a fresh nonce in the markup and the header, as a render would. Pages are rendered without
 * compression (the request's Accept-Encoding is withheld from Next) so the markup can be rewritten. For clients that
 * accept gzip, the parts are compressed once when the page is stored and a hit joins them around the new nonce
 * (lib/transports/gzip-join.ts) instead of compressing the page again.
 */

interface Entry {
  version: number;
  status: number;
  headers: Record<string, string | string[]>;
  /** The body split at the render's nonce (one part when it has none), and the CSP split the same way. */
  parts: Buffer[];
  /** The parts deflated on their own, for gzipJoin; null for a body too small to be worth compressing. */
  deflated: Buffer[] | null;
  csp: string[] | null;
  /** Whether the render carried an X-Request-Id (API answers do), which each hit then gets afresh. */
  requestId: boolean;
  bytes: number;
}

interface State {
  entries: Map<string, Entry>;
  bytes: number;
  /** The content version the entries belong to (null: not read yet, or unreadable). */
  seen: number | null;
}
const KEY = Symbol.for("indie-license-market.page-cache");
const g = globalThis as unknown as Record<symbol, State | undefined>;
const state = (): State => (g[KEY] ??= { entries: new Map<string, Entry>(), bytes: 0, seen: null });
const MAX_ENTRY_BYTES = 2 * 1024 * 1024;
const MAX_ENTRIES = 2_000;
/** Searches kept at once (a popular "reverb" is served from memory; the 101st distinct query pushes out the oldest). */
export const MAX_SEARCH_ENTRIES = 100;

/** Response headers that belong to one exchange, not to the page. */
const PER_EXCHANGE = new Set([
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "x-page-cache",
  "x-request-id",
]);
/** Set on every answer by the front door before the page is served (lib/transports/cors.ts), not kept with the page. */
const isCors = (name: string) => name.startsWith("access-control-");
const ROUTER_HEADERS = ["rsc", "next-router-state-tree", "next-router-prefetch", "next-router-segment-prefetch", "next-action", "authorization"];
/**
 * A listing's query that may be cached, canonical (parameters sorted), or null: only a known category, a known sort
 * and a page number up to MAX_CACHED_PAGE, each at most once, and on the home page a search as the page reads it
 * (parseBrowseQuery: trimmed, no control characters, at most SEARCH_MAX_LENGTH). Anything else (an unknown category,
 * page 4711, `page=01`, ` reverb`) goes to Next uncached, so junk queries cannot fill the cache with one entry per
 * distinct spelling of the same page; distinct searches are bounded apart (MAX_SEARCH_ENTRIES).
 */
const MAX_CACHED_PAGE = 50;
// A Map, not an object: a parameter named `__proto__` or `constructor` must find nothing.
const LISTING_VALUES = new Map<string, (v: string) => boolean>([
  ["category", (v) => (CATEGORIES as readonly string[]).includes(v)],
  ["sort", (v) => (ALL_SORTS as readonly string[]).includes(v)],
  ["page", (v) => /^[1-9][0-9]?$/.test(v) && Number(v) <= MAX_CACHED_PAGE],
]);

const isSearch = (v: string) => v !== "" && v.length <= SEARCH_MAX_LENGTH && v === v.trim() && blankControlCharacters(v) === v;

function listingQuery(query: string, searchable: boolean): string | null {
  if (query === "") return "";
  const params = new URLSearchParams(query);
  const names = [...params.keys()];
  if (new Set(names).size !== names.length) return null;
  for (const [name, value] of params) {
    const ok = name === "q" ? searchable && isSearch(value) : LISTING_VALUES.get(name)?.(value);
    if (!ok) return null;
  }
  params.sort();
  return `?${params.toString()}`;
}

/** The cache key of a request that may be served from cache, or null. */
export function pageCacheKey(req: IncomingMessage): string | null {
  if (req.method !== "GET" && req.method !== "HEAD") return null;
  if (req.headers.cookie !== undefined) return null;
  for (const h of ROUTER_HEADERS) if (req.headers[h] !== undefined) return null;
  const url = req.url ?? "/";
  if (url.length > 300) return null;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? "" : url.slice(q + 1);
  if (/^\/(products|developers)\/[A-Za-z0-9._~-]+$/.test(path)) return query === "" ? path : null;
  if (path !== "/" && path !== "/api/catalog") return null;
  const listing = listingQuery(query, path === "/");
  return listing === null ? null : path + listing;
}

/** Whether a cache key is a search's (its query has a `q`: keys are canonical, see pageCacheKey). */
const isSearchKey = (key: string) => /[?&]q=/.test(key);

/**
 * Reads the content version for a request that reaches Next, and forgets this instance's caches when it changed.
 * Returns the version, or null when it cannot be read (then nothing is served from or stored in the cache).
 */
async function currentVersion(): Promise<number | null> {
  const version = await contentVersion();
  const s = state();
  if (version !== s.seen) {
    clearReadCache();
    s.entries.clear();
    s.bytes = 0;
    s.seen = version;
  }
  return version;
}

function acceptsGzip(req: IncomingMessage): boolean {
  const accept = req.headers["accept-encoding"];
  return typeof accept === "string" && /\bgzip\b(?!;q=0(\.0+)?\b)/i.test(accept);
}

/** Bodies up to this size are sent as they are: gzip would save little. */
const MIN_GZIP_BYTES = 1024;

function serveHit(req: IncomingMessage, res: ServerResponse, entry: Entry): void {
  const headers: Record<string, string | string[]> = { ...entry.headers, "x-page-cache": "hit" };
  // Every answer has its own request id, as a render would (the client's own, when it sent a well-formed one).
  if (entry.requestId) headers["x-request-id"] = requestIdFrom(req.headers["x-request-id"] as string | undefined);
  const nonce = entry.parts.length > 1 || entry.csp ? newNonce() : "";
  if (entry.csp) headers["content-security-policy"] = entry.csp.join(nonce);
  const between = Buffer.from(nonce);
  let body: Buffer;
  if (entry.deflated && acceptsGzip(req)) {
    body = gzipJoin(entry.parts, entry.deflated, between);
    headers["content-encoding"] = "gzip";
  } else {
    body =
      entry.parts.length === 1 ? (entry.parts[0] as Buffer) : Buffer.concat(entry.parts.flatMap((part, i) => (i === 0 ? [part] : [between, part])));
  }
  headers["content-length"] = String(body.length);
  res.writeHead(entry.status, headers);
  res.end(req.method === "HEAD" ? undefined : body);
}

/** Keeps a copy of what Next writes, and stores it once the response has finished complete. */
function capture(req: IncomingMessage, res: ServerResponse, key: string, version: number): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let headArg: Record<string, string | string[]> = {};
  const toBuffer = (chunk: unknown, encoding?: unknown): Buffer | null =>
    Buffer.isBuffer(chunk)
      ? chunk
      : chunk instanceof Uint8Array
        ? Buffer.from(chunk)
        : typeof chunk === "string"
          ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
          : null;
  const keep = (chunk: unknown, encoding?: unknown) => {
    const b = toBuffer(chunk, encoding);
    if (!b || size > MAX_ENTRY_BYTES) return;
    size += b.length;
    chunks.push(b);
  };
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = (...args: unknown[]) => {
    const headers: unknown = args.find((a, i) => i > 0 && a && typeof a === "object" && !Array.isArray(a));
    if (headers) headArg = headers as Record<string, string | string[]>;
    return writeHead(...args);
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  res.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  }) as ServerResponse["write"];
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return end(...args);
  }) as ServerResponse["end"];
  res.once("finish", () => {
    if (req.method !== "GET" || res.statusCode !== 200 || size > MAX_ENTRY_BYTES) return;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries({ ...res.getHeaders(), ...headArg })) {
      const lower = name.toLowerCase();
      if (value === undefined || PER_EXCHANGE.has(lower) || isCors(lower)) continue;
      headers[lower] = Array.isArray(value) ? value.map(String) : String(value);
    }
    if (headers["set-cookie"] !== undefined || headers["content-encoding"] !== undefined) return;
    const body = Buffer.concat(chunks).toString("utf8");
    const csp = typeof headers["content-security-policy"] === "string" ? headers["content-security-policy"] : undefined;
    const nonce = csp ? /'nonce-([A-Za-z0-9+/=_-]{16,})'/.exec(csp)?.[1] : undefined;
    // Kept as bytes: a hit copies them around the new nonce without encoding the page again.
    const parts = (nonce ? body.split(nonce) : [body]).map((part) => Buffer.from(part));
    const bytes = parts.reduce((sum, part) => sum + part.length, 0);
    const deflated = bytes > MIN_GZIP_BYTES ? deflateParts(parts) : null;
    const entry: Entry = {
      version,
      status: 200,
      headers,
      parts,
      deflated,
      csp: nonce && csp ? csp.split(nonce) : null,
      requestId: res.hasHeader("x-request-id") || Object.keys(headArg).some((h) => h.toLowerCase() === "x-request-id"),
      bytes: bytes + (deflated?.reduce((sum, part) => sum + part.length, 0) ?? 0),
    };
    const s = state();
    // Rendered under a version that is no longer current: it would never be served.
    if (s.seen !== version) return;
    const old = s.entries.get(key);
    if (old) s.bytes -= old.bytes;
    s.entries.delete(key);
    s.entries.set(key, entry);
    s.bytes += entry.bytes;
    const budget = env().PAGE_CACHE_MB * 1024 * 1024;
    const drop = (k: string, e: Entry) => {
      s.entries.delete(k);
      s.bytes -= e.bytes;
    };
    if (isSearchKey(key)) {
      let searches = 0;
      for (const k of s.entries.keys()) if (isSearchKey(k)) searches++;
      for (const [k, e] of s.entries) {
        if (searches <= MAX_SEARCH_ENTRIES) break;
        if (isSearchKey(k)) {
          drop(k, e);
          searches--;
        }
      }
    }
    // Over the budget: searches leave first, oldest first, then the other pages.
    const over = () => s.bytes > budget || s.entries.size > MAX_ENTRIES;
    for (const [k, e] of s.entries) {
      if (!over()) break;
      if (isSearchKey(k)) drop(k, e);
    }
    for (const [k, e] of s.entries) {
      if (!over()) break;
      drop(k, e);
    }
  });
}

/**
 * Called by server.ts for every GET or HEAD that goes to Next: serves a cached page when it is current (and returns
 * true), or arranges for the rendered page to be kept (and returns false: the caller hands the request to Next).
 */
export async function servePageFromCache(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  if (env().PAGE_CACHE_MB <= 0) return false;
  const key = pageCacheKey(req);
  const version = await currentVersion();
  if (key === null || version === null) return false;
  const entry: Entry | undefined = state().entries.get(key);
  if (entry && entry.version === version) {
    serveHit(req, res, entry);
    return true;
  }
  // Rendered without compression, so the copy can be rewritten per hit; this response goes out uncompressed.
  delete req.headers["accept-encoding"];
  res.setHeader("x-page-cache", "miss");
  capture(req, res, key, version);
  return false;
}
