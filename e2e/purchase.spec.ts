import { createHash } from "node:crypto";
import { expect, test } from "./fixtures";

test("buy in test mode: create a checkout over the API, pay in the browser, use the key", async ({ page, request, shot }) => {
  const { products } = await (await request.get("/api/marketplace/listings?sort=price_desc&limit=1")).json();
  const product = products[0];
  const email = `e2e-buyer-${Date.now()}@example.com`;
  const created = await request.post("/api/checkout/create", { data: { product_id: product.id, buyer_email: email, agent_id: "e2e-agent" } });
  expect(created.status()).toBe(200);
  const { url, session_id } = await created.json();

  await page.goto(url);
  await expect(page.getByText(/test mode/i).first()).toBeVisible();
  // Every price carries its ISO code; the summary lists quantity, subtotal, tax (not calculated in test mode) and total.
  expect(product.price_display).toMatch(new RegExp(` ${product.currency.toUpperCase()}$`));
  await expect(page.getByText(product.price_display).first()).toBeVisible();
  const charges = page.getByTestId("order-charges");
  await expect(charges).toContainText(`1 × ${product.price_display}`);
  await expect(charges.getByText("Tax")).toBeVisible();
  await expect(charges).toContainText("not calculated");
  await expect(page.getByRole("button", { name: `Pay ${product.price_display}` })).toBeVisible();
  await expect(page.getByText(email).first()).toBeVisible();
  await shot("checkout-test-mode");
  await page.getByRole("button", { name: /^pay/i }).click();

  await expect(page).toHaveURL(new RegExp(`/checkout/${session_id}/success$`));
  const key = (await page.getByTestId("license-key").textContent())!.trim();
  expect(key).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  await expect(page.getByRole("link", { name: /download/i }).first()).toBeVisible();
  await expect(page.getByText(email).first()).toBeVisible();
  await expect(page.getByText(`You paid ${product.price_display}`)).toBeVisible();
  await expect(page.getByTestId("order-charges")).toContainText(`Up to ${product.max_machines} machine`);
  await expect(page.getByTestId("order-charges")).toContainText("not calculated");
  await shot("checkout-success");

  // The agent's follow-up, without scraping the page.
  const status = await (await request.get(`/api/checkout/${session_id}`)).json();
  expect(status).toMatchObject({ status: "paid", agent_id: "e2e-agent", license: { license_key: key, delivered_to: email } });

  // The key reached the (development) mailbox.
  await expect
    .poll(async () => (await (await request.get(`/api/dev/mailbox?to=${encodeURIComponent(email)}`)).json()).messages.length, { timeout: 10_000 })
    .toBe(1);
  const { messages } = await (await request.get(`/api/dev/mailbox?to=${encodeURIComponent(email)}`)).json();
  expect(messages[0].text).toContain(key);
  expect(messages[0].text).toMatch(new RegExp(`Total paid:\\s+${product.price_display.replace(/[$.]/g, "\\$&")}`));
  expect(messages[0].text).toMatch(/Tax:\s+not calculated/);
  expect(messages[0].status).toBe("sent");

  // The app activates and validates it.
  const fp = createHash("sha256").update("AMD Ryzen 9|macos-e2e").digest("hex");
  const body = { license_key: key, machine_fingerprint: fp, plugin_id: product.plugin_id };
  expect(await (await request.post("/activate", { data: body })).json()).toMatchObject({ activated: true });
  expect(await (await request.post("/validate", { data: body })).json()).toMatchObject({ valid: true, machine_bound: true, trial: false });
  const receipt = await (await request.get(`/api/receipt?key=${key}`)).json();
  expect(receipt.receipt).toMatchObject({ license_key: key, product_id: product.id, buyer_email: email, is_active: true });
});

test("the Buy form on the product page leads to the same checkout", async ({ page }) => {
  await page.goto("/products/tape-warmth");
  await page.getByLabel("E-mail address", { exact: true }).fill("form-buyer@example.com");
  await page.getByRole("button", { name: /^buy$/i }).click();
  await expect(page).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]{24}$/);
  await page.getByRole("button", { name: /^pay/i }).click();
  await expect(page.getByTestId("license-key")).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
});

test("a bad e-mail goes back to the Buy form with the problem", async ({ page }) => {
  await page.goto("/products/tape-warmth");
  await page.getByLabel("E-mail address", { exact: true }).fill("x@y");
  await page.getByLabel("E-mail address", { exact: true }).evaluate((el: HTMLInputElement) => (el.type = "text"));
  await page.getByRole("button", { name: /^buy$/i }).click();
  await expect(page.locator("#buy_error")).toContainText(/e-mail/i);
  await expect(page.locator("#buy_error")).toHaveAttribute("role", "alert");
  await expect(page.getByLabel("E-mail address", { exact: true })).toHaveValue("x@y");
  expect(new URL(page.url()).searchParams.get("buy_error")).toBe("invalid_email");

  // Words in a crafted link are never shown: only the codes the page knows have a message.
  await page.goto(`/products/tape-warmth?buy_error=${encodeURIComponent("Payment failed. Call +1 555 0100 to finish your order.")}#buy`);
  await expect(page.getByRole("button", { name: /^buy$/i })).toBeVisible();
  await expect(page.locator("#buy_error")).toHaveCount(0);
  await expect(page.getByText(/555 0100/)).toHaveCount(0);
});
