import { products as catalogue } from "../prisma/seed/catalogue";
import { expect, noHorizontalScroll, test } from "./fixtures";

interface Listed {
  id: string;
  name: string;
  category: string;
  developer_id: string;
}

const LONG_TERM = `tape${"x".repeat(196)}`;

for (const width of [390, 1280]) {
  test(`a 200-character search term wraps at ${width} px: nothing is wider than the screen`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/?q=${LONG_TERM}`);
    const heading = page.locator("#results-heading");
    await expect(heading).toContainText("No products match");
    await noHorizontalScroll(page);
    // The heading itself wraps: it is no wider than the screen and its text does not run out of it.
    const box = await heading.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(width);
    expect(await heading.evaluate((h) => h.scrollWidth - h.clientWidth)).toBeLessThanOrEqual(0);
    expect(box!.height).toBeGreaterThan(40);
    await expect(page.getByRole("searchbox")).toHaveValue(LONG_TERM);
  });
}

test("category counts follow the search", async ({ page, request }) => {
  const q = "tape";
  await page.goto(`/?q=${q}`);
  const { categories } = await (await request.get("/api/marketplace/categories")).json();
  const nav = page.getByRole("navigation", { name: "Categories" });
  let total = 0;
  for (const { category } of categories as { category: string }[]) {
    const listed = (await (await request.get(`/api/marketplace/listings?search=${q}&category=${category}&limit=1`)).json()) as { total: number };
    total += listed.total;
    const chip = nav.locator(`a[href*="category=${category}"]`);
    await expect(chip, category).toContainText(`${listed.total} products)`);
    // Choosing it keeps the search and lists exactly that many.
    expect(await chip.getAttribute("href"), category).toContain(`q=${q}`);
  }
  expect(total).toBeGreaterThan(0);
  await expect(nav.getByRole("link", { name: /^All/ })).toContainText(`${total} products)`);
});

test("category chips on a developer's products keep the developer", async ({ page, request }) => {
  const { products } = (await (await request.get("/api/marketplace/listings?limit=50")).json()) as { products: Listed[] };
  const categoriesOf = new Map<string, Set<string>>();
  for (const p of products) categoriesOf.set(p.developer_id, (categoriesOf.get(p.developer_id) ?? new Set()).add(p.category));
  const [developer, categories] = [...categoriesOf].find(([, c]) => c.size > 1)!;
  const category = [...categories][1]!;

  await page.goto(`/?developer=${developer}`);
  await page
    .getByRole("navigation", { name: /Categories/ })
    .locator(`a[href*="category=${category}"]`)
    .click();
  await expect(page).toHaveURL(new RegExp(`category=${category}`));
  expect(page.url()).toContain(developer);
  const shown = await page.locator('main a[href^="/products/"]').evaluateAll((as) => [...new Set(as.map((a) => a.getAttribute("href")))]);
  const expected = products.filter((p) => p.developer_id === developer && p.category === category).map((p) => `/products/${p.id}`);
  expect(shown.sort()).toEqual(expected.sort());
});

test("choosing a sort order applies it at once, and a search is ranked by relevance", async ({ page }) => {
  await page.goto("/?q=tape");
  const sort = page.getByLabel("Sort by");
  await expect(sort).toHaveValue("relevance");
  await expect(page.getByRole("button", { name: "Sort" })).toHaveCount(0);
  await sort.selectOption("price_asc");
  await expect(page).toHaveURL(/[?&]sort=price_asc/);
  await expect(page).toHaveURL(/[?&]q=tape/);
  await expect(page.getByLabel("Sort by")).toHaveValue("price_asc");
  // Newest, the default without a search, is kept in the URL with one. The new page's select works once it is
  // hydrated: a choice made before that is a plain select change, which goes nowhere (seen once on a busy machine).
  await page.waitForLoadState("networkidle");
  await page.getByLabel("Sort by").selectOption("newest");
  await expect(page).toHaveURL(/[?&]sort=newest/);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("sorting works with the button", async ({ page }) => {
    await page.goto("/?q=tape");
    await page.getByLabel("Sort by").selectOption("price_desc");
    await page.getByRole("button", { name: "Sort" }).click();
    await expect(page).toHaveURL(/[?&]sort=price_desc/);
    await expect(page.getByLabel("Sort by")).toHaveValue("price_desc");
  });
});

test("a search forgives spelling and a typo", async ({ page, request }) => {
  const { products } = (await (await request.get("/api/marketplace/listings?limit=50")).json()) as { products: Listed[] };
  // A word of five letters or more from a demo catalogue product's name (the same in every run; products other specs
  // create are not in the seed, whatever their run suffix looks like), with two of its letters swapped.
  const seeded = new Set(catalogue.map((p) => p.id));
  const demo = products.filter((p) => seeded.has(p.id));
  const word = demo.flatMap((p) => p.name.split(/\s+/)).find((w) => /^[A-Za-z]{5,}$/.test(w) && w[2] !== w[3])!;
  const typo = `${word.slice(0, 2)}${word.charAt(3)}${word.charAt(2)}${word.slice(4)}`;
  await page.goto(`/?q=${encodeURIComponent(typo)}`);
  const named = demo.filter((p) => p.name.split(/\s+/).includes(word));
  await expect(page.locator(`main a[href="/products/${named[0]!.id}"]`).first()).toBeVisible();
});
