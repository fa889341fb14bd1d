import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { connectTestPayouts } from "./support/payouts";
import { signIn } from "./support/sign-in";
import { fillSupportAndRefunds, publishOpenProduct } from "./support/seller-profile";

// Amounts typed the way people write them, in Chromium: a EUR price typed "19,90" is listed at €19.90 EUR (it was
// 1,990.00); "1,234" is refused as ambiguous, naming both readings; a partial refund typed "1,5" refunds €1.50 EUR (it
// was 15.00), and the line under the field and the notice after say so; a coupon's "2,50" off is €2.50 EUR.

// Its own operator: specs running side by side that sign the same address in could each open the other's link.
const OPERATOR = "operator-money-input@e2e.example.com";

/** Waits for hydration: text filled before it can land beside the old text, and the live line needs the script. */
async function settled(page: Page) {
  await page.waitForLoadState("networkidle");
}

test("a seller types EUR amounts with a decimal comma: price, ambiguous price, coupon, partial refund", async ({ page, browser, baseURL }) => {
  test.setTimeout(180_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const productName = `Comma Compressor ${run}`;
  const buyerEmail = `e2e-money-input-buyer-${run}@example.com`;

  await signIn(page, `e2e-money-input-${run}@example.com`);
  await expect(page).toHaveURL(/\/dashboard\/welcome$/);
  await page.getByLabel("Developer or studio name").fill(`Comma Studio ${run}`);
  await page.getByLabel("About you").fill("Plugins priced in euros, typed the European way.");
  await fillSupportAndRefunds(page);
  await page.getByRole("button", { name: "Create profile" }).click();
  await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);
  await connectTestPayouts(page);

  // "1,234" in EUR: a thousand and more, or one euro and a bit? Refused, with both readings and how to write it.
  await page.goto("/dashboard/products/new");
  await settled(page);
  await page.getByLabel("Name", { exact: true }).fill(productName);
  await page.getByLabel("Tagline").fill("A compressor priced with a decimal comma.");
  await page.getByLabel("Description").fill("A compressor plugin whose price the seller typed the way it is written in Germany.");
  await page.getByLabel("Category").selectOption("audio-plugins");
  await page.getByLabel("Price", { exact: true }).fill("1,234");
  await page.getByLabel("Currency").selectOption("eur");
  await page.getByLabel("Machines per license").fill("2");
  await page.getByRole("checkbox", { name: "macOS" }).check();
  await page.getByLabel("Download URL").fill("https://example.com/downloads/comma-compressor.zip");
  await page.getByLabel("…or Icon URL").fill("/icons/tape-warmth.svg");
  await page.getByLabel("Plugin ID").fill(`com.e2e.comma${run}`);
  await page.getByRole("button", { name: "Create product" }).click();
  await expect(page.locator("#product-problems")).toBeVisible();
  await expect(page.getByLabel("Price", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator("#product-price-error")).toContainText("Did you mean €1,234.00 EUR or €1.234 EUR?");
  await expect(page.locator("#product-price-error")).toContainText("Write 1234 or 1234");
  await expect(page).toHaveURL(/\/dashboard\/products\/new$/);

  // "19,90": nineteen euros ninety, shown as such on the seller's page and in the store.
  await page.getByLabel("Price", { exact: true }).fill("19,90");
  await page.getByLabel("Currency").selectOption("eur");
  await page.getByRole("button", { name: "Create product" }).click();
  await expect(page).toHaveURL(/\/dashboard\/products\/[a-z0-9-]+\?notice=product-created$/);
  await publishOpenProduct(page);
  const productId = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.locator("main")).toContainText("€19.90 EUR");
  const shop = await (await browser.newContext({ baseURL })).newPage();
  await shop.goto(`/products/${productId}`);
  await expect(shop.getByText("€19.90 EUR").first()).toBeVisible();

  // A coupon of "2,50" off: the notice and the list repeat €2.50 EUR.
  const code = `COMMA${run}`.toUpperCase().slice(0, 20);
  await page.goto("/dashboard/coupons");
  await settled(page);
  await page.getByLabel("Code", { exact: true }).fill(code);
  await page.getByRole("radio", { name: /A fixed amount/ }).check();
  await page.getByLabel("Amount off").fill("2,50");
  await page.getByLabel("Currency of the amount").selectOption("eur");
  await page.getByRole("button", { name: "Create coupon" }).click();
  await expect(page).toHaveURL(/\/dashboard\/coupons\?done=created/);
  await expect(page.locator("#coupons-notice")).toContainText(`Coupon created: ${code}, €2.50 EUR off.`);
  await expect(page.getByRole("row", { name: new RegExp(code) })).toContainText("€2.50 EUR off");

  // The buyer pays €19.90 EUR in test mode.
  await shop.getByLabel(/e-?mail/i).fill(buyerEmail);
  await shop.getByRole("button", { name: /^buy$/i }).click();
  await expect(shop).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]{24}$/);
  const sessionId = /\/checkout\/(cs_[A-Za-z0-9]{24})$/.exec(shop.url())![1]!;
  await shop.getByRole("button", { name: /^pay/i }).click();
  await expect(shop.getByTestId("license-key")).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  await expect(shop.getByTestId("order-charges")).toContainText("€19.90 EUR");
  await shop.context().close();

  // The seller refunds part of it. The line under the amount reads what is typed as the server will.
  await page.goto(`/dashboard/orders/${sessionId}`);
  await settled(page);
  const line = page.locator("#refund-amount-understood");
  await expect(line).toHaveText(`Refund all that remains, €19.90 EUR, to ${buyerEmail}.`);
  await page.getByRole("radio", { name: /Part of it/ }).check();
  const amount = page.getByLabel("Amount in EUR");
  await amount.fill("1,234");
  await expect(line).toContainText("Did you mean €1,234.00 EUR or €1.234 EUR?");
  await amount.fill("25");
  await expect(line).toHaveText("That is more than the €19.90 EUR that remains.");
  await amount.fill("1,5");
  await expect(line).toHaveText(`Refund €1.50 EUR to ${buyerEmail}.`);
  await page.getByLabel("Reason").fill("Half a preset bank was missing.");
  await page.getByRole("checkbox", { name: /I understand/ }).check();
  await page.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(page).toHaveURL(/\?refund=/);
  await expect(page.getByRole("status").filter({ hasText: "Refunded" })).toContainText(`Refunded €1.50 EUR to ${buyerEmail}.`);
  await expect(page.getByRole("status").filter({ hasText: "Refunded" })).toContainText("the license keeps working");
  const refunds = page.getByRole("region", { name: "Refunds table" });
  await expect(refunds).toContainText("€1.50 EUR");
  await expect(refunds).toContainText("Half a preset bank was missing.");
  // What remains is what was paid less €1.50.
  await expect(page.getByText("Up to €18.40 EUR can still be refunded.")).toBeVisible();

  // The operator's console reads its refund amount the same way, and says what it refunded.
  const operator = await (await browser.newContext({ baseURL })).newPage();
  await signIn(operator, OPERATOR);
  await operator.goto(`/admin/orders/${sessionId}`);
  await settled(operator);
  const operatorLine = operator.locator("#refund-amount-understood");
  await expect(operatorLine).toHaveText(`Refund all that remains, €18.40 EUR, to ${buyerEmail}.`);
  const operatorAmount = operator.getByLabel(/^Amount in EUR/);
  await operatorAmount.fill("1.234");
  await expect(operatorLine).toContainText("Did you mean €1,234.00 EUR or €1.234 EUR?");
  await operator.getByLabel(/^Reason/).fill("Goodwill for the missing presets.");
  // The console confirms a refund as the seller's form does: the box is ticked first.
  await operator.getByLabel(/I understand the money goes back/).check();
  // Sent anyway, the server refuses it too, and nothing is refunded.
  await operator.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(operator.locator("#admin-error")).toContainText("could be read two ways");
  await expect(operator.locator("main")).toContainText("€18.40 EUR remains");
  await settled(operator);
  await operatorAmount.fill("0,40");
  await expect(operatorLine).toHaveText(`Refund €0.40 EUR to ${buyerEmail}.`);
  await operator.getByLabel(/^Reason/).fill("Goodwill for the missing presets.");
  await operator.getByLabel(/I understand the money goes back/).check();
  await operator.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(operator.locator("#admin-notice")).toHaveText(
    `Refunded €0.40 EUR to ${buyerEmail}. The buyer is told by e-mail; a full refund revokes the license.`,
  );
  await expect(operator.locator("main")).toContainText("€18.00 EUR remains");
  await operator.context().close();
});
