/**
 * Subscriptions falling due together: BENCH_SUBSCRIPTIONS (default 100,000) test-mode monthly subscriptions whose
 * periods all end at once, renewed by the production server's own job loop (lib/subscriptions/renewals.ts, batches of
 * 200), while /validate is measured against the same server. Reports how long the renewals took (each one an order,
 * a payment event, the ledger, the license, a webhook check and an e-mail), and /validate's throughput and p99 before
 * and during them.
 *
 *   npm run build && npm run bench:renewals     (BENCH_SUBSCRIPTIONS, BENCH_SECONDS)
 *
 * SQLite, the embedded default, where a writer and the readers share one file: the case where renewals could hold up
 * licensing. The rows are written straight into the database (creating 100,000 subscriptions through checkout would
 * take longer than the run). Appends one table to docs/benchmarks.md.
 */
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { load, median, startApp, stopProcess, type Body, type LoadResult } from "./support.ts";

const COUNT = Number(process.env.BENCH_SUBSCRIPTIONS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PORT = 3907;
const CONNECTIONS = 32;
const SAMPLE = 2_000;
if (!existsSync(".next/BUILD_ID")) throw new Error("run `npm run build` first: the benchmark measures the production build");

const path = join(tmpdir(), `ilm-renewals-${Date.now()}.db`);
const iso = (d: Date) => d.toISOString().replace("Z", "+00:00");
const keyOf = () =>
  randomBytes(8)
    .toString("hex")
    .toUpperCase()
    .replace(/(.{4})(?=.)/g, "$1-");

// The app creates the database (migrations, demo catalogue), then the subscriptions are written beside it.
let app = await startApp(PORT, { DATABASE_URL: `file:${path}`, PAYMENTS: "test" });
await stopProcess(app);
const db = new Database(path);
db.pragma("busy_timeout = 30000");
const seller = db.prepare(`SELECT id FROM "Developer" ORDER BY id LIMIT 1`).get() as { id: string };
const now = new Date();
const stamp = iso(now);
const monthLater = new Date(now.getTime() + 30 * 86_400_000);
db.prepare(
  `INSERT INTO "Product" ("id", "pluginId", "developerId", "name", "description", "priceCents", "pricingModel", "monthlyPriceCents", "category", "maxMachines", "platforms", "compatibility", "inputs", "outputs", "images", "downloadUrl", "iconUrl", "createdAt", "updatedAt") VALUES ('bench-sub', 'com.bench.sub', ?, 'Bench subscription', 'A subscription product for the renewals benchmark.', 900, 'subscription', 900, 'dev-tools', 1000000, '["linux"]', '[]', '[]', '[]', '[]', 'https://example.com/download', '/icons/tape-warmth.svg', ?, ?)`,
).run(seller.id, stamp, stamp);
const pool: Body[] = [];
const step = Math.max(1, Math.floor(COUNT / SAMPLE));
const license = db.prepare(
  `INSERT INTO "License" ("id", "key", "productId", "buyerEmail", "maxMachines", "activeMachines", "isActive", "source", "billing", "issuedAt", "expiresAt", "updatedAt") VALUES (?, ?, 'bench-sub', ?, 1, 1, 1, 'purchase', 'active', ?, ?, ?)`,
);
const activation = db.prepare(`INSERT INTO "Activation" ("id", "licenseId", "fingerprint", "activatedAt") VALUES (?, ?, ?, ?)`);
const subscription = db.prepare(
  `INSERT INTO "Subscription" ("id", "productId", "developerId", "buyerEmail", "licenseId", "provider", "interval", "quantity", "unitAmountCents", "currency", "status", "billingAnchor", "currentPeriodStart", "currentPeriodEnd", "graceDays", "paidPeriods", "paidMonths", "testCard", "createdAt", "updatedAt") VALUES (?, 'bench-sub', ?, ?, ?, 'test', 'month', 1, 900, 'usd', 'active', ?, ?, ?, 3, 1, 1, 'succeeds', ?, ?)`,
);
db.transaction(() => {
  for (let i = 0; i < COUNT; i++) {
    const key = keyOf();
    const fp = createHash("sha256").update(`renewal-${i}-${key}`).digest("hex");
    license.run(`bl-${i}`, key, `buyer${i}@example.com`, stamp, iso(new Date(monthLater.getTime() + 3 * 86_400_000)), stamp);
    activation.run(`ba-${i}`, `bl-${i}`, fp, stamp);
    subscription.run(`sub_bench_${i}`, seller.id, `buyer${i}@example.com`, `bl-${i}`, stamp, stamp, iso(monthLater), stamp, stamp);
    if (i % step === 0) pool.push({ license_key: key, machine_fingerprint: fp, plugin_id: "com.bench.sub" });
  }
})();

const remaining = () =>
  (db.prepare(`SELECT COUNT(*) AS n FROM "Subscription" WHERE "status" = 'active' AND "currentPeriodEnd" <= ?`).get(iso(new Date())) as { n: number })
    .n;
const url = `http://127.0.0.1:${PORT}`;
let v = 0;
const validate = (seconds: number) =>
  load({
    url,
    path: "/validate",
    method: "POST",
    connections: CONNECTIONS,
    seconds,
    body: () => JSON.stringify(pool[v++ % pool.length]),
    expect: '"valid":true',
  });

app = await startApp(PORT, { DATABASE_URL: `file:${path}`, PAYMENTS: "test" });
let idle: LoadResult = { rps: 0, p50: 0, p99: 0, errors: 0, non2xx: 0, matched: 0 };
let during: LoadResult[] = [];
let took = 0;
try {
  await validate(1);
  const before = [await validate(SECONDS), await validate(SECONDS), await validate(SECONDS)];
  idle = before.find((r) => r.rps === median(before.map((x) => x.rps))) ?? before[1]!;
  // Every period ends now: the job loop finds them on its next tick.
  const due = iso(new Date(Date.now() - 1000));
  db.prepare(`UPDATE "Subscription" SET "currentPeriodEnd" = ?, "billingAnchor" = ?, "currentPeriodStart" = ?`).run(
    due,
    iso(new Date(Date.now() - 30 * 86_400_000)),
    iso(new Date(Date.now() - 30 * 86_400_000)),
  );
  const start = Date.now();
  // /validate measured over and over while the renewals run.
  while (remaining() > 0) {
    during.push(await validate(SECONDS));
    console.log(
      JSON.stringify({
        remaining: remaining(),
        seconds: Math.round((Date.now() - start) / 1000),
        rps: Math.round(during.at(-1)!.rps),
        p99: during.at(-1)!.p99,
      }),
    );
  }
  took = (Date.now() - start) / 1000;
  const renewed = (db.prepare(`SELECT COUNT(*) AS n FROM "Order" WHERE "subscriptionId" IS NOT NULL AND "status" = 'paid'`).get() as { n: number }).n;
  if (renewed !== COUNT) throw new Error(`${renewed} renewals paid, expected ${COUNT}`);
} finally {
  await stopProcess(app);
  db.close();
  for (const s of ["", "-wal", "-shm"]) rmSync(path + s, { force: true });
}
const base = idle;
during = during.length > 0 ? during : [base];
// The run at the middle of the sorted runs (an even count has no run equal to the mean of the two middle ones).
const mid = [...during].sort((a, b) => a.rps - b.rps)[Math.floor(during.length / 2)]!;
const worstP99 = Math.max(...during.map((r) => r.p99));
const table =
  `\n### Subscriptions renewing at once (\`npm run bench:renewals\`), ${new Date().toISOString().slice(0, 16)}Z\n\n` +
  `Production build on SQLite, ${COUNT.toLocaleString("en-US")} test-mode monthly subscriptions whose periods all end at once, renewed by the server's own job loop ` +
  `(batches of 200) while /validate runs at ${CONNECTIONS} connections over ${pool.length} of their keys (runs of ${SECONDS} s; idle: median of 3).\n\n` +
  `| renewals | took | renewals/s | /validate idle: req/s, p99 | during: median req/s, its p99 | worst p99 during |\n|---|---|---|---|---|---|\n` +
  `| ${COUNT.toLocaleString("en-US")} | ${took.toFixed(0)} s | ${(COUNT / took).toFixed(0)} | ${Math.round(base.rps)}, ${base.p99} ms | ${Math.round(mid.rps)}, ${mid.p99} ms | ${worstP99} ms |\n`;
console.log(table);
appendFileSync("docs/benchmarks.md", table);
