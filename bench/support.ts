import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import Database from "better-sqlite3";
import pg from "pg";
import { bundleServer, serverNodeArgs } from "../scripts/server-bundle.mjs";

export interface Body {
  license_key: string;
  machine_fingerprint: string;
  plugin_id: string;
}

/**
 * The production server as `npm start` runs it (server.ts compiled, with the built Next app) on a port; resolves once
 * it listens. With `bundle`, that compiled server instead of compiling the checkout's (bench/compare.ts).
 */
export function startApp(port: number, env: Record<string, string>, bundle?: string): Promise<ChildProcess> {
  if (bundle === undefined) bundleServer();
  const child = spawn(process.execPath, serverNodeArgs(undefined, bundle), {
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), RATE_LIMIT: "off", BASE_URL: `http://localhost:${port}`, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("ready:") && resolve(child));
    child.on("exit", (code) => reject(new Error(`${bundle ?? "server"} exited with ${code}`)));
  });
}

const keyOf = () =>
  randomBytes(8)
    .toString("hex")
    .toUpperCase()
    .replace(/(.{4})(?=.)/g, "$1-");

/**
 * Many distinct licenses, each activated on one machine, written straight into the database (SQLite file or
 * PostgreSQL). `seats` sets max_machines, so activation benchmarks can keep adding machines.
 */
export async function seedLicenses(databaseUrl: string, count: number, seats = 1): Promise<Body[]> {
  const now = new Date();
  const bodies: Body[] = [];
  const rows: Array<[string, string, string, string, number, string, string]> = [];
  const products = databaseUrl.startsWith("file:")
    ? (new Database(databaseUrl.slice(5)).prepare(`SELECT id, "pluginId" FROM "Product" WHERE status = 'active'`).all() as Array<{
        id: string;
        pluginId: string;
      }>)
    : await (async () => {
        const c = new pg.Client({ connectionString: databaseUrl });
        await c.connect();
        const r = await c.query(`SELECT id, "pluginId" FROM "Product" WHERE status = 'active'`);
        await c.end();
        return r.rows as Array<{ id: string; pluginId: string }>;
      })();
  for (let i = 0; i < count; i++) {
    const p = products[i % products.length]!;
    const key = keyOf();
    const fp = createHash("sha256").update(`bench-machine-${i}-${key}`).digest("hex");
    rows.push([`bench-${key}`, key, p.id, `bench${i}@example.com`, seats, `act-${key}`, fp]);
    bodies.push({ license_key: key, machine_fingerprint: fp, plugin_id: p.pluginId });
  }
  if (databaseUrl.startsWith("file:")) {
    const db = new Database(databaseUrl.slice(5));
    const lic = db.prepare(
      `INSERT INTO "License" (id, key, "productId", "buyerEmail", "maxMachines", "activeMachines", "isActive", trial, source, "issuedAt", "updatedAt") VALUES (?, ?, ?, ?, ?, 1, 1, 0, 'complimentary', ?, ?)`,
    );
    const act = db.prepare(`INSERT INTO "Activation" (id, "licenseId", fingerprint, "activatedAt") VALUES (?, ?, ?, ?)`);
    db.transaction(() => {
      for (const r of rows) {
        lic.run(r[0], r[1], r[2], r[3], r[4], now.getTime(), now.getTime());
        act.run(r[5], r[0], r[6], now.getTime());
      }
    })();
    db.close();
  } else {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query("BEGIN");
    for (const r of rows) {
      await c.query(
        `INSERT INTO "License" (id, key, "productId", "buyerEmail", "maxMachines", "activeMachines", "isActive", trial, source, "issuedAt", "updatedAt") VALUES ($1, $2, $3, $4, $5, 1, true, false, 'complimentary', $6, $6)`,
        [r[0], r[1], r[2], r[3], r[4], now],
      );
      await c.query(`INSERT INTO "Activation" (id, "licenseId", fingerprint, "activatedAt") VALUES ($1, $2, $3, $4)`, [r[5], r[0], r[6], now]);
    }
    await c.query("COMMIT");
    await c.end();
  }
  return bodies;
}

/**
 * The validate floor (bench/floor.ts) in its own process, like the app: on a SQLite file or a PostgreSQL URL.
 * Resolves once it listens; stop it with stopProcess.
 */
export function startFloor(
  engine: "sqlite" | "postgresql",
  target: string,
  port: number,
  headers: Record<string, string> = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/floor.ts", engine, target, String(port)], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, FLOOR_HEADERS: JSON.stringify(headers) },
  });
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(child));
    child.on("exit", (code) => reject(new Error(`floor exited with ${code}`)));
  });
}

/** Stops a child process and waits for it to exit. */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** A process's resident memory in MB (Linux: /proc/<pid>/status VmRSS). */
export function residentMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

/** The median of some numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  matched: number;
}

/** As `expect`: the answer is gzip (its magic number; the body is bytes, so it is checked once beforehand, see gzipPage). */
export const GZIP = "\u001f";

/** autocannon against one path; `body` builds each request's body, `expect` counts answers that show real work. */
export async function load(opts: {
  url: string;
  path: string;
  method?: "GET" | "POST";
  connections: number;
  seconds: number;
  body?: () => string;
  headers?: Record<string, string>;
  expect?: string;
}): Promise<LoadResult> {
  let matched = 0;
  const result = await autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.seconds,
    requests: [
      {
        method: opts.method ?? "GET",
        path: opts.path,
        headers: { "content-type": "application/json", ...opts.headers },
        ...(opts.body ? { setupRequest: (req) => ({ ...req, body: opts.body!() }) } : {}),
        onResponse: (_status: number, body: string) => {
          if (!opts.expect || (opts.expect === GZIP ? body.startsWith(GZIP) : body.includes(opts.expect))) matched++;
        },
      },
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx, matched };
}
