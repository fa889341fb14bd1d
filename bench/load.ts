/**
 * Load benchmarks of the production build, each figure next to its target (and for /validate its floor), on SQLite
 * and on PostgreSQL, in one run:
 *
 *   npm run build && npm run bench:load     (BENCH_SECONDS, BENCH_ROUNDS, BENCH_ENGINES=sqlite,postgresql, BENCH_PG_URL,
 *                                            BENCH_ONLY=validate,activate,… to run some scenarios)
 *
 * Fair by construction: the app (server.ts) and the floor (bench/floor.ts: node:http + one prepared statement) each
 * run in their own process; this process only generates load (autocannon). Every scenario is warmed up first, then
 * run BENCH_ROUNDS times (for /validate interleaved with the floor: app, floor, app, floor, …) and the median is
 * reported. Resident memory of the app is read from /proc right after the runs and again after SETTLE_SECONDS without
 * requests (V8 gives back the garbage of the load to the system once allocation stops). Appends one table to
 * docs/benchmarks.md.
 */
import type { ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { dropDatabase, freshDatabase } from "../e2e/support/servers.ts";
import { GZIP, load, median, residentMb, seedLicenses, startApp, startFloor, stopProcess, type LoadResult } from "./support.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ENGINES = (process.env.BENCH_ENGINES ?? "sqlite,postgresql").split(",") as Array<"sqlite" | "postgresql">;
const ONLY = process.env.BENCH_ONLY?.split(",");
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const PORT = 3904;
const FLOOR_PORT = 3905;
const CONNECTIONS = 32;
const KEYS = 2000;
if (!existsSync(".next/BUILD_ID")) throw new Error("run `npm run build` first: the benchmark measures the production build");

/** The targets (issue: fast everywhere), per engine; a ratio target is app / floor. */
const TARGETS: Record<string, { rps?: Partial<Record<"sqlite" | "postgresql", number>>; ratio?: number; p99?: number }> = {
  validate: { ratio: 0.6, p99: 10 },
  activate: { rps: { sqlite: 2500, postgresql: 1500 } },
  catalog: { rps: { sqlite: 3000 } },
  home: { rps: { sqlite: 3000 } },
  product: { rps: { sqlite: 3000 } },
  mcp: { rps: { sqlite: 1500 } },
};
const MEMORY_TARGET_MB = 350;

interface Row {
  engine: string;
  scenario: string;
  label: string;
  app: LoadResult[];
  floor: LoadResult[];
}
const rows: Row[] = [];
const memory: Array<{ engine: string; mb: number; settledMb: number }> = [];
const SETTLE_SECONDS = 30;

for (const engine of ENGINES) {
  const sqlitePath = join(tmpdir(), `ilm-load-${Date.now()}.db`);
  const pgName = `ilm_load_${Date.now().toString(36)}`;
  const databaseUrl = engine === "sqlite" ? `file:${sqlitePath}` : await freshDatabase(PG_ADMIN, pgName);
  const app = await startApp(PORT, { DATABASE_URL: databaseUrl });
  let floorProcess: ChildProcess | undefined;
  try {
    const valid = await seedLicenses(databaseUrl, KEYS);
    const roomy = await seedLicenses(databaseUrl, 200, 1_000_000);
    const url = `http://127.0.0.1:${PORT}`;
    // The floor answers with the app's own headers (bench/floor.ts says why).
    const sampleAnswer = await fetch(`${url}/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(valid[0]),
    });
    const appHeaders: Record<string, string> = {};
    sampleAnswer.headers.forEach((value, name) => {
      if (!["date", "connection", "keep-alive", "content-length", "x-request-id", "transfer-encoding"].includes(name)) appHeaders[name] = value;
    });
    floorProcess = await startFloor(engine, engine === "sqlite" ? sqlitePath : databaseUrl, FLOOR_PORT, appHeaders);
    const floorUrl = `http://127.0.0.1:${FLOOR_PORT}`;
    const productId = (await (await fetch(`${url}/api/catalog`)).json()).products[0].id as string;

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
    const validate = (target: string) => (s: number) =>
      load({ url: target, path: "/validate", method: "POST", connections: CONNECTIONS, seconds: s, body: validateBody, expect: '"valid":true' });
    const get = (path: string, expect: string) => (s: number) => load({ url, path, connections: CONNECTIONS, seconds: s, expect });
    // Pages are asked for as browsers ask for them, gzip accepted. Checked once here, decompressed and whole (fetch
    // checks the gzip trailer's CRC and length), since the load generator only sees the bytes.
    const page = async (path: string) => {
      await fetch(url + path).then((r) => r.arrayBuffer()); // the first answer renders it (uncompressed)
      const r = await fetch(url + path, { headers: { "accept-encoding": "gzip, deflate, br, zstd" } });
      const html = await r.text();
      if (r.status !== 200 || r.headers.get("content-encoding") !== "gzip" || !html.includes("</html>")) {
        throw new Error(`${path}: expected a whole gzipped page, got ${r.status} ${r.headers.get("content-encoding")}`);
      }
      return (s: number) =>
        load({ url, path, connections: CONNECTIONS, seconds: s, headers: { "accept-encoding": "gzip, deflate, br, zstd" }, expect: GZIP });
    };
    const home = await page("/");
    const product = await page(`/products/${productId}`);

    const scenarios: Array<{ id: string; label: string; run: (s: number) => Promise<LoadResult>; floor?: (s: number) => Promise<LoadResult> }> = [
      { id: "validate", label: "POST /validate", run: validate(url), floor: validate(floorUrl) },
      {
        id: "activate",
        label: "POST /activate (new machine)",
        run: (s) =>
          load({ url, path: "/activate", method: "POST", connections: CONNECTIONS, seconds: s, body: activateBody, expect: '"activated":true' }),
      },
      { id: "catalog", label: "GET /api/catalog", run: get("/api/catalog", '"catalog_version"') },
      { id: "home", label: "GET / (home page, gzip)", run: home },
      { id: "product", label: "GET /products/{id} (gzip)", run: product },
      {
        id: "mcp",
        label: "MCP tools/call validate_license",
        run: (s) =>
          load({
            url,
            path: "/api/mcp",
            method: "POST",
            connections: CONNECTIONS,
            seconds: s,
            body: mcpBody,
            headers: { accept: "application/json, text/event-stream" },
            expect: '"valid":true',
          }),
      },
    ];
    for (const sc of scenarios.filter((s) => !ONLY || ONLY.includes(s.id))) {
      await sc.run(2); // warm-up: JIT, caches, connections
      await sc.floor?.(2);
      const row: Row = { engine, scenario: sc.id, label: sc.label, app: [], floor: [] };
      for (let round = 0; round < ROUNDS; round++) {
        row.app.push(await sc.run(SECONDS));
        if (sc.floor) row.floor.push(await sc.floor(SECONDS));
      }
      rows.push(row);
      const appRps = median(row.app.map((r) => r.rps));
      const floorRps = row.floor.length ? median(row.floor.map((r) => r.rps)) : undefined;
      console.log(
        JSON.stringify({
          engine,
          scenario: sc.label,
          rps: row.app.map((r) => Math.round(r.rps)),
          p99: row.app.map((r) => r.p99),
          ...(floorRps ? { floor: row.floor.map((r) => Math.round(r.rps)), ratio: Number((appRps / floorRps).toFixed(3)) } : {}),
        }),
      );
      if (row.app.some((r) => r.matched === 0)) throw new Error(`${sc.label}: no answer showed the real work being done`);
    }
    const mb = residentMb(app.pid!);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
    memory.push({ engine, mb, settledMb: residentMb(app.pid!) });
  } finally {
    if (floorProcess) await stopProcess(floorProcess);
    await stopProcess(app);
    if (engine === "sqlite") for (const s of ["", "-wal", "-shm"]) rmSync(sqlitePath + s, { force: true });
    else await dropDatabase(PG_ADMIN, pgName);
  }
}

const met = (ok: boolean | undefined) => (ok === undefined ? "" : ok ? "yes" : "**no**");
const lines = rows.map((r) => {
  const rps = median(r.app.map((x) => x.rps));
  const p99 = median(r.app.map((x) => x.p99));
  const errors = r.app.reduce((a, x) => a + x.errors + x.non2xx, 0);
  const floor = r.floor.length ? median(r.floor.map((x) => x.rps)) : undefined;
  const t = TARGETS[r.scenario] ?? {};
  const rpsTarget = t.rps?.[r.engine as "sqlite" | "postgresql"];
  const ratio = floor ? rps / floor : undefined;
  const target = [rpsTarget ? `≥ ${rpsTarget} req/s` : "", t.ratio ? `≥ ${t.ratio}× floor` : "", t.p99 ? `p99 ≤ ${t.p99} ms` : ""]
    .filter(Boolean)
    .join(", ");
  const ok =
    rpsTarget || t.ratio || t.p99 ? (!rpsTarget || rps >= rpsTarget) && (!t.ratio || (ratio ?? 0) >= t.ratio) && (!t.p99 || p99 <= t.p99) : undefined;
  return `| ${r.engine} | ${r.label} | ${Math.round(rps)} | ${r.app.map((x) => Math.round(x.rps)).join(" / ")} | ${p99} | ${errors} | ${floor ? Math.round(floor) : ""} | ${ratio ? `${ratio.toFixed(2)}×` : ""} | ${target} | ${met(ok)} |`;
});
for (const mem of memory) {
  lines.push(
    `| ${mem.engine} | resident memory right after the runs | ${mem.mb} MB | | | | | | ≤ ${MEMORY_TARGET_MB} MB | ${met(mem.mb <= MEMORY_TARGET_MB)} |`,
    `| ${mem.engine} | resident memory ${SETTLE_SECONDS} s after the runs | ${mem.settledMb} MB | | | | | | ≤ ${MEMORY_TARGET_MB} MB | ${met(mem.settledMb <= MEMORY_TARGET_MB)} |`,
  );
}
const table =
  `\n### Load, production build (\`npm run bench:load\`), ${new Date().toISOString().slice(0, 16)}Z\n\n` +
  `${cpus().length} cores; ${CONNECTIONS} connections; ${KEYS} distinct activated keys; app and floor each in its own process, ` +
  `the load generator alone in the benchmark's; 2 s warm-up, then ${ROUNDS} rounds of ${SECONDS} s (validate interleaved app, floor, …), medians.\n\n` +
  `| engine | scenario | req/s (median) | rounds | p99 ms | errors + non-2xx | floor req/s | app / floor | target | met |\n` +
  `|---|---|---|---|---|---|---|---|---|---|\n${lines.join("\n")}\n`;
console.log(table);
appendFileSync("docs/benchmarks.md", table);
