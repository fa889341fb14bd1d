import { expect, noHorizontalScroll, test } from "./fixtures";
import { createSeatProduct, newSeller } from "./support/seller-profile";

test("a seller creates a coupon on the Coupons page; a buyer buys seats with it on the product page", async ({ page, browser, baseURL, shot }) => {
  test.setTimeout(120_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  await newSeller(page, `e2e-coupons-${run}@example.com`, { name: `Coupon Studio ${run}`, about: "Tools sold by the seat to small teams." });
  const productId = await createSeatProduct(page, {
    name: `Team Tape ${run}`,
    pluginId: `com.e2e.coupons${run}`,
    tagline: "Tape warmth for the whole studio.",
    description: "A per-seat product created by the coupons end-to-end test, with a long enough description.",
  });

  // The Coupons page: a 20 % code for this product, limited to 5 purchases.
  const code = `TEAM${run}`.toUpperCase().slice(0, 20);
  await page.goto("/dashboard/coupons");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Coupons");
  await page.getByLabel("Code", { exact: true }).fill(code.toLowerCase());
  await page.getByLabel("Percent off").fill("20");
  await page.getByLabel("Redemption limit").fill("5");
  await page.getByRole("checkbox", { name: new RegExp(`Team Tape ${run}`) }).check();
  await page.getByRole("button", { name: "Create coupon" }).click();
  await expect(page).toHaveURL(/\/dashboard\/coupons\?done=created/);
  await expect(page.locator("#coupons-notice")).toContainText("Coupon created");
  const row = page.getByRole("row", { name: new RegExp(code) });
  await expect(row).toContainText("20 % off");
  await expect(row).toContainText("0 of 5");
  await noHorizontalScroll(page);
  await shot("dashboard-coupons");

  // A buyer, in a browser of their own: two seats with the code typed in lower case; the preview agrees with checkout.
  const buyer = await browser.newContext({ baseURL });
  const shop = await buyer.newPage();
  await shop.goto(`/products/${productId}`);
  await shop.getByLabel(/e-?mail/i).fill(`e2e-coupon-buyer-${run}@example.com`);
  await shop.getByLabel("Seats").fill("2");
  await shop.getByLabel(/coupon code/i).fill("no-such-code");
  await expect(shop.locator("#buy_preview")).toContainText("not a valid code");
  await shop.getByRole("button", { name: /^buy$/i }).click();
  // Refused: the page says why and keeps everything typed.
  await expect(shop.locator("#buy_error")).toContainText(/coupon code is not valid/i);
  await expect(shop.getByLabel(/coupon code/i)).toHaveValue("no-such-code");
  await expect(shop.getByLabel("Seats")).toHaveValue("2");
  await expect(shop.getByLabel(/e-?mail/i)).toHaveValue(`e2e-coupon-buyer-${run}@example.com`);

  await shop.getByLabel(/coupon code/i).fill(code.toLowerCase());
  const preview = shop.locator("#buy_preview");
  await expect(preview).toContainText("2 seats");
  await expect(preview).toContainText("€50.00 EUR");
  await expect(preview).toContainText("−€10.00 EUR");
  await expect(preview).toContainText("€40.00 EUR");
  await shop.screenshot({ path: "e2e/artifacts/screens/product-buy-coupon-preview.png", fullPage: true });
  await shop.getByRole("button", { name: /^buy$/i }).click();
  await expect(shop).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]{24}$/);
  const sessionId = /\/checkout\/(cs_[A-Za-z0-9]{24})$/.exec(shop.url())![1]!;
  await shop.getByRole("button", { name: /^pay/i }).click();
  await expect(shop.getByTestId("license-key")).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  const status = await (await shop.request.get(`/api/checkout/${sessionId}`)).json();
  expect(status).toMatchObject({
    status: "paid",
    quantity: 2,
    subtotal_cents: 5000,
    discount_cents: 1000,
    coupon_code: code,
    amount_cents: 4000,
    fee_cents: 200,
    tax_cents: null,
    currency: "eur",
    license: { max_machines: 4 },
  });
  await buyer.close();

  // Back on the Coupons page: one redemption used; deactivating stops it.
  await page.goto("/dashboard/coupons");
  await expect(page.getByRole("row", { name: new RegExp(code) })).toContainText("1 of 5");
  await page.getByRole("button", { name: `Deactivate coupon ${code}` }).click();
  await expect(page).toHaveURL(/\/dashboard\/coupons\?done=deactivated/);
  await expect(page.getByRole("row", { name: new RegExp(code) })).toContainText("Deactivated");
  const refused = await page.request.post("/api/checkout/quote", { data: { product_id: productId, coupon_code: code } });
  expect(refused.status()).toBe(404);
  expect(await refused.json()).toMatchObject({ code: "coupon_not_found" });
});
