import { expect, noHorizontalScroll, test } from "./fixtures";
import { connectTestPayouts } from "./support/payouts";
import { signIn } from "./support/sign-in";
import { fillSupportAndRefunds } from "./support/seller-profile";

test("a new seller cannot publish a paid listing until they connect the test payout account on the Payouts page", async ({ page, shot }) => {
  test.setTimeout(120_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  await signIn(page, `e2e-payouts-${run}@example.com`);
  await expect(page).toHaveURL(/\/dashboard\/welcome$/);
  await page.getByLabel("Developer or studio name").fill(`Payout Studio ${run}`);
  await page.getByLabel("About you").fill("Small tools for people who ship desktop software.");
  await fillSupportAndRefunds(page);
  await page.getByRole("button", { name: "Create profile" }).click();
  await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);

  // The overview says what is missing and links to it.
  const cta = page.locator("#payout-cta");
  await expect(cta).toContainText("Connect your payout account");
  const product = {
    name: `Payout Probe ${run}`,
    tagline: "A product that needs a payout account.",
    description: "A product created by the payouts end-to-end test, with a long enough description.",
    plugin_id: `com.e2e.payouts${run}`,
    price_cents: 1900,
    category: "dev-tools",
    max_machines: 2,
    seat_model: "per-machine",
    platforms: ["linux"],
    download_url: "https://example.com/download.zip",
    icon_url: "/icons/tape-warmth.svg",
  };
  const refused = await page.request.post("/api/v1/products", { data: { ...product, publish: true } });
  expect(refused.status()).toBe(409);
  expect(refused.headers()["content-type"]).toBe("application/problem+json");
  expect(await refused.json()).toMatchObject({ code: "payout_account_required", detail: expect.stringContaining("Dashboard → Payouts") });

  await cta.getByRole("link", { name: "Connect payout account" }).click();
  await expect(page).toHaveURL(/\/dashboard\/payouts$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Payouts");
  await expect(page.locator("#payout-status")).toHaveText("Not connected");
  await expect(page.getByRole("heading", { name: "Where the money goes" })).toBeVisible();
  await expect(page.getByText(/test mode/).first()).toBeVisible();
  await page.waitForLoadState("networkidle");
  await shot("payouts-not-connected");

  await connectTestPayouts(page);
  await expect(page.getByRole("status").filter({ hasText: "Test payout account connected" })).toBeVisible();
  await expect(page.getByText(/^Built-in test payout account test_acct_[0-9a-f]+$/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Connect the test payout account" })).toHaveCount(0);
  await page.setViewportSize({ width: 390, height: 844 });
  await noHorizontalScroll(page);
  await page.waitForLoadState("networkidle");
  await shot("payouts-ready");

  const account = await (await page.request.get("/api/v1/payouts")).json();
  expect(account.payout_account).toMatchObject({ provider: "test", status: "ready", ready: true, connect_with: "test" });
  const created = await page.request.post("/api/v1/products", { data: { ...product, publish: true } });
  expect(created.status()).toBe(201);
  await page.goto("/dashboard");
  await expect(page.locator("#payout-cta")).toHaveCount(0);
});
