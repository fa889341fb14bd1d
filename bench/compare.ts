/**
 * Old code against new on `POST /validate`, on one machine, minutes apart: server bundles given on the command line
 * (each compiled from a checkout with `node -e "import('./scripts/server-bundle.mjs').then((m) => m.bundleServer())"`
 * and copied into dist/ under its own name, so it finds the same node_modules and .next build) and the floor, each in
 * its own process, on one SQLite file with 2,000 activated keys:
 *
 *   npx tsx bench/compare.ts dist/server-old.mjs dist/server.mjs      (COMPARE_ROUNDS=5, COMPARE_SECONDS=5,
 *                                                                     COMPARE_SCENARIO=validate|mcp)
 *
 * COMPARE_SCENARIO=mcp loads each server with MCP `tools/call validate_license` (one JSON-RPC call per HTTP request,
 * as bench:load does) instead of `POST /validate`; the floor is the same in both (it answers /validate), so the
 * ratios of one run compare the two servers' MCP rates against one yardstick.
 *
 * Each is warmed up, then loaded in turn (old, new, floor, old, new, floor, …) at 32 connections, as bench:load
 * does. Prints per server the req/s of every round, the median, the ratio to the floor, and the CPU time the server's
 * process spent per request (from /proc/<pid>/stat), which varies less between rounds than req/s on a noisy machine.
 * Writes nothing to docs/benchmarks.md: the figures worth keeping are written there by hand, with how they were taken.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load, median, seedLicenses, startApp, startFloor, stopProcess } from "./support.ts";

const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 5);
const SECONDS = Number(process.env.COMPARE_SECONDS ?? 5);
const SCENARIO = process.env.COMPARE_SCENARIO ?? "validate";
if (SCENARIO !== "validate" && SCENARIO !== "mcp") throw new Error("COMPARE_SCENARIO is validate or mcp");
const bundles = process.argv.slice(2);
if (bundles.length === 0) throw new Error("usage: tsx bench/compare.ts <bundle.mjs> [<bundle.mjs> …]");
const sqlitePath = join(tmpdir(), `ilm-compare-${Date.now()}.db`);

const start = (bundle: string, port: number) => startApp(port, { DATABASE_URL: `file:${sqlitePath}` }, bundle);

/** User plus system CPU time of a process, in clock ticks (1/100 s on Linux). */
function cpuTicks(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "").split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

const apps: ChildProcess[] = [];
// One at a time: the first one creates the database file and its schema.
for (const [i, bundle] of bundles.entries()) apps.push(await start(bundle, 3920 + i));
const floor = await startFloor("sqlite", sqlitePath, 3919);
try {
  const valid = await seedLicenses(`file:${sqlitePath}`, 2000);
  let v = 0;
  const body = () => JSON.stringify(valid[v++ % valid.length]);
  let m = 0;
  const mcpBody = () => {
    const b = valid[m++ % valid.length];
    return JSON.stringify({ jsonrpc: "2.0", id: m, method: "tools/call", params: { name: "validate_license", arguments: b } });
  };
  /** What one target is loaded with: the floor always answers /validate; a server, the scenario. */
  const request = (name: string) =>
    SCENARIO === "mcp" && name !== "floor"
      ? { path: "/api/mcp", method: "POST" as const, body: mcpBody, headers: { accept: "application/json, text/event-stream" } }
      : { path: "/validate", method: "POST" as const, body };
  const targets = [
    ...bundles.map((name, i) => ({ name, url: `http://127.0.0.1:${3920 + i}`, pid: apps[i]?.pid ?? 0 })),
    { name: "floor", url: "http://127.0.0.1:3919", pid: floor.pid ?? 0 },
  ];
  for (const t of targets) await load({ url: t.url, ...request(t.name), connections: 32, seconds: 2 });
  const rps = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) {
      const before = cpuTicks(t.pid);
      const r = await load({ url: t.url, ...request(t.name), connections: 32, seconds: SECONDS, expect: '"valid":true' });
      if (r.matched === 0 || r.errors + r.non2xx > 0) throw new Error(`${t.name}: ${r.matched} valid answers, ${r.errors + r.non2xx} errors`);
      rps.set(t.name, [...(rps.get(t.name) ?? []), Math.round(r.rps)]);
      // Ticks are 10 ms: µs per request = ticks × 10,000 / requests.
      cpu.set(t.name, [...(cpu.get(t.name) ?? []), Math.round(((cpuTicks(t.pid) - before) * 10_000) / (r.rps * SECONDS))]);
    }
  }
  const floorRps = median(rps.get("floor") ?? []);
  for (const t of targets) {
    const runs = rps.get(t.name) ?? [];
    const us = cpu.get(t.name) ?? [];
    console.log(
      `${t.name}: ${runs.join(" / ")} req/s, median ${median(runs)}, ${(median(runs) / floorRps).toFixed(2)}× the floor; CPU ${us.join(" / ")} µs per request, median ${median(us)}`,
    );
  }
} finally {
  for (const app of apps) await stopProcess(app);
  await stopProcess(floor);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(sqlitePath + suffix, { force: true });
}
