import { expect, noHorizontalScroll, test } from "./fixtures";
import { PAGE_SIZE } from "../components/store/browse-query";

test("the home page lists the seeded catalogue and searches it", async ({ page, request, shot }) => {
  const api = await (await request.get("/api/marketplace/listings?limit=1")).json();
  expect(api.total).toBeGreaterThanOrEqual(24);

  await page.goto("/");
  await expect(page).toHaveTitle(/Indie License Market/);
  await expect(page.locator("#results-heading")).toContainText(`${api.total} products`);
  const cards = page.locator('main a[href^="/products/"]');
  expect(await cards.count()).toBeGreaterThan(0);
  await shot("home");

  const first = api.products[0];
  const word = first.name.split(" ")[0];
  await page.getByRole("searchbox").fill(word);
  await page.getByRole("searchbox").press("Enter");
  await expect(page).toHaveURL(new RegExp(`[?&]q=${word}`));
  await expect(page.locator(`main a[href="/products/${first.id}"]`).first()).toBeVisible();
});

test("category navigation filters the listing", async ({ page, request }) => {
  const { categories } = await (await request.get("/api/marketplace/categories")).json();
  const audio = categories.find((c: { category: string }) => c.category === "audio-plugins");
  // The page shows the first PAGE_SIZE, newest first, as the API does without a sort: once the other specs have listed
  // their own audio plugins there are more than fit on one page.
  const listed = await (await request.get(`/api/marketplace/listings?category=audio-plugins&limit=${PAGE_SIZE}`)).json();
  await page.goto("/");
  await page.getByRole("link", { name: /^Audio plugins/ }).click();
  await expect(page).toHaveURL(/category=audio-plugins/);
  await expect(page.locator("#results-heading")).toContainText(`${audio.count} products`);
  const hrefs = await page.locator('main a[href^="/products/"]').evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  expect(new Set(hrefs)).toEqual(new Set(listed.products.map((p: { id: string }) => `/products/${p.id}`)));
});

test("a product page shows the product, its offer as JSON-LD, and a buy form", async ({ page, request, shot }) => {
  const { products } = await (await request.get("/api/marketplace/listings?limit=1&sort=price_desc")).json();
  const p = products[0];
  await page.goto(`/products/${p.id}`);
  await expect(page.getByRole("heading", { level: 1, name: p.name })).toBeVisible();
  await expect(page.getByText(p.price_display).first()).toBeVisible();
  await expect(page.getByRole("link", { name: new RegExp(p.developer) }).first()).toBeVisible();
  const ld = JSON.parse((await page.locator('script[type="application/ld+json"]').first().textContent()) ?? "{}");
  expect(ld["@type"]).toBe("Product");
  expect(ld.offers.priceCurrency).toBe(p.currency.toUpperCase());
  expect(ld.offers.price).toBe((p.price_cents / 100).toFixed(2));
  // The shown price names its currency, so "$" is never left to mean any dollar.
  expect(p.price_display).toMatch(new RegExp(`^\\S+ ${p.currency.toUpperCase()}$`));
  await expect(page.getByLabel("E-mail address", { exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: /buy/i })).toBeVisible();
  // A shared link previews the cover, wide (every demo product has one), and search engines get it first too.
  const og = await page.locator('meta[property="og:image"]').getAttribute("content");
  expect(og).toMatch(/^http:\/\/[^/]+\/uploads\/media\/[0-9a-f]+\.png$/);
  await expect(page.locator('meta[property="og:image:width"]')).toHaveAttribute("content", "1200");
  await expect(page.locator('meta[name="twitter:card"]')).toHaveAttribute("content", "summary_large_image");
  expect(ld.image[0]).toBe(og);
  const cover = await request.get(new URL(og!).pathname);
  expect(cover.status()).toBe(200);
  expect(cover.headers()["content-type"]).toBe("image/png");
  await shot("product");
});

test("an unknown product gets a real 404 page", async ({ page, shot }) => {
  const response = await page.goto("/products/no-such-product");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await shot("not-found");
});

test("the storefront fits a 390 px phone screen", async ({ page, shot }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await noHorizontalScroll(page);
  await shot("home-phone");
  const href = await page.locator('main a[href^="/products/"]').first().getAttribute("href");
  await page.goto(href!);
  await noHorizontalScroll(page);
  await shot("product-phone");
});

test("the API answers with Link headers and problem documents", async ({ request }) => {
  const health = await request.get("/health");
  expect(await health.json()).toEqual({ status: "ok", version: "0.3.0" });
  const listing = await request.get("/api/marketplace/listings");
  expect(listing.headers()["link"]).toContain('rel="mcp"');
  const bad = await request.get("/api/marketplace/listings?sort=nonsense");
  expect(bad.status()).toBe(400);
  expect(bad.headers()["content-type"]).toBe("application/problem+json");
  expect((await bad.json()).code).toBe("invalid_query");
  const missing = await request.get("/api/marketplace/product/nope");
  expect(missing.status()).toBe(404);
});
