/**
 * POST /validate throughput and latency on the production build with SQLite, next to the floor: a bare node:http
 * server doing the same indexed lookup with a prepared better-sqlite3 statement, measured in the same run.
 *
 *   npm run build && npm run bench:validate        (options: BENCH_KEYS, BENCH_SECONDS, BENCH_CONNECTIONS)
 *
 * Appends the figures to docs/benchmarks.md. bench/load.ts measures the other paths and PostgreSQL.
 */
import { appendFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load, seedLicenses, startApp, startSqliteFloor } from "./support.ts";

const KEYS = Number(process.env.BENCH_KEYS ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "32").split(",").map(Number);
const APP_PORT = 3901;
const FLOOR_PORT = 3902;
const dbPath = join(tmpdir(), `ilm-bench-${Date.now()}.db`);

if (!existsSync(".next/BUILD_ID")) throw new Error("run `npm run build` first: the benchmark measures the production build");

const app = await startApp(APP_PORT, { DATABASE_URL: `file:${dbPath}` });
let stopFloor: (() => void) | undefined;
try {
  const bodies = await seedLicenses(`file:${dbPath}`, KEYS);
  stopFloor = await startSqliteFloor(dbPath, FLOOR_PORT);
  const lines: string[] = [];
  for (const connections of CONNECTIONS) {
    let i = 0;
    const body = () => JSON.stringify(bodies[i++ % bodies.length]);
    const run = (port: number, seconds: number) =>
      load({ url: `http://127.0.0.1:${port}`, path: "/validate", method: "POST", connections, seconds, body, expect: '"valid":true' });
    await run(APP_PORT, 3); // warm-up: JIT, caches
    await run(FLOOR_PORT, 3);
    const app = await run(APP_PORT, SECONDS);
    const floor = await run(FLOOR_PORT, SECONDS);
    const ratio = app.rps / floor.rps;
    console.log(JSON.stringify({ connections, keys: bodies.length, app, floor, ratio: Number(ratio.toFixed(3)) }));
    if (app.matched === 0) throw new Error("no request validated: the benchmark is not measuring the real path");
    lines.push(
      `| ${new Date().toISOString().slice(0, 16)}Z | ${connections} | ${bodies.length} | ${Math.round(app.rps)} | ${app.p50} | ${app.p99} | ${Math.round(floor.rps)} | ${floor.p50} | ${floor.p99} | ${(ratio * 100).toFixed(0)} % | ${app.errors + app.non2xx} |`,
    );
  }
  appendFileSync(
    "docs/benchmarks.md",
    `\n### POST /validate, SQLite, production build (\`npm run bench:validate\`)\n\n| run | connections | distinct keys | app req/s | app p50 ms | app p99 ms | floor req/s | floor p50 ms | floor p99 ms | app / floor | errors |\n|---|---|---|---|---|---|---|---|---|---|---|\n${lines.join("\n")}\n`,
  );
} finally {
  stopFloor?.();
  app.kill("SIGTERM");
  for (const s of ["", "-wal", "-shm"]) rmSync(dbPath + s, { force: true });
}
