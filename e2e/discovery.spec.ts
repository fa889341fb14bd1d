import type { Locator, Page } from "@playwright/test";
import { publishOpenProduct } from "./support/seller-profile";
import { expect, noHorizontalScroll, test } from "./fixtures";
import { connectTestPayouts } from "./support/payouts";
import { tinyPng } from "./support/png";
import { signIn } from "./support/sign-in";

// Discovery: the home page's rows (the operator features a product from /admin), a developer's own page with its
// profile header (the old ?developer= view redirects there), and the product form keeping everything the seller
// entered (the category and the chosen files included) after a refusal, on the new and the edit page.

const OPERATOR = "operator-discovery@e2e.example.com";

interface Listed {
  id: string;
  name: string;
  developer: string;
  developer_id: string;
}

/** The cards of one of the home page's rows. */
const rowCards = (page: Page, row: string) => page.getByTestId(`row-${row}`).locator("ul").first().locator(":scope > li");

const fileCount = (input: Locator) => input.evaluate((el: HTMLInputElement) => el.files?.length ?? 0);

test("the operator features a product in /admin and it leads the home page's Featured row, on a phone too", async ({ page, request, shot }) => {
  test.setTimeout(90_000);
  const { products } = (await (await request.get("/api/marketplace/listings?sort=price_asc&limit=1")).json()) as { products: Listed[] };
  const product = products[0]!;

  await signIn(page, OPERATOR);
  await page.goto(`/admin/products?q=${encodeURIComponent(product.id)}`);
  const row = page.getByRole("row").filter({ hasText: product.name });
  await page.waitForLoadState("networkidle");
  await row.getByRole("button", { name: `Feature ${product.name}` }).click();
  await expect(page.locator("#admin-notice")).toContainText("Listing featured", { timeout: 15_000 });
  await expect(page.getByRole("row").filter({ hasText: product.name }).getByText("Featured", { exact: true })).toBeVisible();

  await page.goto("/");
  await expect(rowCards(page, "featured").first().getByRole("link", { name: product.name })).toBeVisible();
  await expect(rowCards(page, "new")).toHaveCount(4);
  // The full listing is still below the rows, and the rows go away as soon as the visitor searches or filters.
  await expect(page.locator("#results-heading")).toContainText("products");
  await page.goto(`/?q=${encodeURIComponent(product.name)}`);
  await expect(page.getByRole("region", { name: "Featured" })).toHaveCount(0);

  // On a phone a row scrolls sideways, the next card showing at the edge; the page itself does not.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  const newRow = page.getByTestId("row-new").locator("ul").first();
  const widths = await newRow.evaluate((ul) => ({ scroll: ul.scrollWidth, client: ul.clientWidth }));
  expect(widths.scroll).toBeGreaterThan(widths.client);
  const second = await rowCards(page, "new").nth(1).boundingBox();
  expect(second!.x).toBeLessThan(390);
  await noHorizontalScroll(page);
  await shot("home-rows-phone");

  // Unfeatured again, it leaves the row.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/admin/products?q=${encodeURIComponent(product.id)}`);
  await page.waitForLoadState("networkidle");
  await page.getByRole("button", { name: `Unfeature ${product.name}` }).click();
  await expect(page.locator("#admin-notice")).toContainText("no longer featured", { timeout: 15_000 });
  await page.goto("/");
  await expect(page.getByRole("region", { name: "Featured" }).getByRole("link", { name: product.name })).toHaveCount(0);
});

