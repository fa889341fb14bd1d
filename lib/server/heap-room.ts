import { getHeapStatistics } from "node:v8";

/** Live heap of an instance that has served every kind of request, without its license cache (docs/benchmarks.md). */
const BASE_LIVE_HEAP_MB = 100;
/**
 * Heap one cached license takes (a license with one machine: 2,134 bytes, measured by filling a LicenseCache with
 * 100,000 of them and comparing the heap after a full collection), rounded up.
 */
const CACHE_ENTRY_BYTES = 2_200;
/** The share of the heap ceiling the live heap may fill before collections come too often (and the ceiling too close). */
const ROOM = 0.7;

/**
 * Whether this process's heap ceiling has room for its license cache once full. `npm start` runs the server with a
 * 512 MB ceiling (scripts/server-bundle.mjs says why); a larger LICENSE_CACHE_SIZE needs a larger one, and an instance
 * that finds out by running out of heap under load fails at the worst time. Returns the advice to log at start, or
 * undefined when there is room.
 */
export function heapRoomAdvice(cacheEntries: number, ceilingBytes = getHeapStatistics().heap_size_limit): string | undefined {
  const needMb = BASE_LIVE_HEAP_MB + (cacheEntries * CACHE_ENTRY_BYTES) / 2 ** 20;
  const ceilingMb = ceilingBytes / 2 ** 20;
  if (needMb <= ROOM * ceilingMb) return undefined;
  const suggested = Math.ceil(needMb / ROOM / 64) * 64;
  return (
    `LICENSE_CACHE_SIZE=${cacheEntries} needs about ${Math.round(needMb)} MB of heap once the cache is full, more than ` +
    `${ROOM * 100} % of this process's ${Math.round(ceilingMb)} MB ceiling: set NODE_OPTIONS=--max-old-space-size=${suggested} ` +
    `(npm start passes it on) or lower LICENSE_CACHE_SIZE.`
  );
}
