import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Page } from "@playwright/test";
import { expect, noHorizontalScroll, test } from "./fixtures";
import { connectTestPayouts } from "./support/payouts";
import { tinyPng } from "./support/png";
import { signIn } from "./support/sign-in";
import { fillSupportAndRefunds, publishOpenProduct } from "./support/seller-profile";

/** Waits for hydration: screenshots hide the caret with an inline style (a hydration mismatch if taken before), and text filled before it can land beside the old text. */
async function settled(page: Page) {
  await page.waitForLoadState("networkidle");
}

async function createProfile(page: Page, name: string) {
  await expect(page).toHaveURL(/\/dashboard\/welcome$/);
  await page.getByLabel("Developer or studio name").fill(name);
  await page.getByLabel("Website").fill("https://example.com");
  await page.getByLabel("About you").fill("Small tools for people who ship desktop software.");
  await fillSupportAndRefunds(page);
  await page.getByRole("button", { name: "Create profile" }).click();
  await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Welcome, ${name}`);
}

test("a seller lists a product, sells it, manages its license and unlists it; another seller cannot touch it", async ({
  page,
  browser,
  baseURL,
  shot,
}) => {
  test.setTimeout(180_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const sellerEmail = `e2e-seller-${run}@example.com`;
  const productName = `Waveform Inspector ${run}`;
  const pluginId = `com.e2e.inspector${run}`;

  // Sign in with a new address, then create the developer profile.
  await signIn(page, sellerEmail);
  await settled(page);
  await shot("dashboard-welcome");
  await createProfile(page, `E2E Studio ${run}`);
  await connectTestPayouts(page);

  // A refused form keeps what was typed and names each problem next to its field.
  await page.goto("/dashboard/products/new");
  await page.getByLabel("Name", { exact: true }).fill(productName);
  await page.getByLabel("Description").fill("Too short.");
  await page.getByLabel("Plugin ID").fill("Not An Id");
  await page.getByRole("button", { name: "Create product" }).click();
  const problems = page.locator("#product-problems");
  await expect(problems).toBeVisible();
  await expect(problems).toHaveAttribute("role", "alert");
  const pluginField = page.getByLabel("Plugin ID");
  await expect(pluginField).toHaveAttribute("aria-invalid", "true");
  const errorId = (await pluginField.getAttribute("aria-describedby"))!.split(" ").find((id) => id.endsWith("-error"))!;
  await expect(page.locator(`#${errorId}`)).toContainText(/reverse-domain/i);
  await expect(page.locator("#product-description-error")).toContainText(/20 characters/);
  await expect(page.locator("#product-icon-error")).toContainText(/icon/i);
  // A download URL is optional: a product may ship its files through Releases (publishing checks for one or the other).
  await expect(page.locator("#product-download_url-error")).toHaveCount(0);
  await expect(page.getByLabel("Description")).toHaveValue("Too short.");
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue(productName);
  await settled(page);
  await shot("dashboard-product-errors");

  // Now a valid product with an uploaded PNG icon.
  await page.getByLabel("Tagline").fill("See every sample of a WAV file, instantly.");
  await page.getByLabel("Description").fill("A fast waveform viewer for audio developers: open huge files, zoom to the sample, compare two takes.");
  await page.getByLabel("Category").selectOption("dev-tools");
  await page.getByLabel("Price", { exact: true }).fill("24.50");
  // Priced in the platform's currency unless the seller picks another; every price then shows its code.
  await expect(page.getByLabel("Currency")).toHaveValue("usd");
  await page.getByLabel("Machines per license").fill("3");
  await page.getByRole("checkbox", { name: "macOS" }).check();
  await page.getByRole("checkbox", { name: "Linux" }).check();
  await page.getByRole("checkbox", { name: "Offer a free trial" }).check();
  await page.getByLabel("Trial length (days)").fill("7");
  await page.getByLabel("Compatibility").fill("WAV, FLAC, AIFF");
  await page.getByLabel("Download URL").fill("https://example.com/downloads/waveform-inspector.zip");
  await page.getByLabel("Icon file").setInputFiles({ name: "icon.png", mimeType: "image/png", buffer: tinyPng() });
  await page.getByLabel("Plugin ID").fill(pluginId);
  await page.getByRole("button", { name: "Create product" }).click();
  await expect(page).toHaveURL(/\/dashboard\/products\/[a-z0-9-]+\?notice=product-created$/);
  const productId = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.getByRole("status").filter({ hasText: "Product created" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(productName);
  const icon = page.locator("aside img").first();
  // <owner>-<content hash>.png: the owner part is what the seller's upload quota counts.
  await expect(icon).toHaveAttribute("src", /\/uploads\/[a-f0-9]{12}-[a-f0-9]{32}\.png$/);
  await expect.poll(() => icon.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(128);
  const iconPath = new URL((await icon.getAttribute("src"))!, baseURL).pathname;
  await settled(page);
  await shot("dashboard-product-edit");

  // A draft until published: the store answers 404, its owner's preview shows the page with the Buy button disabled.
  expect((await page.request.get(`/products/${productId}`)).status()).toBe(404);
  await page.getByRole("link", { name: "Preview", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/products/${productId}/preview$`));
  await expect(page.locator("#preview-banner")).toContainText("Preview: not listed yet");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(productName);
  await expect(page.getByRole("button", { name: "Buy", exact: true })).toBeDisabled();
  await page.goto(`/dashboard/products/${productId}`);
  await publishOpenProduct(page);

  // Once published: the storefront, the catalog API and the MCP tools all have it.
  await page.goto(`/?q=${encodeURIComponent(productName)}`);
  await expect(page.getByRole("link", { name: productName })).toBeVisible();
  const catalog = await (await page.request.get(`/api/catalog?search=${encodeURIComponent(productName)}`)).json();
  expect(catalog.products.map((p: { id: string }) => p.id)).toContain(productId);
  const mcp = new Client({ name: "e2e-dashboard", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", baseURL)));
  const browse = await mcp.callTool({ name: "browse_marketplace", arguments: { query: productName, limit: 5 } });
  expect(browse.isError).toBeFalsy();
  const listed = (browse.structuredContent as { products: Array<{ id: string; plugin_id: string; price_cents: number }> }).products;
  expect(listed.find((p) => p.id === productId)).toMatchObject({ plugin_id: pluginId, price_cents: 2450 });
  await mcp.close();

  // A buyer's agent buys it in test mode over the API.
  const buyerEmail = `e2e-dash-buyer-${run}@example.com`;
  const created = await page.request.post("/api/checkout/create", {
    data: { product_id: productId, buyer_email: buyerEmail, agent_id: "e2e-dashboard-agent" },
  });
  expect(created.status()).toBe(200);
  const { session_id } = await created.json();
  const paid = await page.request.post(`/checkout/${session_id}/pay`, { maxRedirects: 0 });
  expect(paid.status()).toBe(303);
  const { license } = await (await page.request.get(`/api/checkout/${session_id}`)).json();
  const key: string = license.license_key;
  const machine = { license_key: key, machine_fingerprint: "ab12".repeat(16), plugin_id: pluginId };
  expect(await (await page.request.post("/activate", { data: machine })).json()).toMatchObject({ activated: true });

  // The order shows on the sales page with the 5% fee, the net and the agent.
  await page.goto("/dashboard/sales");
  const order = page.getByRole("row").filter({ hasText: buyerEmail });
  await expect(order).toContainText(productName);
  await expect(order).toContainText("$24.50 USD");
  await expect(order).toContainText("$1.23 USD");
  await expect(order).toContainText("$23.27 USD");
  // Test mode calculates no tax, and says so rather than showing a made-up zero.
  await expect(order).toContainText("not calculated");
  await expect(order).toContainText("e2e-dashboard-agent");
  await expect(page.getByRole("img", { name: /net revenue per day/i })).toBeVisible();
  // The ledger behind those figures, as CSV: the sale and the fee of this order, signed, in minor units.
  const csv = await page.request.get("/dashboard/sales/export");
  expect(csv.status()).toBe(200);
  expect(csv.headers()["content-type"]).toContain("text/csv");
  const lines = (await csv.text()).trim().split("\r\n");
  const mine = lines.filter((l) => l.includes(session_id));
  expect(mine.some((l) => l.includes(",sale,") && l.includes(",2450,"))).toBe(true);
  expect(mine.some((l) => l.includes(",platform_fee,") && l.includes(",-123,"))).toBe(true);
  // Nobody else's: a signed-out request gets no CSV.
  const anonymous = await page.context().browser()!.newContext();
  const refused = await anonymous.request.get(`${new URL(page.url()).origin}/dashboard/sales/export`, { maxRedirects: 0 });
  expect(refused.headers()["content-type"] ?? "").not.toContain("text/csv");
  expect(refused.status()).not.toBe(200);
  await anonymous.close();
  await settled(page);
  await shot("dashboard-sales");
  await page.setViewportSize({ width: 390, height: 844 });
  await noHorizontalScroll(page);
  await page.goto("/dashboard");
  await noHorizontalScroll(page);
  await settled(page);
  await shot("dashboard-overview-phone");
  await page.setViewportSize({ width: 1280, height: 900 });

  // Find the license by the buyer's e-mail, revoke it with a reason, reinstate it.
  await page.goto("/dashboard/licenses");
  await page.getByLabel("Search by part of a key, buyer e-mail or product name").fill(buyerEmail);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard\/licenses\?q=/);
  const licenseRow = page.getByRole("row").filter({ hasText: buyerEmail });
  await expect(licenseRow).toHaveCount(1);
  await expect(licenseRow).toContainText(productName);
  await expect(licenseRow).toContainText("Active");
  await expect(licenseRow.locator("code").first()).toHaveText(key);
  await expect(licenseRow).toContainText("1 / 3");
  await settled(page);
  await shot("dashboard-licenses");
  await licenseRow.getByRole("link", { name: /manage/i }).click();
  await expect(page.getByTestId("license-key")).toHaveText(key);

  await page.getByLabel("Reason").fill("Refunded at the buyer's request");
  await page.getByRole("button", { name: "Revoke license" }).click();
  // Asked first: the revocation happens on confirming.
  await page.getByRole("button", { name: "Revoke", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "License revoked" })).toBeVisible();
  await expect(page.getByText("Reason: Refunded at the buyer's request")).toBeVisible();
  expect(await (await page.request.post("/validate", { data: machine })).json()).toMatchObject({ valid: false, code: "REVOKED" });
  await settled(page);
  await shot("dashboard-license-revoked");

  await page.getByRole("button", { name: "Reinstate license" }).click();
  await expect(page.getByRole("status").filter({ hasText: "License reinstated" })).toBeVisible();
  expect(await (await page.request.post("/validate", { data: machine })).json()).toMatchObject({ valid: true });
  const receipt = await (await page.request.get(`/api/receipt?key=${key}`)).json();
  expect(receipt.receipt).toMatchObject({ license_key: key, is_active: true });

  // Release the buyer's machine: the seat is free again.
  const machineRow = page.getByRole("row").filter({ hasText: "ab12ab12…ab12" });
  await expect(machineRow.locator("code")).toHaveAttribute("title", machine.machine_fingerprint);
  await machineRow.getByRole("button", { name: /release/i }).click();
  await page.getByRole("button", { name: "Release machine" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Machine released" })).toBeVisible();
  await expect(page.getByText("No machine has activated this key yet.")).toBeVisible();

  // A complimentary key for a reviewer, with its own seat count.
  await page.goto("/dashboard/licenses");
  await settled(page);
  await page.getByLabel("Product", { exact: true }).selectOption(productId);
  await page.getByLabel("Recipient's e-mail").fill(`e2e-reviewer-${run}@example.com`);
  await page.getByLabel("Machines").fill("5");
  await page.getByRole("button", { name: "Issue license" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Complimentary license issued" })).toBeVisible();
  await expect(page.getByText("0 used, 5 free, 5 in all")).toBeVisible();
  await expect(page.getByText("Complimentary", { exact: true })).toBeVisible();

  // Profile changes are saved and reach the store.
  await page.goto("/dashboard/profile");
  await settled(page);
  await page.getByLabel("About you").fill("Waveform tools, made in a shed.");
  await expect(page.getByLabel("About you")).toHaveValue("Waveform tools, made in a shed.");
  await page.getByRole("button", { name: "Save profile" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Profile saved" })).toBeVisible();
  await expect(page.getByLabel("About you")).toHaveValue("Waveform tools, made in a shed.");

  // Unlisted: gone from the store (404) and the catalog.
  await page.goto("/dashboard/products");
  await page.getByRole("button", { name: `Unlist ${productName}` }).click();
  await expect(page.getByRole("status").filter({ hasText: "Product unlisted" })).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: productName })).toContainText("Unlisted");
  const storePage = await page.goto(`/products/${productId}`);
  expect(storePage?.status()).toBe(404);
  const after = await (await page.request.get(`/api/catalog?search=${encodeURIComponent(productName)}`)).json();
  expect(after.products.map((p: { id: string }) => p.id)).not.toContain(productId);

  // The owner may still edit it over the API (proves the route works for the right seller)…
  const body = {
    name: productName,
    tagline: "See every sample of a WAV file, instantly.",
    description: "A fast waveform viewer for audio developers: open huge files, zoom to the sample, compare two takes.",
    plugin_id: pluginId,
    price_cents: 2450,
    category: "dev-tools",
    max_machines: 3,
    seat_model: "per-machine",
    trial_available: true,
    trial_days: 7,
    platforms: ["macos", "linux"],
    download_url: "https://example.com/downloads/waveform-inspector.zip",
    icon_url: iconPath,
  };
  expect((await page.request.put(`/api/v1/products/${productId}`, { data: body })).status()).toBe(200);

  // …but a second seller, in a browser of their own, gets 404s for it: page and API alike.
  const other = await browser.newContext({ baseURL });
  const otherPage = await other.newPage();
  await signIn(otherPage, `e2e-other-seller-${run}@example.com`);
  await createProfile(otherPage, `Other Studio ${run}`);
  const foreign = await otherPage.goto(`/dashboard/products/${productId}`);
  expect(foreign?.status()).toBe(404);
  await expect(otherPage.getByRole("heading", { level: 1 })).toHaveText("Nothing of yours here");
  await settled(otherPage);
  await otherPage.screenshot({ path: "e2e/artifacts/screens/dashboard-other-seller-404.png", fullPage: true });
  const put = await other.request.put(`/api/v1/products/${productId}`, { data: { ...body, name: "Hijacked" } });
  expect(put.status()).toBe(404);
  const stillOurs = await (await page.request.get(`/api/v1/products/${productId}`)).json();
  expect(stillOurs.product.name).toBe(productName);
  await other.close();
});

test("signing in: the form reports a refused address, and the dashboard needs a session", async ({ page }) => {
  const anonymous = await page.goto("/dashboard/products");
  expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
  expect(anonymous?.status()).toBe(200);
  // The sign-in route sends a code; only known codes show a message, in our words.
  await page.goto("/dashboard/sign-in?error=Your%20account%20is%20locked.%20Call%20%2B1%20555%200100%20to%20unlock%20it.");
  await expect(page.getByLabel("E-mail address")).toBeVisible();
  await expect(page.locator("#sign-in-error")).toHaveCount(0);
  await expect(page.getByText(/locked/)).toHaveCount(0);
  await page.goto("/dashboard/sign-in?error=invalid-email");
  await expect(page.locator("#sign-in-error")).toHaveText("Please enter a valid e-mail address.");
  await expect(page.locator("#sign-in-error")).toHaveAttribute("role", "alert");
  await expect(page.getByLabel("E-mail address")).toHaveAttribute("aria-describedby", "sign-in-error");
  await page.setViewportSize({ width: 390, height: 844 });
  await noHorizontalScroll(page);
});