test("a developer's page shows who they are and their products; the old ?developer= view redirects there", async ({ page, request, shot }) => {
  // A developer of the demo catalogue: a bio and a website (sellers made by other tests may have neither).
  const { products } = (await (await request.get("/api/marketplace/listings?sort=price_desc&limit=50")).json()) as { products: Listed[] };
  let details:
    | { id: string; developer_info: { id: string; name: string; website: string | null; bio: string; product_count: number; products_url: string } }
    | undefined;
  for (const p of products) {
    details = (await (await request.get(`/api/marketplace/product/${p.id}`)).json()).product;
    if (details?.developer_info.bio && details.developer_info.website) break;
  }
  const dev = details!.developer_info;
  expect(dev.products_url).toMatch(new RegExp(`/developers/${dev.id}$`));

  // From the product page's developer link.
  await page.goto(`/products/${details!.id}`);
  await page.getByRole("link", { name: `More from ${dev.name}`, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/developers/${dev.id}$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(dev.name);
  await expect(page).toHaveTitle(new RegExp(`^${dev.name}`));
  await expect(page.getByText(dev.bio)).toBeVisible();
  const facts = page.getByTestId("developer-facts");
  await expect(facts.getByRole("definition").nth(1)).toHaveText(String(dev.product_count));
  await expect(facts.getByRole("definition").first()).toHaveText(/^[A-Z][a-z]+ \d{4}$/);
  await expect(facts).toContainText(/No reviews yet|out of 5/);
  const website = facts.getByRole("link", { name: dev.website!.replace(/^https?:\/\//, "") });
  await expect(website).toHaveAttribute("href", dev.website!);
  await expect(website).toHaveAttribute("rel", "nofollow ugc noopener");
  // Their listed products, each card linking back to this page.
  const cards = page.locator("main article");
  await expect(cards).toHaveCount(Math.min(dev.product_count, 12));
  await expect(page.locator("#results-heading")).toHaveText(
    `${dev.product_count} ${dev.product_count === 1 ? "product" : "products"} by ${dev.name}`,
  );
  for (const card of await cards.all()) await expect(card.getByRole("link", { name: dev.name })).toHaveAttribute("href", `/developers/${dev.id}`);
  const ld = (await page.locator('script[type="application/ld+json"]').allTextContents()).map((t) => JSON.parse(t));
  expect(ld).toContainEqual(expect.objectContaining({ "@type": "Organization", name: dev.name }));
  await shot("developer");

  // Sorting keeps the developer: choosing an order applies it (the Sort button is only there without JavaScript),
  // and the form goes through the old view's redirect.
  await page.getByLabel("Sort by").selectOption("price_desc");
  await expect(page).toHaveURL(new RegExp(`/developers/${dev.id}\\?sort=price_desc$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(dev.name);

  const old = await request.get(`/?developer=${dev.id}&sort=price_asc&page=1`, { maxRedirects: 0 });
  expect(old.status()).toBe(308);
  expect(new URL(old.headers()["location"]!, "http://x").pathname + new URL(old.headers()["location"]!, "http://x").search).toBe(
    `/developers/${dev.id}?sort=price_asc`,
  );

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/developers/${dev.id}`);
  await noHorizontalScroll(page);
  await shot("developer-phone");

  for (const path of ["/developers/no-such-developer", "/developers/Not%20An%20Id"]) {
    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "We couldn't find that page" })).toBeVisible();
  }
});

/** A new seller who may list paid products: the profile (with what a paid listing shows) and the test payout account. */
async function newSeller(page: Page, run: string) {
  await signIn(page, `e2e-discovery-${run}@example.com`);
  await expect(page).toHaveURL(/\/dashboard\/welcome$/);
  await page.getByLabel("Developer or studio name").fill(`Discovery Studio ${run}`);
  await page.getByLabel("Website").fill("https://discovery.example.com");
  await page.getByLabel("About you").fill("Tools made for the discovery test.");
  await page.getByLabel("Refund policy").fill("Full refund within 14 days of purchase.");
  await page.getByLabel("Support e-mail").fill(`help-${run}@example.com`);
  await page.getByRole("button", { name: "Create profile" }).click();
  await expect(page).not.toHaveURL(/\/welcome/);
  await connectTestPayouts(page);
}

test("bug 1: after a refusal the product form keeps every field, the category and the chosen files included, on the new and the edit page", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  await newSeller(page, run);

  await page.goto("/dashboard/products/new");
  await page.getByLabel("Name", { exact: true }).fill(`Kept Fields ${run}`);
  await page.getByLabel("Description").fill("A product whose form is refused once and keeps everything the seller entered.");
  await page.getByLabel("Category").selectOption("dev-tools");
  await page.getByLabel("Price", { exact: true }).fill("12");
  await page.getByLabel("Currency").selectOption("eur");
  await page.getByRole("radio", { name: "Per user" }).check();
  await page.getByRole("checkbox", { name: "Linux" }).check();
  await page.getByRole("checkbox", { name: "Offer a free trial" }).check();
  await page.getByLabel("Download URL").fill("https://example.com/downloads/kept-fields.zip");
  await page.getByLabel("Icon file").setInputFiles({ name: "icon.png", mimeType: "image/png", buffer: tinyPng([79, 70, 229]) });
  await page.getByLabel("Screenshot files").setInputFiles([
    { name: "one.png", mimeType: "image/png", buffer: tinyPng([220, 38, 38]) },
    { name: "two.png", mimeType: "image/png", buffer: tinyPng([22, 163, 74]) },
  ]);
  await page.getByLabel("Plugin ID").fill("Not An Id");
  await page.getByRole("button", { name: "Create product" }).click();

  await expect(page.locator("#product-problems")).toBeVisible();
  await expect(page.getByLabel("Plugin ID")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Category")).toHaveValue("dev-tools");
  await expect(page.getByLabel("Currency")).toHaveValue("eur");
  await expect(page.getByRole("radio", { name: "Per user" })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "Linux" })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "Offer a free trial" })).toBeChecked();
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue(`Kept Fields ${run}`);
  await expect.poll(() => fileCount(page.getByLabel("Icon file"))).toBe(1);
  await expect.poll(() => fileCount(page.getByLabel("Screenshot files"))).toBe(2);
  // The files are still chosen, so the form does not ask for them again.
  await expect(page.locator("#product-problems")).not.toContainText("Choose your image files again");

  // Corrected and sent as it stands: the kept files are the ones stored.
  await page.getByLabel("Plugin ID").fill(`com.e2e.keptfields${run}`);
  await page.getByRole("button", { name: "Create product" }).click();
  await expect(page).toHaveURL(/\/dashboard\/products\/[a-z0-9-]+\?notice=product-created$/);
  await publishOpenProduct(page);
  await expect(page.getByLabel("Category")).toHaveValue("dev-tools");
  await expect(page.getByLabel("Icon URL")).toHaveValue(/^\/uploads\/[a-f0-9-]+\.png$/);
  expect((await page.getByLabel("Screenshot URLs").inputValue()).split("\n").filter(Boolean)).toHaveLength(2);

  // The edit page: a new category and a new icon survive a refusal, and the save that follows keeps the category.
  const icon = await page.getByLabel("Icon URL").inputValue();
  await page.getByLabel("Category").selectOption("audio-plugins");
  await page.getByLabel("Description").fill("Too short.");
  await page.getByLabel("Icon file").setInputFiles({ name: "new-icon.png", mimeType: "image/png", buffer: tinyPng([234, 88, 12]) });
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.locator("#product-description-error")).toContainText(/20 characters/);
  await expect(page.getByLabel("Category")).toHaveValue("audio-plugins");
  await expect(page.getByLabel("Currency")).toHaveValue("eur");
  await expect.poll(() => fileCount(page.getByLabel("Icon file"))).toBe(1);
  await page.getByLabel("Description").fill("A product whose form is refused on the edit page too, and keeps the new category.");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(/\?notice=product-saved$/);
  await page.reload();
  await expect(page.getByLabel("Category")).toHaveValue("audio-plugins");
  await expect(page.getByLabel("Icon URL")).not.toHaveValue(icon);
});
