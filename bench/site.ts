import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startApp } from "../e2e/support/servers.ts";
import { bundleServer } from "../scripts/server-bundle.mjs";

/**
 * The production build served the way a visitor meets it, for the scripts that look at pages in a browser
 * (Lighthouse, screenshots): server.ts on a free port with a fresh SQLite file (migrated and seeded with the demo
 * catalogue on start) and test-mode payments, so a checkout can be opened and paid offline.
 */

/** The system Chromium (Playwright's and Lighthouse's own downloads cannot run here) and the flags the e2e suite uses. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export interface Site {
  url: string;
  stop(): Promise<void>;
}

/** `env`: further settings for the server (the screenshots' operator, say). */
export async function startSite(name: string, env: Record<string, string> = {}): Promise<Site> {
  if (!existsSync(".next/BUILD_ID")) throw new Error("run `npm run build` first: this measures the production build");
  // server.ts compiled afresh, as `npm start` does: a bundle left from an earlier checkout would measure old code.
  bundleServer();
  const port = await freePort();
  const dbPath = join(tmpdir(), `ilm-${name}-${Date.now().toString(36)}.db`);
  const url = `http://localhost:${port}`;
  const app = await startApp(port, {
    DATABASE_URL: `file:${dbPath}`,
    BASE_URL: url,
    PAYMENTS: "test",
    // Every request comes from this one address, the script's.
    RATE_LIMIT: "off",
    ...env,
  });
  return {
    url,
    async stop() {
      await app.stop();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(dbPath + suffix, { force: true });
    },
  };
}

/** A test-mode checkout session for a product, opened the way an agent opens one; its page is the checkout page. */
export async function createCheckout(site: Site, productId: string, email: string): Promise<string> {
  const res = await fetch(`${site.url}/api/checkout/create`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ product_id: productId, buyer_email: email }),
  });
  if (!res.ok) throw new Error(`checkout for ${productId}: ${res.status} ${await res.text()}`);
  const { url } = (await res.json()) as { url: string };
  return url;
}
