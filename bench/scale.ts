/**
 * Cost as data grows: POST /validate, POST /activate (a new machine), catalog search and the seller's license list,
 * measured on the production build with 10 k, 100 k and 1 M licenses (each with one activation) and 10 k products,
 * on SQLite and PostgreSQL; and the database's size per million licenses.
 *
 *   npm run build && npm run bench:scale     (BENCH_SCALES=10000,100000,1000000, BENCH_ENGINES, BENCH_SECONDS, BENCH_PG_URL)
 *
 * The app runs in its own process with its license cache and page cache off (LICENSE_CACHE_TTL_MS=0, PAGE_CACHE_MB=0),
 * so every request reaches the database and the figures show what the queries cost as the tables grow; the query plans
 * themselves are checked by tests/integration/query-plans.test.ts. Appends one table to docs/benchmarks.md.
 */
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, existsSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { dropDatabase, freshDatabase } from "../e2e/support/servers.ts";
import { load, median, startApp, stopProcess, type Body, type LoadResult } from "./support.ts";

const SCALES = (process.env.BENCH_SCALES ?? "10000,100000,1000000").split(",").map(Number);
const ENGINES = (process.env.BENCH_ENGINES ?? "sqlite,postgresql").split(",") as Array<"sqlite" | "postgresql">;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const PRODUCTS = 10_000;
const SAMPLE = 2_000;
const PORT = 3906;
const CONNECTIONS = 32;
if (!existsSync(".next/BUILD_ID")) throw new Error("run `npm run build` first: the benchmark measures the production build");

/** What the database holds, written straight into it (the app's own writes would take hours for a million rows). */
interface Store {
  exec(sql: string, rows: unknown[][]): Promise<void>;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  size(): Promise<number>;
  close(): Promise<void>;
}

const iso = (d: Date) => d.toISOString().replace("Z", "+00:00");

function sqliteStore(path: string): Store {
  const db = new Database(path);
  db.pragma("busy_timeout = 30000");
  return {
    exec: (sql, rows) => {
      const stmt = db.prepare(sql);
      db.transaction(() => rows.forEach((r) => stmt.run(...r)))();
      return Promise.resolve();
    },
    query: <T>(sql: string, params: unknown[] = []) => Promise.resolve(db.prepare(sql.replace(/\$\d+/g, "?")).all(...params) as T[]),
    size: () => {
      db.pragma("wal_checkpoint(TRUNCATE)");
      return Promise.resolve(statSync(path).size);
    },
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
}

async function pgStore(url: string): Promise<Store> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return {
    exec: async (sql, rows) => {
      // Many rows per statement: $1…$n numbered per row.
      const width = rows[0]?.length ?? 0;
      for (let i = 0; i < rows.length; i += 1000) {
        const chunk = rows.slice(i, i + 1000);
        const values = chunk.map((_, r) => `(${Array.from({ length: width }, (_, k) => `$${r * width + k + 1}`).join(", ")})`).join(", ");
        await c.query(sql.replace(/VALUES \(.*\)$/s, `VALUES ${values}`), chunk.flat());
      }
    },
    query: async <T>(sql: string, params: unknown[] = []) => (await c.query(sql, params)).rows as T[],
    size: async () => Number((await c.query<{ n: string }>(`SELECT pg_database_size(current_database()) AS n`)).rows[0]!.n),
    close: () => c.end(),
  };
}

const keyOf = () =>
  randomBytes(8)
    .toString("hex")
    .toUpperCase()
    .replace(/(.{4})(?=.)/g, "$1-");

interface Row {
  engine: string;
  licenses: number;
  results: Record<string, LoadResult>;
  bytes: number;
}
const rows: Row[] = [];

