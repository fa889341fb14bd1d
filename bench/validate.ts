/**
 * POST /validate throughput and latency on the production build with SQLite, next to the floor: a bare node:http
 * server doing the same indexed lookup with a prepared better-sqlite3 statement, measured in the same run.
 *
 *   npm run build && npm run bench:validate        (options: BENCH_KEYS, BENCH_SECONDS, BENCH_CONNECTIONS)
 *
 * Appends the figures to docs/benchmarks.md.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, existsSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import Database from "better-sqlite3";

const KEYS = Number(process.env.BENCH_KEYS ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "32").split(",").map(Number);
const APP_PORT = 3901;
const FLOOR_PORT = 3902;
const dbPath = join(tmpdir(), `ilm-bench-${Date.now()}.db`);

if (!existsSync(".next/BUILD_ID")) throw new Error("run `npm run build` first: the benchmark measures the production build");

function startApp(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    env: { ...process.env, NODE_ENV: "production", PORT: String(APP_PORT), DATABASE_URL: `file:${dbPath}`, RATE_LIMIT: "off", BASE_URL: `http://localhost:${APP_PORT}` },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      if (d.toString().includes("ready:")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

interface Body {
  license_key: string;
  machine_fingerprint: string;
  plugin_id: string;
}

/** Many distinct licenses, each activated on one machine, written straight into the benchmark database. */
function seedLicenses(): Body[] {
  const db = new Database(dbPath);
  const products = db.prepare(`SELECT id, pluginId, maxMachines FROM "Product" WHERE status = 'active'`).all() as Array<{ id: string; pluginId: string; maxMachines: number }>;
  const insertLicense = db.prepare(
    `INSERT INTO "License" (id, key, productId, buyerEmail, maxMachines, activeMachines, isActive, trial, source, issuedAt, updatedAt) VALUES (?, ?, ?, ?, ?, 1, 1, 0, 'complimentary', ?, ?)`,
  );
  const insertActivation = db.prepare(`INSERT INTO "Activation" (id, licenseId, fingerprint, activatedAt) VALUES (?, ?, ?, ?)`);
  const bodies: Body[] = [];
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < KEYS; i++) {
      const p = products[i % products.length]!;
      const id = `bench${i}`;
      const key = randomBytes(8).toString("hex").toUpperCase().replace(/(.{4})(?=.)/g, "$1-");
      const fp = createHash("sha256").update(`bench-machine-${i}`).digest("hex");
      insertLicense.run(id, key, p.id, `bench${i}@example.com`, p.maxMachines, now, now);
      insertActivation.run(`act${i}`, id, fp, now);
      bodies.push({ license_key: key, machine_fingerprint: fp, plugin_id: p.pluginId });
    }
  })();
  db.close();
  return bodies;
}

/** The floor: node:http, JSON in and out, one prepared statement on the same file and index. */
function startFloor(): Promise<() => void> {
  const db = new Database(dbPath, { readonly: true });
  const lookup = db.prepare(
    `SELECT l.isActive, l.expiresAt, l.trial, p.pluginId, a.id AS activation FROM "License" l JOIN "Product" p ON p.id = l.productId
     LEFT JOIN "Activation" a ON a.licenseId = l.id AND a.fingerprint = ? WHERE l.key = ?`,
  );
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const b = JSON.parse(Buffer.concat(chunks).toString()) as Body;
      const row = lookup.get(b.machine_fingerprint, b.license_key) as { isActive: number; pluginId: string; activation: string | null } | undefined;
      const valid = !!row && row.isActive === 1 && row.pluginId === b.plugin_id && row.activation !== null;
      const body = JSON.stringify({ valid, expires_at: null, machine_bound: !!row?.activation, trial: false, trial_days_remaining: 0 });
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  return new Promise((resolve) => server.listen(FLOOR_PORT, "127.0.0.1", () => resolve(() => { server.close(); db.close(); })));
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  valid: number;
}

async function load(port: number, bodies: Body[], connections: number, seconds: number): Promise<Result> {
  let i = 0;
  let valid = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path: "/validate",
        headers: { "content-type": "application/json" },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(bodies[i++ % bodies.length]) }),
        onResponse: (_status: number, body: string) => {
          if (body.includes('"valid":true')) valid++;
        },
      },
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx, valid };
}

const app = await startApp();
let stopFloor: (() => void) | undefined;
try {
  const bodies = seedLicenses();
  stopFloor = await startFloor();
  const lines: string[] = [];
  for (const connections of CONNECTIONS) {
    await load(APP_PORT, bodies, connections, 3); // warm-up: JIT, caches
    await load(FLOOR_PORT, bodies, connections, 3);
    const appResult = await load(APP_PORT, bodies, connections, SECONDS);
    const floor = await load(FLOOR_PORT, bodies, connections, SECONDS);
    const ratio = appResult.rps / floor.rps;
    console.log(JSON.stringify({ connections, keys: bodies.length, app: appResult, floor, ratio: Number(ratio.toFixed(3)) }));
    lines.push(
      `| ${new Date().toISOString().slice(0, 16)}Z | ${connections} | ${bodies.length} | ${Math.round(appResult.rps)} | ${appResult.p50} | ${appResult.p99} | ${Math.round(floor.rps)} | ${floor.p50} | ${floor.p99} | ${(ratio * 100).toFixed(0)} % | ${appResult.errors + appResult.non2xx} |`,
    );
    if (appResult.valid === 0) throw new Error("no request validated: the benchmark is not measuring the real path");
  }
  if (!existsSync("docs/benchmarks.md")) {
    appendFileSync("docs/benchmarks.md", "# Benchmarks\n");
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
