import type { Page } from "@playwright/test";
import { expect, noHorizontalScroll, test } from "./fixtures";
import { signInLink } from "./support/sign-in";

// The operator's console at /admin: the addresses ADMIN_EMAILS lists (playwright.config.ts sets this one) sign in with the
// usual sign-in link and see the overview; anyone else, signed in or not, gets the site's ordinary 404 page.

const OPERATOR = "operator@e2e.example.com";

async function expectNotFoundPage(page: Page) {
  const response = await page.goto("/admin");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "We couldn't find that page" })).toBeVisible();
  // Not even the title tells the console is there.
  await expect(page).toHaveTitle(/^Page not found/);
}

test("anonymous visitors and a signed-in buyer get the 404 page at /admin, and the API answers a 404 problem", async ({ page }) => {
  await expectNotFoundPage(page);
  for (const path of ["/admin/sellers", "/admin/orders"]) expect((await page.goto(path))?.status()).toBe(404);

  const buyer = `e2e-admin-buyer-${Date.now()}@example.com`;
  await page.goto("/licenses");
  await page.getByLabel(/e-?mail address/i).fill(buyer);
  await page.getByRole("button", { name: "Send sign-in link" }).click();
  await expect(page).toHaveURL(/\/auth\/check-email\?purpose=buyer$/);
  await page.goto(await signInLink(page, buyer));
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await expect(page).toHaveURL(/\/licenses$/);
  await expectNotFoundPage(page);

  const api = await page.request.get("/api/admin/overview");
  expect(api.status()).toBe(404);
  expect(api.headers()["content-type"]).toBe("application/problem+json");
  expect(await api.json()).toMatchObject({ status: 404, code: "route_not_found" });
});

test("the operator signs in with the usual link and sees the overview", async ({ page, shot }) => {
  await page.goto("/dashboard/sign-in?next=/admin");
  await page.getByLabel("E-mail address").fill(OPERATOR);
  await page.getByRole("button", { name: /e-mail me a sign-in link/i }).click();
  await expect(page).toHaveURL(/\/auth\/check-email/);
  await page.goto(await signInLink(page, OPERATOR));
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await expect(page).toHaveURL(/\/admin$/);

  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await expect(page).toHaveTitle(/^Overview · Operator console/);
  await expect(page.getByText(OPERATOR)).toBeVisible();
  const nav = page.getByRole("navigation", { name: "Operator console" });
  await expect(nav.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("definition").first()).toBeVisible();
  await noHorizontalScroll(page);
  await shot("admin-overview");

  // Each section opens, and the API answers the same session.
  for (const [link, heading] of [
    ["Sellers", "Sellers"],
    ["Products", "Products"],
    ["Orders", "Orders"],
    ["Payment events", "Payment events"],
    ["Audit", "Audit"],
  ] as const) {
    await nav.getByRole("link", { name: link }).click();
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
  }
  const overview = await page.request.get("/api/admin/overview");
  expect(overview.status()).toBe(200);
  expect(await overview.json()).toMatchObject({ counts: { sellers: expect.any(Number) } });
});

test("the operator removes a listing with a reason and restores it, suspends its seller and reinstates them; the audit page shows each", async ({
  page,
}) => {
  const { products } = (await (await page.request.get("/api/marketplace/listings?limit=1")).json()) as {
    products: Array<{ id: string; name: string }>;
  };
  const listed = products[0];
  expect(listed, "a listed product").toBeTruthy();
  const { id, name } = listed!;
  const inStore = async () => (await page.request.get(`/api/marketplace/product/${encodeURIComponent(id)}`)).status();

  await page.goto("/dashboard/sign-in?next=/admin/products");
  await page.getByLabel("E-mail address").fill(OPERATOR);
  await page.getByRole("button", { name: /e-mail me a sign-in link/i }).click();
  await expect(page).toHaveURL(/\/auth\/check-email/);
  await page.goto(await signInLink(page, OPERATOR));
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await expect(page).toHaveURL(/\/admin\/products$/);

  const search = async () => {
    await page.getByRole("searchbox", { name: "Search" }).fill(id);
    await page.getByRole("button", { name: "Search" }).click();
    return page.getByRole("row").filter({ hasText: name });
  };
  let row = await search();
  await row.locator("summary", { hasText: "Remove" }).click();
  await row.getByLabel("Reason (the seller sees it)").fill("Reported as malware by three buyers");
  await row.getByRole("button", { name: "Remove listing" }).click();
  await expect(page.locator("#admin-notice")).toContainText("Listing removed");
  expect(await inStore()).toBe(404);

  row = await search();
  await expect(row).toContainText("Reported as malware by three buyers");
  await row.locator("summary", { hasText: "Restore" }).click();
  await row.getByRole("button", { name: "Restore listing" }).click();
  await expect(page.locator("#admin-notice")).toContainText("Listing restored");
  expect(await inStore()).toBe(200);

  // The seller: found by the product's seller, suspended, then reinstated.
  const seller = (await (await page.request.get(`/api/admin/products?q=${encodeURIComponent(id)}`)).json()) as {
    products: Array<{ seller: { id: string; email: string } }>;
  };
  const { email } = seller.products[0]!.seller;
  await page.getByRole("navigation", { name: "Operator console" }).getByRole("link", { name: "Sellers" }).click();
  // The sellers page, once the navigation lands: the products page has a search box too, and filling it would search
  // products (seen on a slow machine).
  await expect(page.getByRole("heading", { level: 1, name: "Sellers" })).toBeVisible();
  await page.getByRole("searchbox", { name: "Search" }).fill(email);
  await page.getByRole("button", { name: "Search" }).click();
  let sellerRow = page.getByRole("row").filter({ hasText: email });
  await sellerRow.locator("summary", { hasText: "Suspend" }).click();
  await sellerRow.getByLabel("Reason (the seller sees it)").fill("Unpaid chargebacks");
  await sellerRow.getByRole("button", { name: "Suspend seller" }).click();
  await expect(page.locator("#admin-notice")).toContainText("Seller suspended");
  expect(await inStore()).toBe(404);

  await page.getByRole("searchbox", { name: "Search" }).fill(email);
  await page.getByRole("button", { name: "Search" }).click();
  sellerRow = page.getByRole("row").filter({ hasText: email });
  await expect(sellerRow).toContainText("Unpaid chargebacks");
  await sellerRow.locator("summary", { hasText: "Reinstate" }).click();
  await sellerRow.getByRole("button", { name: "Reinstate seller" }).click();
  await expect(page.locator("#admin-notice")).toContainText("Seller reinstated");
  expect(await inStore()).toBe(200);

  await page.getByRole("navigation", { name: "Operator console" }).getByRole("link", { name: "Audit" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Audit" })).toBeVisible();
  const audit = page.getByRole("table");
  for (const action of ["product.remove", "product.restore", "seller.suspend", "seller.reinstate"]) await expect(audit).toContainText(action);
  await expect(audit).toContainText("Reported as malware by three buyers");
  await expect(audit).toContainText(OPERATOR);
});
