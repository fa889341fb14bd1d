import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Three projects: unit tests; integration tests against fresh SQLite files; and the same integration tests against
 * fresh PostgreSQL databases when TEST_DATABASE_URL names a server (CI always sets it), except the files listed in
 * ENGINE_INDEPENDENT below, which run on SQLite only.
 *
 * All three share one pool of TEST_WORKERS workers (2 by default: this project's machines have 2 cores), so a
 * SQLite file and a PostgreSQL file (or two of either) run at the same time. Each worker of an integration project
 * has its own database and uploads folder (tests/setup/database.ts creates them, tests/setup/worker.ts points each
 * file at its worker's), so two files never share a database: within a worker, files run one at a time on it, as
 * they all did on one database before. TEST_WORKERS=1 runs everything one file at a time.
 */
const run = `${Date.now().toString(36)}_${process.pid}`;
const workers = Math.max(1, Number(process.env.TEST_WORKERS ?? 2));
const sqliteUrl = `file:${join(tmpdir(), `ilm-test-${run}.db`)}`;
const pgServer = process.env.TEST_DATABASE_URL;
const pgUrl = pgServer ? withDatabase(pgServer, `ilm_test_${run}`) : undefined;

/**
 * Integration files whose behaviour under test does not depend on the database engine: they run once, in the SQLite
 * project, instead of once per engine. Each says why. Everything else under tests/integration runs on both engines,
 * and so does every new file until it is listed here: list a file only when nothing it checks goes through a query
 * that could differ between SQLite and PostgreSQL (the rows it needs are set up through code other files test on
 * both engines).
 */
const ENGINE_INDEPENDENT: Record<string, string> = {
  "integrations.test.ts":
    "the generated integration code built with each language's toolchain (C, C++, Rust, JUCE, Python, Electron) and run against the lean licensing path: it checks the programs; the licensing path runs on both engines in licensing*.test.ts, operations.test.ts and fuzz.test.ts",
  "device-integrations-native.test.ts":
    "the generated C, C++, Rust, JUCE (and C#) code built with each toolchain buying and activating through the device routes: it checks the programs; the device flow's queries run on both engines in device-flow.test.ts",
  "integration-updates.test.ts":
    "the generated Python and Electron update checks run with the real interpreters: it checks the programs' download and signature checks; the update routes run on both engines in updates.test.ts and feeds.test.ts",
  "agent-documents.test.ts":
    "the agent documents (OpenAPI, tool manifests, cards) generated from the operation registry, checked by external validators: no database",
  "protected-resource.test.ts": "RFC 9728 metadata documents built from the configuration: no database",
  "documents.test.ts": "the terms document on the Next route and the lean path, built from the configuration: no database",
  "cors.test.ts":
    "CORS headers, set by server.ts's front door before any handler runs; the handlers behind it run on both engines in their own files",
  "host.test.ts":
    "the front door's host check and client address, decided before any handler runs; the mailbox and licensing behind it run on both engines in email-outbox.test.ts and licensing*.test.ts",
  "a2a.test.ts":
    "the A2A binding (agent card, JSON-RPC, streaming, the SDK client) around the tools that mcp-tools.test.ts and operations.test.ts run on both engines",
  "updates-s3.test.ts":
    "the S3 driver's presigned links and bytes (s3rver); the update check's queries run on both engines in updates.test.ts and feeds.test.ts",
  "device-integrations.test.ts":
    "the generated Python and Electron device-flow clients run with the real interpreters against the service: it checks the programs' polling, stopping and storing; the device flow's queries run on both engines in device-flow.test.ts",
  "payments-mode-pages.test.ts":
    "which payment words the store's pages show for the configuration and the URL's codes; the rows they read are read on both engines elsewhere",
};

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

const root = new URL(".", import.meta.url).pathname.replace(/\/$/, "");
for (const file of Object.keys(ENGINE_INDEPENDENT)) {
  if (!existsSync(join(root, "tests/integration", file))) throw new Error(`vitest.config.ts: ENGINE_INDEPENDENT lists ${file}, which does not exist`);
}

// Limits stay on, set high: tests that exercise them lower them for themselves.
const common = {
  BASE_URL: "http://localhost:3000",
  RATE_LIMIT: "on",
  RATE_LIMIT_VALIDATE_PER_MIN: "1000000",
  RATE_LIMIT_ACTIVATION_PER_MIN: "1000000",
  RATE_LIMIT_RECEIPT_PER_MIN: "1000000",
  RATE_LIMIT_CHECKOUT_PER_MIN: "1000000",
  RATE_LIMIT_COUPON_TRY_PER_MIN: "1000000",
  RATE_LIMIT_TRIAL_PER_HOUR: "1000000",
  RATE_LIMIT_PER_KEY_PER_MIN: "1000000",
  RATE_LIMIT_READ_PER_MIN: "1000000",
  RATE_LIMIT_WRITE_PER_MIN: "1000000",
  RATE_LIMIT_WEBHOOK_SEND_PER_MIN: "1000000",
  RATE_LIMIT_DEVICE_CODE_PER_MIN: "1000000",
  NODE_ENV: "test" as const,
};
const alias = { "@": root };

function integration(name: string, databaseUrl: string, include: string[], exclude: string[], env: Record<string, string> = {}) {
  return {
    resolve: { alias },
    test: {
      name,
      include,
      exclude,
      env: { ...common, ...env, DATABASE_URL: databaseUrl, TEST_WORKERS: String(workers), TEST_RUN: run, TEST_PROJECT: name },
      globalSetup: ["tests/setup/database.ts"],
      setupFiles: ["tests/setup/worker.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  };
}

export default defineConfig({
  resolve: { alias },
  test: {
    maxWorkers: workers,
    reporters: process.env.CI ? ["default", "junit"] : ["default"],
    outputFile: { junit: "test-results/vitest-junit.xml" },
    projects: [
      {
        resolve: { alias },
        // Two files at a time on 2 cores, often beside other work: property tests were seen to take 6-7 s there.
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], env: { ...common, DATABASE_URL: "file::memory:" }, testTimeout: 20_000 },
      },
      integration("sqlite", sqliteUrl, ["tests/integration/**/*.test.ts"], []),
      ...(pgServer && pgUrl
        ? [
            integration(
              "postgresql",
              pgUrl,
              ["tests/integration/**/*.test.ts", "tests/postgresql/**/*.test.ts"],
              Object.keys(ENGINE_INDEPENDENT).map((f) => `tests/integration/${f}`),
              { TEST_DATABASE_URL: pgServer },
            ),
          ]
        : []),
    ],
  },
});