for (const engine of ENGINES) {
  const sqlitePath = join(tmpdir(), `ilm-scale-${Date.now()}.db`);
  const pgName = `ilm_scale_${Date.now().toString(36)}`;
  const databaseUrl = engine === "sqlite" ? `file:${sqlitePath}` : await freshDatabase(PG_ADMIN, pgName);
  // The license and page caches off: every request is answered from the database.
  const app = await startApp(PORT, { DATABASE_URL: databaseUrl, LICENSE_CACHE_TTL_MS: "0", LISTING_CACHE_TTL_MS: "0", PAGE_CACHE_MB: "0" });
  const store = engine === "sqlite" ? sqliteStore(sqlitePath) : await pgStore(databaseUrl);
  const P = (sql: string) => (engine === "sqlite" ? sql.replace(/\$\d+/g, "?") : sql);
  try {
    const now = new Date();
    const stamp = engine === "sqlite" ? iso(now) : now;
    // 10 k products of one seller (its search rows written the way the app writes them, by lib/marketplace/search-index).
    const [seller] = await store.query<{ id: string }>(`SELECT id FROM "Developer" ORDER BY id LIMIT 1`);
    const words = ["reverb", "delay", "compressor", "synth", "invoice", "tracker", "sprite", "shader", "linter", "profiler"];
    const products = Array.from({ length: PRODUCTS }, (_, i) => [
      `scale-${i}`,
      `com.scale.p${i}`,
      seller!.id,
      `Scale ${words[i % words.length]} ${i}`,
      `A ${words[i % words.length]} for the scale benchmark, number ${i}.`,
      1000 + (i % 50) * 100,
      ["audio-plugins", "desktop-apps", "dev-tools", "game-assets"][i % 4],
      1_000_000,
      '["linux"]',
      "[]",
      "[]",
      "[]",
      "[]",
      "https://example.com/download",
      "/icons/tape-warmth.svg",
      stamp,
      stamp,
    ]);
    await store.exec(
      P(
        `INSERT INTO "Product" ("id", "pluginId", "developerId", "name", "description", "priceCents", "category", "maxMachines", "platforms", "compatibility", "inputs", "outputs", "images", "downloadUrl", "iconUrl", "createdAt", "updatedAt") VALUES (${Array.from({ length: 17 }, (_, k) => `$${k + 1}`).join(", ")})`,
      ),
      products,
    );
    process.env.DATABASE_URL = databaseUrl;
    const { resetEnv } = await import("../lib/env.ts");
    resetEnv(); // read DATABASE_URL again: the second engine's run reuses the modules the first one loaded
    const { syncProductSearch } = await import("../lib/marketplace/search-index.ts");
    const { getDb, disconnectDb } = await import("../lib/db.ts");
    for (let i = 0; i < PRODUCTS; i += 500) await syncProductSearch(getDb(), { productIds: products.slice(i, i + 500).map((p) => p[0] as string) });
    await disconnectDb();

    const all = await store.query<{ id: string; pluginId: string }>(`SELECT id, "pluginId" FROM "Product" WHERE status = 'active'`);
    const token = `ilmsk_${randomBytes(32).toString("base64url")}`;
    await store.exec(
      P(
        `INSERT INTO "SellerToken" ("id", "developerId", "name", "tokenHash", "prefix", "scopes", "createdBy", "createdAt") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      ),
      [["scale-token", seller!.id, "scale", createHash("sha256").update(token).digest("hex"), token.slice(0, 12), '["licenses"]', "bench", stamp]],
    );

    let have = 0;
    // Keys sampled evenly from every scale's new rows; each measurement uses SAMPLE of them spread over all.
    const pool: Body[] = [];
    for (const scale of SCALES) {
      // Top the licenses up to this scale, each with one activation, spread over every product.
      const lic: unknown[][] = [];
      const act: unknown[][] = [];
      const step = Math.max(1, Math.floor((scale - have) / SAMPLE));
      for (let i = have; i < scale; i++) {
        const p = all[i % all.length]!;
        const key = keyOf();
        const fp = createHash("sha256").update(`scale-${i}-${key}`).digest("hex");
        lic.push([`sl-${i}`, key, p.id, `buyer${i}@example.com`, 1_000_000, 1, engine === "sqlite" ? 1 : true, "complimentary", stamp, stamp]);
        act.push([`sa-${i}`, `sl-${i}`, fp, stamp]);
        if ((i - have) % step === 0) pool.push({ license_key: key, machine_fingerprint: fp, plugin_id: p.pluginId });
        if (lic.length === 50_000 || i === scale - 1) {
          await store.exec(
            P(
              `INSERT INTO "License" ("id", "key", "productId", "buyerEmail", "maxMachines", "activeMachines", "isActive", "source", "issuedAt", "updatedAt") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
            ),
            lic.splice(0),
          );
          await store.exec(P(`INSERT INTO "Activation" ("id", "licenseId", "fingerprint", "activatedAt") VALUES ($1, $2, $3, $4)`), act.splice(0));
        }
      }
      have = scale;
      if (engine === "postgresql") await store.query(`ANALYZE`);
      // The sample spans the whole table: keys written early and late.
      const sample = Array.from(
        { length: Math.min(SAMPLE, pool.length) },
        (_, k) => pool[Math.floor((k * pool.length) / Math.min(SAMPLE, pool.length))]!,
      );
      const url = `http://127.0.0.1:${PORT}`;
      let v = 0;
      let n = 0;
      const auth = { authorization: `Bearer ${token}` };
      const partial = sample[0]!.license_key.slice(5, 9);
      const scenarios: Record<string, (s: number) => Promise<LoadResult>> = {
        validate: (s) =>
          load({
            url,
            path: "/validate",
            method: "POST",
            connections: CONNECTIONS,
            seconds: s,
            body: () => JSON.stringify(sample[v++ % sample.length]),
            expect: '"valid":true',
          }),
        activate: (s) =>
          load({
            url,
            path: "/activate",
            method: "POST",
            connections: CONNECTIONS,
            seconds: s,
            body: () => {
              const b = sample[n++ % sample.length]!;
              return JSON.stringify({ ...b, machine_fingerprint: createHash("sha256").update(`${scale}-${n}`).digest("hex") });
            },
            expect: '"activated":true',
          }),
        search: (s) => load({ url, path: "/api/catalog?search=compressor", connections: CONNECTIONS, seconds: s, expect: '"catalog_version"' }),
        "seller licenses": (s) => load({ url, path: "/api/v1/licenses", connections: CONNECTIONS, seconds: s, headers: auth, expect: '"licenses"' }),
        "seller licenses, part of a key": (s) =>
          load({ url, path: `/api/v1/licenses?q=${partial}`, connections: CONNECTIONS, seconds: s, headers: auth, expect: '"licenses"' }),
      };
      const results: Record<string, LoadResult> = {};
      for (const [name, run] of Object.entries(scenarios)) {
        await run(1);
        const runs = [await run(SECONDS), await run(SECONDS), await run(SECONDS)];
        const mid = runs.find((r) => r.rps === median(runs.map((x) => x.rps))) ?? runs[1]!;
        results[name] = mid;
        console.log(JSON.stringify({ engine, licenses: scale, scenario: name, rps: runs.map((r) => Math.round(r.rps)), p50: mid.p50, p99: mid.p99 }));
        // Errors stop the run; a query too slow to answer within the run is a finding, recorded as 0 req/s.
        if (mid.non2xx > 0) throw new Error(`${name} at ${scale}: ${mid.non2xx} non-2xx answers`);
      }
      rows.push({ engine, licenses: scale, results, bytes: await store.size() });
    }
  } finally {
    await store.close();
    await stopProcess(app);
    if (engine === "sqlite") for (const s of ["", "-wal", "-shm"]) rmSync(sqlitePath + s, { force: true });
    else await dropDatabase(PG_ADMIN, pgName);
  }
}

const names = Object.keys(rows[0]?.results ?? {});
const cell = (r: LoadResult) => (r.matched === 0 ? "no answer within the run" : `${Math.round(r.rps)} / ${r.p50} / ${r.p99}`);
const table =
  `\n### Cost as data grows (\`npm run bench:scale\`), ${new Date().toISOString().slice(0, 16)}Z\n\n` +
  `Production build, ${PRODUCTS.toLocaleString("en-US")} extra products of one seller (who holds nearly every license), license and page caches off so every request reaches the database; ` +
  `${CONNECTIONS} connections, ${SAMPLE} sampled keys spread over the table, median of 3 runs of ${SECONDS} s. Each cell: req/s / p50 ms / p99 ms.\n\n` +
  `| engine | licenses | ${names.join(" | ")} | database size |\n|${"---|".repeat(names.length + 3)}\n` +
  rows
    .map(
      (r) =>
        `| ${r.engine} | ${r.licenses.toLocaleString("en-US")} | ${names.map((n) => cell(r.results[n]!)).join(" | ")} | ${(r.bytes / 1024 / 1024).toFixed(0)} MB |`,
    )
    .join("\n") +
  "\n";
console.log(table);
appendFileSync("docs/benchmarks.md", table);
