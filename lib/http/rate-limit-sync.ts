import { getDb, dbEngine } from "../db.ts";
import { rateLimiter, type SharedCount } from "./rate-limit.ts";

/** Adds increments to the shared buckets in one statement and returns the totals (PostgreSQL and SQLite ≥ 3.35 alike). */
export async function storeCounts(counts: SharedCount[]): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  const db = getDb();
  const pg = dbEngine() === "postgresql";
  for (let i = 0; i < counts.length; i += 300) {
    const chunk = counts.slice(i, i + 300);
    const values = chunk.map((_, j) => (pg ? `($${j * 3 + 1}, $${j * 3 + 2}, $${j * 3 + 3})` : "(?, ?, ?)")).join(", ");
    const params = chunk.flatMap((c) => [c.key, c.increment, new Date(c.resetAt)]);
    const rows = await db.$queryRawUnsafe<Array<{ key: string; count: number | bigint }>>(
      `INSERT INTO "RateLimitBucket" ("key", "count", "resetAt") VALUES ${values}
       ON CONFLICT ("key") DO UPDATE SET "count" = "RateLimitBucket"."count" + excluded."count"
       RETURNING "key", "count"`,
      ...params,
    );
    for (const r of rows) totals.set(r.key, Number(r.count));
  }
  return totals;
}

interface Loop {
  timer?: NodeJS.Timeout;
  running: boolean;
  lastCleanup: number;
}
const KEY = Symbol.for("indie-license-market.rate-limit-sync");
const g = globalThis as unknown as Record<symbol, Loop | undefined>;

/**
 * Shares rate-limit counts between instances every second (PostgreSQL deployments; SQLite serves one process).
 * Old buckets are deleted once a minute.
 */
export function startRateLimitSync(intervalMs = 1_000): () => void {
  const loop = (g[KEY] ??= { running: false, lastCleanup: 0 });
  if (loop.timer) return () => stopRateLimitSync();
  loop.timer = setInterval(() => {
    if (loop.running) return;
    loop.running = true;
    void (async () => {
      try {
        await rateLimiter().sync(storeCounts);
        if (Date.now() - loop.lastCleanup > 60_000) {
          loop.lastCleanup = Date.now();
          await getDb().rateLimitBucket.deleteMany({ where: { resetAt: { lt: new Date() } } });
        }
      } catch (error) {
        console.error("sharing rate-limit counts failed:", (error as Error).message);
      } finally {
        loop.running = false;
      }
    })();
  }, intervalMs);
  loop.timer.unref();
  return () => stopRateLimitSync();
}

function stopRateLimitSync(): void {
  const loop = g[KEY];
  if (loop?.timer) clearInterval(loop.timer);
  if (loop) loop.timer = undefined;
}
