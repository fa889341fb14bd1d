import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Three projects: unit tests; integration tests against a fresh SQLite file; and the same integration tests against
 * a fresh PostgreSQL database when TEST_DATABASE_URL names a server (CI always sets it).
 */
const run = `${Date.now().toString(36)}_${process.pid}`;
const sqliteUrl = `file:${join(tmpdir(), `ilm-test-${run}.db`)}`;
const pgServer = process.env.TEST_DATABASE_URL;
const pgUrl = pgServer ? withDatabase(pgServer, `ilm_test_${run}`) : undefined;

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

// Limits stay on, set high: tests that exercise them lower them for themselves.
const common = {
  BASE_URL: "http://localhost:3000",
  RATE_LIMIT: "on",
  RATE_LIMIT_VALIDATE_PER_MIN: "1000000",
  RATE_LIMIT_ACTIVATION_PER_MIN: "1000000",
  RATE_LIMIT_RECEIPT_PER_MIN: "1000000",
  RATE_LIMIT_CHECKOUT_PER_MIN: "1000000",
  RATE_LIMIT_TRIAL_PER_HOUR: "1000000",
  RATE_LIMIT_PER_KEY_PER_MIN: "1000000",
  NODE_ENV: "test" as const,
};
const alias = { "@": new URL(".", import.meta.url).pathname.replace(/\/$/, "") };

export default defineConfig({
  resolve: { alias },
  test: {
    reporters: process.env.CI ? ["default", "junit"] : ["default"],
    outputFile: { junit: "test-results/vitest-junit.xml" },
    projects: [
      {
        resolve: { alias },
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], env: { ...common, DATABASE_URL: "file::memory:" } },
      },
      {
        resolve: { alias },
        test: {
          name: "sqlite",
          include: ["tests/integration/**/*.test.ts"],
          env: { ...common, DATABASE_URL: sqliteUrl },
          globalSetup: ["tests/setup/database.ts"],
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      ...(pgServer && pgUrl
        ? [
            {
              resolve: { alias },
              test: {
                name: "postgresql",
                include: ["tests/integration/**/*.test.ts", "tests/postgresql/**/*.test.ts"],
                env: { ...common, DATABASE_URL: pgUrl, TEST_DATABASE_URL: pgServer },
                globalSetup: ["tests/setup/database.ts"],
                fileParallelism: false,
                testTimeout: 30_000,
                hookTimeout: 60_000,
              },
            },
          ]
        : []),
    ],
  },
});
