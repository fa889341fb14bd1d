import { expect, noHorizontalScroll, test } from "./fixtures";
import { createSeatProduct, newSeller } from "./support/seller-profile";

test("a seller makes a checkout link with seats and a coupon; a buyer opens it and pays; the Sales page counts it", async ({
  page,
  browser,
  baseURL,
  shot,
}) => {
  test.setTimeout(120_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  await newSeller(page, `e2e-links-${run}@example.com`, { name: `Link Studio ${run}`, about: "Tools sold by the seat through shared links." });
  await createSeatProduct(page, {
    name: `Link Tape ${run}`,
    pluginId: `com.e2e.links${run}`,
    tagline: "Tape warmth for the whole studio.",
    description: "A per-seat product created by the checkout links end-to-end test, with a long enough description.",
  });
  const code = `LINK${run}`.toUpperCase().slice(0, 20);
  const coupon = await page.request.post("/api/v1/coupons", { data: { code, kind: "percent", percent_off: 20 } });
  expect(coupon.status(), await coupon.text()).toBe(201);

  // The Links page: two seats with the coupon, at most 3 purchases.
  const slug = `spring-${run}`;
  await page.goto("/dashboard/links");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Checkout links");
  await page.getByLabel("Product", { exact: true }).selectOption({ label: `Link Tape ${run}` });
  await page.getByLabel("Name", { exact: true }).fill("Spring newsletter");
  await page.getByLabel("Address", { exact: true }).fill(slug);
  await page.getByLabel("Seats", { exact: true }).fill("2");
  await page.getByLabel("Coupon", { exact: true }).selectOption(code);
  await page.getByLabel("Use limit").fill("3");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page).toHaveURL(/\/dashboard\/links\?done=created/);
  await expect(page.locator("#links-notice")).toContainText("Checkout link created");
  const row = page.getByTestId(`link-${slug}`);
  await expect(row).toContainText("Spring newsletter");
  await expect(row).toContainText("0 of 3");
  const url = (await row.locator("code").first().textContent())!.trim();
  expect(url).toMatch(new RegExp(`/developers/[^/]+/buy/${slug}$`));
  await noHorizontalScroll(page);
  await shot("dashboard-checkout-links");

  // A buyer in a browser of their own opens the link: 2 × €25.00 less 20 % is €40.00.
  const buyer = await browser.newContext({ baseURL });
  const shop = await buyer.newPage();
  await shop.goto(new URL(url).pathname);
  await expect(shop.getByRole("heading", { level: 1 })).toHaveText(`Link Tape ${run}`);
  const price = shop.locator("#checkout-link-price");
  await expect(price).toContainText("2 seats");
  await expect(price).toContainText("€50.00 EUR");
  await expect(price).toContainText("−€10.00 EUR");
  await expect(shop.getByTestId("checkout-link-amount")).toHaveText("€40.00 EUR");
  await shop.getByLabel(/e-?mail/i).fill(`e2e-link-buyer-${run}@example.com`);
  await shop.getByRole("button", { name: /^buy$/i }).click();
  await expect(shop).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]{24}$/);
  const sessionId = /\/checkout\/(cs_[A-Za-z0-9]{24})$/.exec(shop.url())![1]!;
  await shop.getByRole("button", { name: /^pay/i }).click();
  await expect(shop.getByTestId("license-key")).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  const status = await (await shop.request.get(`/api/checkout/${sessionId}`)).json();
  expect(status).toMatchObject({ status: "paid", quantity: 2, subtotal_cents: 5000, discount_cents: 1000, amount_cents: 4000, coupon_code: code });
  // A link that does not exist says so plainly, as a real 404.
  expect((await shop.goto(`${new URL(url).pathname}-nope`))?.status()).toBe(404);
  await expect(shop.locator("#checkout-link-refused")).toContainText("does not work");
  await buyer.close();

  // The Sales page counts the link's visit, checkout and sale, and its revenue.
  await page.goto("/dashboard/sales");
  const sales = page.getByTestId(`link-sales-${slug}`);
  await expect(sales).toContainText("Spring newsletter");
  await expect(sales.locator("td").nth(1)).toHaveText("1");
  await expect(sales.locator("td").nth(2)).toHaveText("1");
  await expect(sales.locator("td").nth(3)).toHaveText("1");
  await expect(sales.locator("td").nth(4)).toHaveText("€40.00 EUR");
  await shot("dashboard-sales-checkout-links");

  // Turned off on the Links page, the link no longer sells.
  await page.goto("/dashboard/links");
  await page.getByRole("button", { name: "Turn off link Spring newsletter" }).click();
  await expect(page).toHaveURL(/\/dashboard\/links\?done=deactivated/);
  const off = await page.request.get(`/api/checkout-links/${new URL(url).pathname.split("/")[2]}/${slug}`);
  expect(off.status()).toBe(404);
  expect(await off.json()).toMatchObject({ code: "checkout_link_not_found" });
});
