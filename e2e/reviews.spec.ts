import type { Page } from "@playwright/test";
import { expect, noHorizontalScroll, test } from "./fixtures";
import { signIn, signInLink } from "./support/sign-in";

// Verified reviews end to end: a buyer buys in test mode and reviews from My licenses; the review shows on the product
// page as a verified purchase, the card and the JSON-LD carry the rating; the seller replies from the dashboard; the
// operator hides it and it is gone from the page and the figures.

const OPERATOR = "operator-reviews@e2e.example.com";
// A demo catalogue product and its seller (prisma/seed/catalogue.ts): reviewed by nothing else in the suite.
const PRODUCT = { id: "tally-desk", name: "Tally Desk", seller: "hi@saltmarsh.example", developer: "Saltmarsh Software" };

/** The product page's schema.org Product markup. */
async function jsonLd(page: Page): Promise<Record<string, any>> {
  const all = await page.locator('script[type="application/ld+json"]').allTextContents();
  return all.map((t) => JSON.parse(t) as Record<string, any>).find((d) => d["@type"] === "Product") ?? {};
}

test("a buyer reviews from My licenses; the review, the card and the JSON-LD show it; the seller replies; the operator hides it", async ({
  page,
  shot,
}) => {
  // One long journey through four sign-ins; on a busy two-core machine it needs more than the default.
  test.setTimeout(300_000);
  const buyer = `e2e-reviews-${Date.now()}@example.com`;

  // Before: no reviews, said politely; no rating in the markup.
  await page.goto(`/products/${PRODUCT.id}`);
  await expect(page.getByTestId("reviews-empty")).toContainText("No reviews yet");
  expect((await jsonLd(page)).aggregateRating).toBeUndefined();

  // Buy in test mode.
  await page.getByLabel(/e-?mail address/i).fill(buyer);
  await page.getByRole("button", { name: /^buy$/i }).click();
  await expect(page).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]+$/);
  await page.getByRole("button", { name: /^pay/i }).click();
  await expect(page.getByTestId("license-key")).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);

  // Sign in to My licenses with the e-mailed link.
  await page.goto("/licenses");
  await page.getByLabel(/e-?mail address/i).fill(buyer);
  await page.getByRole("button", { name: "Send sign-in link" }).click();
  await expect(page).toHaveURL(/\/auth\/check-email\?purpose=buyer$/);
  await page.goto(await signInLink(page, buyer));
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await expect(page).toHaveURL(/\/licenses$/);

  // Rate and review: a refusal keeps what was typed; then the review is posted.
  const card = page.getByTestId("license").filter({ hasText: PRODUCT.name });
  const part = card.getByTestId("license-review");
  await expect(part.getByRole("heading", { name: "Rate and review" })).toBeVisible();
  await part.getByText("Write a review").click();
  await part.getByLabel("Title").fill("Invoices in minutes");
  await part.getByLabel("Your review").fill("Tracks my hours without fuss.\nThe CSV files open anywhere.");
  await expect(part.getByLabel("Name shown")).toHaveValue("Verified buyer");
  await part.getByRole("button", { name: "Post review" }).click();
  await expect(part.getByRole("alert")).toContainText("Your rating");
  await expect(part.getByLabel("Title")).toHaveValue("Invoices in minutes");
  await part.getByText("4 stars").click();
  await part.getByLabel("Name shown").fill("Robin, freelance designer");
  await part.getByRole("button", { name: "Post review" }).click();
  await expect(page).toHaveURL(/\/licenses\?notice=review_posted$/);
  await expect(page.locator("#licenses-notice")).toContainText("verified purchase");
  const own = page.getByTestId("license").filter({ hasText: PRODUCT.name }).getByTestId("own-review");
  await expect(own).toContainText("Invoices in minutes");
  await expect(own).toContainText("As Robin, freelance designer");
  await noHorizontalScroll(page);
  await shot("reviews-my-licenses");

  // The product page: the review as a verified purchase, the rating at the top and in the JSON-LD.
  await page.goto(`/products/${PRODUCT.id}`);
  const review = page.getByTestId("review").filter({ hasText: "Invoices in minutes" });
  await expect(review).toBeVisible();
  await expect(review.getByTestId("verified-purchase")).toHaveText("Verified purchase");
  await expect(review).toContainText("Robin, freelance designer");
  await expect(review).not.toContainText(buyer);
  await expect(page.getByTestId("reviews-average")).toContainText("4 out of 5 stars, 1 review");
  const ld = await jsonLd(page);
  expect(ld.aggregateRating).toEqual({ "@type": "AggregateRating", ratingValue: 4, reviewCount: 1, bestRating: 5, worstRating: 1 });
  expect(ld.review).toEqual([
    expect.objectContaining({ "@type": "Review", name: "Invoices in minutes", reviewRating: expect.objectContaining({ ratingValue: 4 }) }),
  ]);
  await page.setViewportSize({ width: 390, height: 844 });
  await noHorizontalScroll(page);
  await page.setViewportSize({ width: 1280, height: 900 });

  // The card in the store shows the stars and the count.
  await page.goto(`/?q=${encodeURIComponent(PRODUCT.name)}`);
  const tile = page
    .getByRole("article")
    .filter({ has: page.getByRole("link", { name: PRODUCT.name, exact: true }) })
    .first();
  await expect(tile.getByTestId("rating-stars")).toContainText("4 out of 5 stars, 1 review");
  // Sorted by rating, rated products lead (other specs rate products too, so it need not be the first): every card up
  // to this product's carries a rating.
  await page.goto("/?sort=rating");
  const cards = page.getByRole("article");
  await expect(cards.first()).toBeVisible();
  const listed = await cards.evaluateAll((els) =>
    els.map((e) => ({ name: e.querySelector("h3")?.textContent.trim() ?? "", rated: /out of 5 stars/.test(e.textContent) })),
  );
  const at = listed.findIndex((c) => c.name === PRODUCT.name);
  expect(at, JSON.stringify(listed.slice(0, 5))).toBeGreaterThanOrEqual(0);
  expect(listed.slice(0, at + 1).every((c) => c.rated)).toBe(true);
  expect(listed.some((c) => !c.rated)).toBe(true);

  // The seller replies once from the dashboard.
  await signIn(page, PRODUCT.seller);
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Reviews" }).click();
  await expect(page).toHaveURL(/\/dashboard\/reviews$/);
  const mine = page.getByTestId("seller-review").filter({ hasText: "Invoices in minutes" });
  await mine.getByLabel("Your reply").fill("Thank you, Robin. PDF export is next.");
  await mine.getByRole("button", { name: "Post reply" }).click();
  await expect(page.locator("#reviews-notice")).toContainText("Reply posted");
  await expect(page.getByTestId("seller-review").filter({ hasText: "Invoices in minutes" }).getByTestId("seller-reply")).toContainText(
    "PDF export is next",
  );
  await expect(page.getByTestId("seller-review").filter({ hasText: "Invoices in minutes" }).getByLabel("Your reply")).toHaveCount(0);
  await shot("reviews-dashboard");
  await page.goto(`/products/${PRODUCT.id}`);
  await expect(page.getByTestId("review").filter({ hasText: "Invoices in minutes" }).getByTestId("seller-reply")).toContainText(
    `Reply from ${PRODUCT.developer}`,
  );

  // The operator hides it with a reason: gone from the page, the figures and the markup.
  // Signed out of the seller's dashboard first: its sign-in page sends a signed-in seller to the dashboard.
  await page.context().clearCookies();
  await signIn(page, OPERATOR);
  await page.goto(`/admin/reviews?q=${encodeURIComponent("Invoices in minutes")}`);
  const row = page.getByTestId("admin-review").filter({ hasText: "Invoices in minutes" });
  await row.getByText("Hide", { exact: true }).click();
  await row.getByLabel("Reason (the seller sees it)").fill("Test of the moderation flow");
  await row.getByRole("button", { name: "Hide review" }).click();
  await expect(page.locator("#admin-notice")).toContainText("Review hidden");
  await expect(page.getByTestId("admin-review").filter({ hasText: "Invoices in minutes" })).toContainText("Hidden");
  await page.goto("/admin/audit");
  await expect(page.getByRole("table", { name: "Operator actions, newest first" })).toContainText("review.hide");

  await page.goto(`/products/${PRODUCT.id}`);
  await expect(page.getByTestId("review")).toHaveCount(0);
  await expect(page.getByTestId("reviews-empty")).toContainText("No reviews yet");
  expect((await jsonLd(page)).aggregateRating).toBeUndefined();
  const api = await (await page.request.get(`/api/marketplace/product/${PRODUCT.id}`)).json();
  expect(api.product.rating).toEqual({ average: 0, count: 0 });
});
