import { products } from "../prisma/seed/catalogue";
import { expect, noHorizontalScroll, test } from "./fixtures";
import { connectTestPayouts } from "./support/payouts";
import { tinyPng } from "./support/png";
import { fillSupportAndRefunds, newSeller } from "./support/seller-profile";
import { signIn, signInLink, signInToMyLicenses } from "./support/sign-in";

// The main journeys, each walked the way a person does it, from the first page to the end: a buyer on a phone, a new
// seller on a laptop, the operator, a buyer's invoice and transfer, an audio demo playing. Each test makes its own
// people, so they run side by side.

const PHONE = { width: 390, height: 844 } as const;
const LAPTOP = { width: 1440, height: 900 } as const;
// ADMIN_EMAILS in playwright.config.ts: one operator per spec, since sign-in links are limited per address.
const OPERATOR = "operator-walk@e2e.example.com";
// A seeded product no other spec buys or changes.
const PHONE_PRODUCT = products.find((p) => p.id === "driftline-delay")!;
// A seeded plugin with a before/after audio demo (prisma/seed/media.ts) that no other spec changes.
const AUDIO_PRODUCT = products.find((p) => p.id === "undertow-bus-compressor")!;

/** A short random part for the addresses and names a test makes, so runs never meet. */
function runId(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

test.describe("a buyer on a phone", () => {
  test.use({ viewport: PHONE, isMobile: true, hasTouch: true });

  test("home → search → product → buy in test mode → success → My licenses", async ({ page }) => {
    test.setTimeout(180_000);
    const email = `e2e-walk-buyer-${runId()}@example.com`;

    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await noHorizontalScroll(page);

    await page.getByRole("searchbox", { name: "Search software" }).fill(PHONE_PRODUCT.name);
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`[?&]q=${PHONE_PRODUCT.name}`));
    await noHorizontalScroll(page);

    await page.getByRole("link", { name: PHONE_PRODUCT.name, exact: true }).first().click();
    await expect(page).toHaveURL(new RegExp(`/products/${PHONE_PRODUCT.id}$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(PHONE_PRODUCT.name);
    await noHorizontalScroll(page);

    const buy = page.locator("#buy");
    // The Buy form's address (a product with a trial uses the same one for its trial button).
    await buy.getByRole("textbox", { name: "E-mail address" }).fill(email);
    await buy.getByRole("button", { name: /^buy$/i }).click();
    await expect(page).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]+$/);
    await expect(page.getByText(/test mode/i).first()).toBeVisible();
    await noHorizontalScroll(page);

    await page.getByRole("button", { name: /^pay/i }).click();
    await expect(page).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]+\/success$/);
    const keyText = page.getByTestId("license-key");
    await expect(keyText).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    const key = (await keyText.textContent())!.trim();
    await noHorizontalScroll(page);

    // From the success page to My licenses, signed in with the link the purchase address receives.
    await page.getByRole("link", { name: "My licenses", exact: true }).first().click();
    await expect(page).toHaveURL(/\/licenses$/);
    await page.getByLabel(/e-?mail address/i).fill(email);
    await page.getByRole("button", { name: "Send sign-in link" }).click();
    await expect(page).toHaveURL(/\/auth\/check-email/);
    await page.goto(await signInLink(page, email));
    await page.getByRole("button", { name: /^sign in as /i }).click();
    await expect(page).toHaveURL(/\/licenses$/);
    const license = page.locator(`[data-testid="license"][data-license-key="${key}"]`);
    await expect(license).toBeVisible();
    await expect(license).toContainText(PHONE_PRODUCT.name);
    await noHorizontalScroll(page);
  });
});

test.describe("on a laptop", () => {
  test.use({ viewport: LAPTOP });

  test("a new seller: mailbox sign-in → onboarding → new product → publish → listed", async ({ page }) => {
    test.setTimeout(180_000);
    const run = runId();
    const studio = `Walk Studio ${run}`;
    const productName = `Walk Meter ${run}`;

    // Signed in by the link from the mailbox; a new address lands on the welcome step.
    await signIn(page, `e2e-walk-seller-${run}@example.com`);
    await expect(page).toHaveURL(/\/dashboard\/welcome$/);
    await page.getByLabel("Developer or studio name").fill(studio);
    await page.getByLabel("About you").fill("Metering tools for mixing engineers.");
    await fillSupportAndRefunds(page);
    await page.getByRole("button", { name: "Create profile" }).click();
    await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Welcome, ${studio}`);
    // A paid listing needs a payout account: the overview's first steps point to it.
    await connectTestPayouts(page);

    await page.goto("/dashboard");
    await page.getByRole("link", { name: "New product" }).first().click();
    await expect(page).toHaveURL(/\/dashboard\/products\/new$/);
    await page.waitForLoadState("networkidle");
    await page.getByLabel("Name", { exact: true }).fill(productName);
    await page.getByLabel("Tagline").fill("Loudness and true peak at a glance.");
    await page.getByLabel("Description").fill("A loudness meter that shows short-term, integrated and true-peak levels side by side.");
    await page.getByLabel("Category").selectOption("audio-plugins");
    await page.getByLabel("Price", { exact: true }).fill("19.00");
    await page.getByLabel("Machines per license").fill("2");
    await page.getByRole("checkbox", { name: "macOS" }).check();
    await page.getByLabel("Download URL").fill("https://example.com/downloads/walk-meter.zip");
    await page.getByLabel("Icon file").setInputFiles({ name: "icon.png", mimeType: "image/png", buffer: tinyPng() });
    await page.getByLabel("Plugin ID").fill(`com.e2e.walkmeter${run}`);
    await page.getByRole("button", { name: "Create product" }).click();
    await expect(page).toHaveURL(/\/dashboard\/products\/[a-z0-9-]+\?notice=product-created$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(productName);
    const productId = new URL(page.url()).pathname.split("/").pop()!;

    // A new product starts as a draft where the dashboard has drafts: publishing lists it.
    const publish = page.getByRole("button", { name: "Publish", exact: true });
    if ((await publish.count()) > 0) {
      await publish.click();
      await expect(page.getByRole("button", { name: "Unlist", exact: true })).toBeVisible();
    }

    // Listed: in the seller's list, and in the store's search for anyone.
    await page.goto("/dashboard/products");
    await expect(page.getByRole("row").filter({ hasText: productName })).toContainText("Listed");
    await page.goto(`/?q=${encodeURIComponent(productName)}`);
    await page.getByRole("link", { name: productName, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/products/${productId}$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(productName);
    await expect(page.locator("#buy").getByRole("button", { name: /^buy$/i })).toBeVisible();
  });

  test("the operator: sign-in by an ADMIN_EMAILS address → the console → a section", async ({ page }) => {
    // Someone else sees no console: the site's ordinary 404.
    expect((await page.goto("/admin"))?.status()).toBe(404);

    await page.goto("/dashboard/sign-in?next=/admin");
    await page.getByLabel("E-mail address").fill(OPERATOR);
    await page.getByRole("button", { name: /e-mail me a sign-in link/i }).click();
    await expect(page).toHaveURL(/\/auth\/check-email/);
    await page.goto(await signInLink(page, OPERATOR));
    await page.getByRole("button", { name: /^sign in as /i }).click();
    await expect(page).toHaveURL(/\/admin$/);
    await expect(page.getByText(OPERATOR)).toBeVisible();

    const sections = page.getByRole("navigation", { name: "Operator console" });
    await sections.getByRole("link", { name: "Sellers" }).click();
    await expect(page).toHaveURL(/\/admin\/sellers$/);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    // The seeded sellers are there.
    await expect(page.getByText("Brightmoor Instruments").first()).toBeVisible();
  });

  test("a buyer's invoice and transfer: the PDF, billing details, the license handed to another address", async ({ page, browser, baseURL }) => {
    test.setTimeout(180_000);
    const run = runId();
    const productName = `Walk Transfer ${run}`;
    const buyerEmail = `e2e-walk-holder-${run}@example.com`;
    const nextHolder = `e2e-walk-next-${run}@example.com`;

    // A seller whose product allows transfers (they are off unless the seller allows them).
    await newSeller(page, `e2e-walk-transfer-seller-${run}@example.com`, { name: `Walk Transfers ${run}`, about: "Tools that change hands." });
    const created = await page.request.post("/api/v1/products", {
      data: {
        publish: true,
        name: productName,
        tagline: "A license its holder may hand on.",
        description: "A product made by the walk's invoice and transfer journey, with a long enough description.",
        plugin_id: `com.e2e.walktransfer${run}`,
        price_cents: 1500,
        currency: "usd",
        category: "dev-tools",
        max_machines: 2,
        seat_model: "per-machine",
        platforms: ["linux"],
        download_url: "https://example.com/download.zip",
        icon_url: "/icons/tape-warmth.svg",
        allow_transfers: true,
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const productId = ((await created.json()) as { product: { id: string } }).product.id;
    const publish = await page.request.post(`/api/v1/products/${productId}/publish`);
    expect([200, 404], await publish.text()).toContain(publish.status());

    // The buyer, in a browser of their own, buys it and signs in to My licenses.
    const buyer = await (await browser.newContext({ baseURL })).newPage();
    await buyer.goto(`/products/${productId}`);
    await buyer.locator("#buy").getByRole("textbox", { name: "E-mail address" }).fill(buyerEmail);
    await buyer.locator("#buy").getByRole("button", { name: /^buy$/i }).click();
    await buyer.getByRole("button", { name: /^pay/i }).click();
    await expect(buyer.getByTestId("license-key")).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    const oldKey = (await buyer.getByTestId("license-key").textContent())!.trim();
    await signInToMyLicenses(buyer, buyerEmail);
    const card = buyer.locator(`[data-testid="license"][data-license-key="${oldKey}"]`);
    await expect(card).toBeVisible();

    // The invoice: a PDF to download, and the billing details it prints.
    await buyer
      .getByText(/^Invoice/)
      .first()
      .click();
    const invoice = buyer.getByTestId("invoice-link").first();
    await expect(invoice).toBeVisible();
    const pdf = await buyer.request.get((await invoice.getAttribute("href"))!);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()["content-type"]).toMatch(/^application\/pdf/);
    expect((await pdf.body()).subarray(0, 5).toString("latin1")).toBe("%PDF-");
    await buyer.getByLabel("Billing name").first().fill("Walk Audio GmbH");
    await buyer
      .getByLabel(/^Country/)
      .first()
      .fill("DE");
    await buyer.getByLabel("Address", { exact: true }).first().fill("Hafenstrasse 1, 20459 Hamburg");
    await buyer.getByRole("button", { name: "Save billing details" }).first().click();
    await expect(buyer.getByText("Billing details saved.", { exact: false })).toBeVisible();

    // The transfer: offered to another address, which receives the link by e-mail.
    await buyer.getByText("Transfer this license").first().click();
    await buyer.getByLabel("New holder’s e-mail address").first().fill(nextHolder);
    await buyer.getByRole("button", { name: "Send the transfer link" }).first().click();
    await expect(buyer.getByText("Transfer offered", { exact: false })).toBeVisible();
    await expect(buyer.getByText(`Offered to ${nextHolder}`, { exact: false })).toBeVisible();
    let offerLink = "";
    await expect
      .poll(async () => {
        const { messages } = (await (await page.request.get(`/api/dev/mailbox?to=${encodeURIComponent(nextHolder)}`)).json()) as {
          messages: Array<{ kind: string; text: string }>;
        };
        const offer = messages.find((m) => m.kind === "license-transfer-offer");
        offerLink = (offer && /\/licenses\/transfer\?token=[\w-]+/.exec(offer.text)?.[0]) ?? "";
        return offerLink;
      })
      .not.toBe("");

    // The next holder opens the e-mailed link signed out, signs in from it, comes back to it, accepts, and holds the
    // license with a new key; the first holder no longer does.
    const next = await (await browser.newContext({ baseURL })).newPage();
    await next.goto(offerLink);
    await expect(next.getByRole("heading", { level: 1, name: "Accept a license" })).toBeVisible();
    await next.getByLabel(/e-?mail address/i).fill(nextHolder);
    await next.getByRole("button", { name: "Send sign-in link" }).click();
    await expect(next).toHaveURL(/\/auth\/check-email/);
    await next.goto(await signInLink(next, nextHolder));
    await next.getByRole("button", { name: /^sign in as /i }).click();
    await expect(next).toHaveURL(new RegExp(`${offerLink.replace(/[?]/g, "\\?")}$`));
    await next.getByRole("button", { name: "Accept the license" }).click();
    await expect(next.getByText("The license is yours now", { exact: false })).toBeVisible();
    const moved = next.getByTestId("license").filter({ hasText: productName });
    await expect(moved).toBeVisible();
    expect(await moved.getAttribute("data-license-key")).not.toBe(oldKey);
    await buyer.reload();
    await expect(buyer.locator(`[data-testid="license"][data-license-key="${oldKey}"]`)).toHaveCount(0);
  });

  test("an audio demo plays on its product page", async ({ page }) => {
    await page.goto(`/products/${AUDIO_PRODUCT.id}`);
    const audio = page.locator("audio").first();
    await audio.scrollIntoViewIfNeeded();
    await expect(audio).toBeVisible();
    await expect(audio).toHaveAttribute("aria-label", /.+/);
    // The file is this site's, a WAV the browser can play.
    const file = await page.request.get((await audio.getAttribute("src"))!);
    expect(file.status()).toBe(200);
    expect(file.headers()["content-type"]).toMatch(/^audio\//);
    // A person presses play: the play button sits at the left end of the browser's own controls.
    const box = (await audio.boundingBox())!;
    await page.mouse.click(box.x + 20, box.y + box.height / 2);
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => !a.paused && a.currentTime > 0), { timeout: 15_000 }).toBe(true);
  });
});
