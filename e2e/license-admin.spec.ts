import { createHash } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { dropDatabase, freshDatabase, PG_ADMIN, startApp, type AppProcess } from "./support/servers";
import { signIn } from "./support/sign-in";

// A seller manages a license in the dashboard: the machine shows its name, platform, version and last seen; releasing
// it asks first and can be undone; revoking asks first and can be undone; the license page keeps the event log. The
// operator finds the license in the console and reads the same log.

const PORT = 3290;
const BASE = `http://127.0.0.1:${String(PORT)}`;
const SELLER = "hello@tidewater-audio.example";
const OPERATOR = "operator@license-admin.example.com";
const dbName = `ilm_license_admin_${Date.now().toString(36)}`;
let app: AppProcess | undefined;

test.use({ baseURL: BASE });

test.beforeAll(async () => {
  app = await startApp(PORT, {
    DATABASE_URL: await freshDatabase(PG_ADMIN, dbName),
    BASE_URL: BASE,
    PAYMENTS: "test",
    ADMIN_EMAILS: OPERATOR,
    RATE_LIMIT_VALIDATE_PER_MIN: "100000",
    RATE_LIMIT_ACTIVATION_PER_MIN: "100000",
  });
});

test.afterAll(async () => {
  await app?.stop();
  await dropDatabase(PG_ADMIN, dbName);
});

const fingerprint = (label: string) => createHash("sha256").update(`license-admin|${label}|${Date.now()}`).digest("hex");

/** The operator signs in with the usual link (the seller sign-in form, then the console). */
async function signInOperator(page: Page) {
  await page.context().clearCookies();
  await signIn(page, OPERATOR);
  await page.goto("/admin/licenses");
}

test("a seller releases a machine and undoes it, revokes a license and undoes it; the event log and the console show it all", async ({ page }) => {
  // Two sign-ins and a dozen round trips: on a slow 2-core CI machine this one walk took the whole 60 s bound.
  test.slow();
  await signIn(page, SELLER);

  // A complimentary license for one of the seller's products, over the seller API with the session.
  const products = (await (await page.request.get("/api/v1/products")).json()) as { products: Array<{ id: string; plugin_id: string }> };
  const product = products.products[0]!;
  const issued = await page.request.post("/api/v1/licenses", {
    headers: { origin: BASE },
    data: { product_id: product.id, buyer_email: `e2e-license-admin-${Date.now()}@example.com`, max_machines: 2 },
  });
  expect(issued.status(), await issued.text()).toBe(201);
  const license = ((await issued.json()) as { license: { id: string; key: string } }).license;

  // The app activates it on a machine that tells its name, platform and version.
  const fp = fingerprint("studio");
  const activated = await page.request.post("/activate", {
    data: {
      license_key: license.key,
      machine_fingerprint: fp,
      plugin_id: product.plugin_id,
      machine_name: "Studio Mac",
      platform: "macOS 15.1 arm64",
      app_version: "2.3.1",
    },
  });
  expect(await activated.json()).toMatchObject({ activated: true });

  // The list shows the machine next to its shortened fingerprint; the search finds it by part of the key without dashes.
  await page.goto(`/dashboard/licenses?q=${encodeURIComponent(license.key.slice(0, 9).replace(/-/g, "").toLowerCase())}`);
  await expect(page.getByRole("region", { name: "Licenses table" }).getByText("Studio Mac · macOS 15.1 arm64 · v2.3.1")).toBeVisible();

  await page.goto(`/dashboard/licenses/${license.id}`);
  const row = page.getByTestId("machine-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Studio Mac");
  await expect(row).toContainText("macOS 15.1 arm64");
  await expect(row).toContainText("2.3.1");
  await expect(row).toContainText(`${fp.slice(0, 8)}…${fp.slice(-4)}`);

  // Release asks first (Cancel keeps the machine), then Undo puts it back.
  await row.getByRole("button", { name: /^release/i }).click();
  await expect(page.getByRole("group", { name: /release studio mac/i })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("group", { name: /release studio mac/i })).toHaveCount(0);
  await row.getByRole("button", { name: /^release/i }).click();
  await page.getByRole("button", { name: "Release machine" }).click();
  const status = page.getByTestId("undo-region");
  await expect(status).toContainText("Machine released");
  await expect(page.getByTestId("machine-row")).toHaveCount(0);
  await status.getByRole("button", { name: "Undo" }).click();
  await expect(status).toContainText("Release undone");
  await expect(page.getByTestId("machine-row")).toHaveCount(1);
  await expect(page.getByTestId("machine-row")).toContainText("Studio Mac");

  // Revoke asks first, then Undo reinstates.
  await page.getByLabel(/reason/i).fill("Testing the undo");
  await page.getByRole("button", { name: "Revoke license" }).click();
  await page.getByRole("button", { name: "Revoke", exact: true }).click();
  await expect(status).toContainText("License revoked");
  await expect(page.getByRole("heading", { name: "Reinstate this license" })).toBeVisible();
  await status.getByRole("button", { name: "Undo" }).click();
  await expect(status).toContainText("License reinstated");
  await expect(page.getByRole("heading", { name: "Revoke this license" })).toBeVisible();

  // The event log, newest first, with who did it.
  await page.reload();
  const events = page.getByTestId("license-events").locator("li");
  await expect(events.nth(0)).toHaveAttribute("data-event-type", "reinstated");
  await expect(events.nth(1)).toHaveAttribute("data-event-type", "revoked");
  await expect(events.nth(1)).toContainText("Testing the undo");
  await expect(events.nth(2)).toHaveAttribute("data-event-type", "restored");
  await expect(events.nth(3)).toHaveAttribute("data-event-type", "released");
  await expect(events.nth(3)).toContainText(`Seller (${SELLER})`);
  await expect(events.nth(4)).toHaveAttribute("data-event-type", "activated");
  await expect(events.nth(5)).toHaveAttribute("data-event-type", "issued");

  // The operator finds it by part of the key in the console and reads the same log.
  await signInOperator(page);
  await page.locator("#admin-q").fill(license.key.replace(/-/g, "").slice(2, 10));
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByRole("link", { name: license.key }).click();
  await expect(page.getByRole("heading", { level: 1, name: license.key })).toBeVisible();
  await expect(page.getByTestId("machine-row")).toContainText("Studio Mac");
  await expect(page.getByTestId("license-events").locator("li")).toHaveCount(6);
});
