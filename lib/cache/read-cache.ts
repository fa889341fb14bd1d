import { env } from "../env.ts";

/**
 * A short-lived cache of marketplace reads (listings, catalog pages, category counts): browsing is read-heavy and
 * the same few pages are asked for again and again. Any write to a product through this process's database client
 * clears it at once (lib/db.ts), and so does a developer profile change (lib/selling/developer-profile.ts: the
 * developer's name is in every listing); other instances' writes are seen within LISTING_CACHE_TTL_MS.
 */

interface Entry {
  at: number;
  value: Promise<unknown>;
}

const KEY = Symbol.for("indie-license-market.read-cache");
const g = globalThis as unknown as Record<symbol, Map<string, Entry> | undefined>;
const entries = () => (g[KEY] ??= new Map<string, Entry>());
const MAX_ENTRIES = 1_000;

export function cachedRead<T>(key: string, load: () => Promise<T>, now = Date.now()): Promise<T> {
  const ttl = env().LISTING_CACHE_TTL_MS;
  if (ttl <= 0) return load();
  const map = entries();
  const hit = map.get(key);
  if (hit && now - hit.at < ttl) return hit.value as Promise<T>;
  const value = load();
  map.set(key, { at: now, value });
  // A failed read is not kept.
  value.catch(() => map.get(key)?.value === value && map.delete(key));
  const oldest = map.keys().next();
  if (map.size > MAX_ENTRIES && !oldest.done) map.delete(oldest.value);
  return value;
}

export function clearReadCache(): void {
  entries().clear();
}
