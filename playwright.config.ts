import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig, devices } from "@playwright/test";

/**
 * End-to-end tests against the production server (`npm start`, which needs `next build` first) in the system
 * Chromium: Playwright's own browser download cannot run on machines without internet access.
 */
const port = Number(process.env.E2E_PORT ?? 3100);
// E2E_BASE_URL runs the suite against a server that is already running (a development server, say).
const external = process.env.E2E_BASE_URL;
const baseURL = external ?? `http://localhost:${port}`;
/**
 * Specs that change what every page shows (the operator features, removes and suspends; reviews move the rating sort)
 * or count the whole catalogue (search, the home page): they run one at a time, after the rest has finished. Every
 * other spec makes its own sellers, products and buyers, so they run side by side: most of their time is spent
 * waiting (page loads, network idle, e-mails), not computing (a11y.spec.ts, 6 of its 64 s on one core).
 */
const SHARED_STATE = ["admin", "discovery", "search", "reviews", "storefront"].map((name) => `**/${name}.spec.ts`);
const chromium = process.env.CHROMIUM_PATH ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e/artifacts/results",
  // A test's own bound, not a wait: tests wait on conditions. 60 s because the long flows (sign in by e-mail, buy, activate,
  // release and undo on several pages) took 29–32 s alone on a slow 2-core machine (2026-11-27, where the whole suite
  // took 1,581 s against 491 s on the machine before), and hit 30 s there in a fresh-clone CI run.
  timeout: 60_000,
  // An assertion's own bound, also not a wait: 10 s, not 5 s. On the slow machine a product form's server action with two
  // PostgreSQL instances and three workers running took longer than 5 s to redirect (e2e/money.spec.ts, a fresh-clone CI run).
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 3),
  retries: 0,
  reporter: process.env.CI ? [["list"], ["junit", { outputFile: "test-results/e2e-junit.xml" }]] : [["list"]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      ...(chromium ? { executablePath: chromium } : {}),
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
      ],
    },
  },
  projects: [
    // `teardown` runs the shared-state specs once every other spec is done, whether they passed or not.
    { name: "chromium", use: { ...devices["Desktop Chrome"] }, testIgnore: SHARED_STATE, teardown: "chromium, shared state" },
    { name: "chromium, shared state", use: { ...devices["Desktop Chrome"] }, testMatch: SHARED_STATE, workers: 1 },
  ],
  webServer: external
    ? undefined
    : {
        command: "npm start",
        url: `${baseURL}/health`,
        timeout: 240_000,
        reuseExistingServer: false,
        stdout: "pipe",
        stderr: "pipe",
        env: {
          PORT: String(port),
          BASE_URL: baseURL,
          DATABASE_URL: `file:${join(tmpdir(), `ilm-e2e-${Date.now().toString(36)}.db`)}`,
          // A production server without Stripe refuses checkout; the suite buys through test mode, so it opts in.
          PAYMENTS: "test",
          // The operator of the suite's deployment (e2e/money.spec.ts, e2e/admin.spec.ts).
          // One operator per spec that signs one in often: sign-in links are limited to 5 per address in 10 minutes.
          ADMIN_EMAILS:
            "operator@e2e.example.com,operator-a11y@e2e.example.com,operator-subscriptions@e2e.example.com,operator-discovery@e2e.example.com,operator-responsive@e2e.example.com,operator-reviews@e2e.example.com,operator-walk@e2e.example.com,operator-money-input@e2e.example.com,operator-agents@e2e.example.com",
          // No mail provider here, so the operator's sign-in links reach the dev mailbox only when the operator says so
          // (a production server otherwise keeps them out of it: lib/email/dev-mailbox.ts).
          DEV_MAILBOX: "local",
          // The operator's public contact, on /contact (e2e/trust.spec.ts).
          SUPPORT_EMAIL: "help@example.com",
          // Every request of the suite comes from one address: limits stay on, set high.
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
          // Seller webhook receivers of the suite listen on 127.0.0.1 (e2e/subscriptions.spec.ts verifies each delivery
          // with standardwebhooks); the refusal of private targets is tested in tests/unit/webhook-target.test.ts and
          // tests/integration/seller-webhooks.test.ts.
          WEBHOOK_ALLOW_PRIVATE: "on",
        },
      },
});
