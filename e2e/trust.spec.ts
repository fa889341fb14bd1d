import { expect, test } from "./fixtures";
import { connectTestPayouts } from "./support/payouts";
import { fillSupportAndRefunds } from "./support/seller-profile";
import { signIn } from "./support/sign-in";

const run = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;

test("the footer's Terms, Refunds, Privacy and Contact are pages for people; the machine documents stay JSON", async ({ page, request }) => {
  test.setTimeout(90_000);
  await page.goto("/");
  const marketplace = page.getByRole("navigation", { name: "Marketplace" });
  for (const [label, heading] of [
    ["Terms", "Terms"],
    ["Refunds", "Refunds"],
    ["Privacy", "Privacy"],
    ["Contact", "Contact"],
  ] as const) {
    await page.goto("/");
    await marketplace.getByRole("link", { name: label, exact: true }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
    // A page, not a document dump: the site's header and footer are around it.
    await expect(page.locator("footer")).toBeVisible();
  }
  // The fees, from the same source as the JSON, at the anchor the dashboard links to.
  const terms = await (await request.get("/api/terms")).json();
  await page.goto("/terms#fees");
  await expect(page.locator("#fees")).toContainText(`The platform keeps ${terms.pricing.transaction_fee_percent} %`);
  await page.goto("/contact");
  await expect(page.locator("#operator-email")).toHaveAttribute("href", "mailto:help@example.com");

  // The machine-readable column still gives JSON.
  await page.goto("/");
  const machine = page.getByRole("navigation", { name: "Machine-readable documents" });
  await expect(machine.getByRole("heading")).toContainText("Machine-readable");
  const href = await machine.getByRole("link", { name: "Terms (JSON)" }).getAttribute("href");
  const json = await request.get(href!);
  expect(json.headers()["content-type"]).toContain("application/json");
});

test("the success page's receipt link opens a page with the receipt's facts and its check; the JSON stays for programs", async ({
  page,
  request,
}) => {
  await page.goto("/products/tape-warmth");
  const email = `e2e-trust-receipt-${run()}@example.com`;
  await page.getByLabel(/e-?mail address/i).fill(email);
  await page.getByRole("button", { name: /^buy$/i }).click();
  await page.getByRole("button", { name: /^pay/i }).click();
  const key = (await page.getByTestId("license-key").textContent())!.trim();

  await page.getByRole("link", { name: "View your signed receipt" }).click();
  await expect(page).toHaveURL(/\/receipt\?key=/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your receipt");
  await expect(page.locator("#receipt-verification")).toContainText("Signature valid");
  await expect(page.locator("#receipt-verification")).toContainText("License active");
  await expect(page.locator("#license")).toContainText(key);
  await expect(page.locator("#license")).toContainText(email);
  await expect(page.locator("#payment")).toContainText("USD");
  const download = page.getByRole("link", { name: "Download the signed JSON" });
  const json = await request.get((await download.getAttribute("href"))!);
  expect(json.headers()["content-type"]).toContain("application/json");
  expect((await json.json()).receipt).toMatchObject({ license_key: key, buyer_email: email });
});

test("a product page shows the seller's refund policy and support contact, and the price with its currency code", async ({ page, request }) => {
  const product = (await (await request.get("/api/marketplace/product/tape-warmth")).json()).product;
  expect(product.refund_policy).not.toBe("");
  await page.goto("/products/tape-warmth");
  const support = page.getByRole("region", { name: "Support and refunds" });
  await expect(support.locator("#refund-policy")).toHaveText(product.refund_policy);
  await expect(support.getByRole("link", { name: product.support.email })).toHaveAttribute("href", `mailto:${product.support.email}`);
  await expect(support.getByRole("link", { name: /support page/ })).toHaveAttribute("href", product.support.url);
  await expect(page.locator("#buy")).toContainText(/\$\d+\.\d{2} USD/);
  await page.getByRole("link", { name: "Refund policy and support" }).click();
  await expect(page).toHaveURL(/#support$/);
});

test("after a refused buy the e-mail is refilled, but never put in the URL", async ({ page }) => {
  await page.goto("/products/tape-warmth");
  await page.getByLabel(/e-?mail address/i).fill("private-person@example");
  await page.getByLabel(/e-?mail address/i).evaluate((el: HTMLInputElement) => (el.type = "text"));
  await page.getByRole("button", { name: /^buy$/i }).click();
  await expect(page.locator("#buy_error")).toContainText(/e-mail/i);
  expect(page.url()).not.toContain("private-person");
  expect(new URL(page.url()).searchParams.get("email")).toBeNull();
  await expect(page.getByLabel(/e-?mail address/i)).toHaveValue("private-person@example");
  // The refill is for that refusal only: the same page opened later starts empty.
  await page.goto("/products/tape-warmth");
  await expect(page.getByLabel(/e-?mail address/i)).toHaveValue("");
});

test("a new seller is welcomed, not welcomed back; steps are real; a paid listing without support fields is refused inline", async ({ page }) => {
  test.setTimeout(120_000);
  const id = run();
  await signIn(page, `e2e-trust-seller-${id}@example.com`);
  await expect(page).toHaveURL(/\/dashboard\/welcome$/);
  await expect(page.getByText(/Step \d+ of \d+/)).toHaveCount(0);
  await page.getByLabel("Developer or studio name").fill(`Trust Studio ${id}`);
  await page.getByRole("button", { name: "Create profile" }).click();
  await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Welcome, Trust Studio ${id}`);
  await expect(page.getByText(/Welcome back/)).toHaveCount(0);
  await expect(page.locator("#step-support")).toHaveAttribute("data-done", "false");
  await connectTestPayouts(page);

  // The size note and the refusal of too many files say the same figure.
  await page.goto("/dashboard/products/new");
  const note = await page.getByText(/of files per save/).textContent();
  const limit = /up to ([\d.]+ [KM]B) of files per save/.exec(note!)![1]!;
  await page.getByLabel("Screenshot files").setInputFiles([
    { name: "a.png", mimeType: "image/png", buffer: Buffer.alloc(600_000) },
    { name: "b.png", mimeType: "image/png", buffer: Buffer.alloc(600_000) },
  ]);
  await page.getByRole("button", { name: "Create product" }).click();
  await expect(page.locator("#product-problems")).toContainText(`at most ${limit}`);
  await page.getByLabel("Screenshot files").setInputFiles([]);

  // A download URL that is not https: the message is about the address, not about an upload.
  await page.getByLabel("Download URL").fill("ftp://example.com/app.zip");
  await page.getByRole("button", { name: "Create product" }).click();
  await expect(page.locator("#product-download_url-error")).toContainText("https://");
  await expect(page.locator("#product-download_url-error")).not.toContainText(/upload/i);

  // A complete paid product: saved as a draft, its publishing refused because the profile has no refund policy or support contact.
  const name = `Trust Probe ${id}`;
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Description").fill("A product used by the trust end-to-end test, described at sufficient length.");
  await page.getByLabel("Category").selectOption("dev-tools");
  await page.getByLabel("Price", { exact: true }).fill("19");
  await page.getByRole("checkbox", { name: "Linux" }).check();
  await page.getByLabel("Download URL").fill("https://example.com/downloads/trust-probe.zip");
  await page.getByLabel(/Icon URL/).fill("/icons/tape-warmth.svg");
  await page.getByLabel("Plugin ID").fill(`com.e2e.trust${id}`);
  await page.getByRole("button", { name: "Create product" }).click();
  await expect(page).toHaveURL(/\/dashboard\/products\/[a-z0-9-]+\?notice=product-created$/);
  await page.getByRole("button", { name: "Publish", exact: true }).click();
  await expect(page).toHaveURL(/\?error=seller-profile-incomplete$/);
  const problems = page.locator("#publish-check-section");
  await expect(problems).toContainText("refund policy");
  await expect(problems).toContainText("support e-mail address or support web page");
  await problems.getByRole("link", { name: "Add them to your profile" }).click();
  await expect(page).toHaveURL(/\/dashboard\/profile#support$/);

  await fillSupportAndRefunds(page);
  await page.getByRole("button", { name: "Save profile" }).click();
  await expect(page).toHaveURL(/notice=profile-saved/);
  await expect(page.getByLabel("Refund policy")).toHaveValue(/Full refund within 14 days/);
});
