/**
 * Load benchmarks of the production build on SQLite and on PostgreSQL: POST /validate and POST /activate at 32 and
 * 256 connections, GET /api/catalog, the home page, and the MCP tools/call validate_license path; the validate
 * floor (bare node:http + better-sqlite3, same lookup) is measured in the same run.
 *
 *   npm run build && npm run bench:load     (BENCH_SECONDS, BENCH_ENGINES=sqlite,postgresql, BENCH_PG_URL)
 *
 * Appends the figures to docs/benchmarks.md.
 */
import { appendFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { load, seedLicenses, startApp, startSqliteFloor, type LoadResult } from "./support.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ENGINES = (process.env.BENCH_ENGINES ?? "sqlite,postgresql").split(",");
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const PORT = 3904;
const FLOOR_PORT = 3905;
if (!existsSync(".next/BUILD_ID")) throw new Error("run `npm run build` first: the benchmark measures the production build");

interface Row {
  engine: string;
  scenario: string;
  connections: number;
  result: LoadResult;
  floor?: LoadResult;
}
const rows: Row[] = [];

async function pgDatabase(name: string): Promise<string> {
  const c = new pg.Client({ connectionString: PG_ADMIN });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await c.query(`CREATE DATABASE "${name}"`);
  await c.end();
  const u = new URL(PG_ADMIN);
  u.pathname = `/${name}`;
  return u.toString();
}

for (const engine of ENGINES) {
  const sqlitePath = join(tmpdir(), `ilm-load-${Date.now()}.db`);
  const pgName = `ilm_load_${Date.now().toString(36)}`;
  const databaseUrl = engine === "sqlite" ? `file:${sqlitePath}` : await pgDatabase(pgName);
  const app = await startApp(PORT, { DATABASE_URL: databaseUrl });
  let stopFloor: (() => void) | undefined;
  try {
    const valid = await seedLicenses(databaseUrl, 2000);
    const roomy = await seedLicenses(databaseUrl, 200, 1_000_000);
    if (engine === "sqlite") stopFloor = await startSqliteFloor(sqlitePath, FLOOR_PORT);
    const url = `http://127.0.0.1:${PORT}`;
    let v = 0;
    const validateBody = () => JSON.stringify(valid[v++ % valid.length]);
    let n = 0;
    const activateBody = () => {
      const b = roomy[n % roomy.length]!;
      n++;
      return JSON.stringify({ ...b, machine_fingerprint: (n.toString(16) + b.machine_fingerprint).slice(0, 64) });
    };
    let m = 0;
    const mcpBody = () => {
      const b = valid[m++ % valid.length]!;
      return JSON.stringify({ jsonrpc: "2.0", id: m, method: "tools/call", params: { name: "validate_license", arguments: b } });
    };
    const scenarios: Array<{
      scenario: string;
      connections: number;
      run: (s: number) => Promise<LoadResult>;
      floor?: (s: number) => Promise<LoadResult>;
    }> = [];
    for (const connections of [32, 256]) {
      scenarios.push({
        scenario: "POST /validate",
        connections,
        run: (s) => load({ url, path: "/validate", method: "POST", connections, seconds: s, body: validateBody, expect: '"valid":true' }),
        floor: stopFloor
          ? (s) =>
              load({
                url: `http://127.0.0.1:${FLOOR_PORT}`,
                path: "/validate",
                method: "POST",
                connections,
                seconds: s,
                body: validateBody,
                expect: '"valid":true',
              })
          : undefined,
      });
      scenarios.push({
        scenario: "POST /activate (new machine)",
        connections,
        run: (s) => load({ url, path: "/activate", method: "POST", connections, seconds: s, body: activateBody, expect: '"activated":true' }),
      });
    }
    scenarios.push({
      scenario: "GET /api/catalog",
      connections: 32,
      run: (s) => load({ url, path: "/api/catalog", connections: 32, seconds: s, expect: '"catalog_version"' }),
    });
    scenarios.push({
      scenario: "GET / (home page)",
      connections: 32,
      run: (s) => load({ url, path: "/", connections: 32, seconds: s, expect: "<html" }),
    });
    scenarios.push({
      scenario: "MCP tools/call validate_license",
      connections: 32,
      run: (s) =>
        load({
          url,
          path: "/api/mcp",
          method: "POST",
          connections: 32,
          seconds: s,
          body: mcpBody,
          headers: { accept: "application/json, text/event-stream" },
          expect: '"valid":true',
        }),
    });
    for (const sc of scenarios) {
      await sc.run(2); // warm-up
      const result = await sc.run(SECONDS);
      let floor: LoadResult | undefined;
      if (sc.floor) {
        await sc.floor(2);
        floor = await sc.floor(SECONDS);
      }
      rows.push({ engine, scenario: sc.scenario, connections: sc.connections, result, floor });
      console.log(
        JSON.stringify({
          engine,
          scenario: sc.scenario,
          connections: sc.connections,
          ...result,
          ...(floor ? { floor_rps: floor.rps, ratio: Number((result.rps / floor.rps).toFixed(3)) } : {}),
        }),
      );
      if (result.matched === 0) throw new Error(`${sc.scenario}: no answer showed the real work being done`);
    }
  } finally {
    stopFloor?.();
    app.kill("SIGTERM");
    await new Promise((r) => app.once("exit", r));
    if (engine === "sqlite") for (const s of ["", "-wal", "-shm"]) rmSync(sqlitePath + s, { force: true });
    else {
      const c = new pg.Client({ connectionString: PG_ADMIN });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${pgName}" WITH (FORCE)`);
      await c.end();
    }
  }
}

const stamp = new Date().toISOString().slice(0, 16) + "Z";
appendFileSync(
  "docs/benchmarks.md",
  `\n### Load, production build (\`npm run bench:load\`), ${stamp}, ${SECONDS} s per row\n\n| engine | scenario | connections | req/s | p50 ms | p99 ms | errors + non-2xx | validate floor req/s | app / floor |\n|---|---|---|---|---|---|---|---|---|\n` +
    rows
      .map(
        (r) =>
          `| ${r.engine} | ${r.scenario} | ${r.connections} | ${Math.round(r.result.rps)} | ${r.result.p50} | ${r.result.p99} | ${r.result.errors + r.result.non2xx} | ${r.floor ? Math.round(r.floor.rps) : ""} | ${r.floor ? `${((r.result.rps / r.floor.rps) * 100).toFixed(0)} %` : ""} |`,
      )
      .join("\n") +
    "\n",
);
