import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { connectTestPayouts } from "./support/payouts";
import { tinyPng } from "./support/png";
import { signIn } from "./support/sign-in";
import { fillSupportAndRefunds, publishOpenProduct } from "./support/seller-profile";

/** Bytes the artifact content check takes for a .zip: the local file header signature, then filler. */
function zipBytes(size: number, fill: number): Buffer {
  const bytes = Buffer.alloc(size, fill);
  bytes.set([0x50, 0x4b, 0x03, 0x04], 0);
  return bytes;
}

async function upload(card: Locator, file: { platform: string; format?: string; name: string; buffer: Buffer }) {
  await card.getByLabel("Platform").selectOption(file.platform);
  await card.getByLabel("Format").selectOption(file.format ?? "");
  await card.getByLabel("File", { exact: true }).setInputFiles({ name: file.name, mimeType: "application/octet-stream", buffer: file.buffer });
  await card.getByRole("button", { name: "Upload file" }).click();
}

async function settled(page: Page) {
  await page.waitForLoadState("networkidle");
}

test("a seller publishes a release with two files, edits its notes and sees it on the product page; the gallery works by keyboard", async ({
  page,
  shot,
}) => {
  test.setTimeout(180_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const productName = `Release Desk ${run}`;

  await signIn(page, `e2e-releases-${run}@example.com`);
  await expect(page).toHaveURL(/\/dashboard\/welcome$/);
  await page.getByLabel("Developer or studio name").fill(`Release Studio ${run}`);
  await fillSupportAndRefunds(page);
  await page.getByRole("button", { name: "Create profile" }).click();
  await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);
  await connectTestPayouts(page);

  // A product with two screenshots, demo links, system requirements and a day-limited update policy.
  await page.goto("/dashboard/products/new");
  await page.getByLabel("Name", { exact: true }).fill(productName);
  await page.getByLabel("Tagline").fill("Ship versions with their changelog.");
  await page.getByLabel("Description").fill("A desktop app used by the release e2e test: versions, files and a changelog on its page.");
  await page.getByLabel("Category").selectOption("desktop-apps");
  await page.getByLabel("Price", { exact: true }).fill("19");
  await page.getByRole("checkbox", { name: "Linux" }).check();
  await page.getByRole("checkbox", { name: "Windows" }).check();
  await page.getByLabel("System requirements").fill("Windows 10 or later\nUbuntu 22.04, 4 GB RAM");
  await page.getByRole("radio", { name: "For a number of days" }).check();
  await page.getByLabel("Days of updates").fill("365");
  await page.getByLabel("Download URL").fill("https://example.com/downloads/release-desk.zip");
  await page.getByLabel("Icon file").setInputFiles({ name: "icon.png", mimeType: "image/png", buffer: tinyPng([79, 70, 229]) });
  await page.getByLabel("Screenshot files").setInputFiles([
    { name: "one.png", mimeType: "image/png", buffer: tinyPng([220, 38, 38]) },
    { name: "two.png", mimeType: "image/png", buffer: tinyPng([22, 163, 74]) },
  ]);
  // An http demo link is refused by its line, and what was typed stays.
  await page.getByLabel("Demo links").fill("video http://video.example.com/tour Quick tour");
  await page.getByLabel("Plugin ID").fill(`com.e2e.releasedesk${run}`);
  await page.getByRole("button", { name: "Create product" }).click();
  await expect(page.locator("#product-demo_links-error")).toContainText("Demo link 1: Must be an https:// URL.");
  await expect(page.getByLabel("Demo links")).toHaveValue("video http://video.example.com/tour Quick tour");
  await page
    .getByLabel("Demo links")
    .fill("video https://video.example.com/tour Quick tour\naudio https://audio.example.com/demo.mp3 Before and after");
  // Everything else is kept after the refusal: the category, the update policy and the chosen files.
  const chosen = (label: string) => page.getByLabel(label).evaluate((el: HTMLInputElement) => el.files?.length ?? 0);
  await expect(page.getByLabel("Category")).toHaveValue("desktop-apps");
  await expect(page.getByRole("radio", { name: "For a number of days" })).toBeChecked();
  await expect(page.getByLabel("Days of updates")).toHaveValue("365");
  await expect.poll(() => chosen("Icon file")).toBe(1);
  await expect.poll(() => chosen("Screenshot files")).toBe(2);
  await page.getByRole("button", { name: "Create product" }).click();
  await expect(page).toHaveURL(/\/dashboard\/products\/[a-z0-9-]+\?notice=product-created$/);
  await publishOpenProduct(page);
  const productId = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.getByRole("radio", { name: "For a number of days" })).toBeChecked();
  await expect(page.getByLabel("Days of updates")).toHaveValue("365");

  // The Releases page, from the product's page.
  await page.getByRole("link", { name: "Releases", exact: true }).click();
  await expect(page).toHaveURL(`/dashboard/products/${productId}/releases`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Releases of ${productName}`);

  // A version that is not semver is refused next to its field.
  const newRelease = page.getByRole("form", { name: "New release" });
  await newRelease.getByLabel("Version").fill("v1");
  await newRelease.getByRole("button", { name: "Create draft" }).click();
  await expect(page.locator("#new-release-version-error")).toBeVisible();
  await newRelease.getByLabel("Version").fill("1.0.0");
  await newRelease.getByLabel("Release notes").fill("First release.\n\n<script>alert(1)</script>");
  await newRelease.getByRole("button", { name: "Create draft" }).click();
  await expect(page).toHaveURL(/\?notice=release-created#release-1-0-0$/);
  const card = page.locator("#release-1-0-0");
  await expect(card.getByText("Draft", { exact: true })).toBeVisible();

  // Publishing without files is refused with the reason.
  await card.getByRole("button", { name: "Publish version 1.0.0" }).click();
  await expect(card.getByRole("form", { name: "Publish version 1.0.0" }).getByRole("alert")).toContainText("upload at least one file");
  const uploader = card.getByRole("form", { name: "Upload a file to version 1.0.0" });

  // Two files for two platforms; a third with the wrong content is refused with the problem's detail.
  await upload(card, { platform: "linux-x64", name: "release-desk-1.0.0-linux.zip", buffer: zipBytes(2_048, 0x61) });
  await expect(uploader.getByRole("status")).toContainText("release-desk-1.0.0-linux.zip uploaded (2.0 KB)");
  await expect(card.getByRole("list", { name: "Files of version 1.0.0" }).getByRole("listitem")).toHaveCount(1);
  await upload(card, { platform: "windows-x64", name: "Release Desk 1.0.0 (win).zip", buffer: zipBytes(3_500, 0x62) });
  await expect(uploader.getByRole("status")).toContainText("Release Desk 1.0.0 (win).zip uploaded (3.5 KB)");
  // Refused uploads are shown in a second tab: the browser logs the refused request (415) on the console, which the
  // fixture counts as a failure on its own page.
  const tab = await page.context().newPage();
  await tab.goto(`/dashboard/products/${productId}/releases`);
  const tabUploader = tab.locator("#release-1-0-0").getByRole("form", { name: "Upload a file to version 1.0.0" });
  await upload(tab.locator("#release-1-0-0"), { platform: "macos-universal", name: "release-desk.dmg", buffer: zipBytes(1_024, 0x63) });
  await expect(tabUploader.getByRole("alert")).toBeVisible();
  await expect(tabUploader.getByRole("alert")).not.toContainText("HTTP");
  await tab.close();
  // A third, accepted, then deleted from the draft.
  await upload(card, { platform: "macos-universal", name: "release-desk-mac.zip", buffer: zipBytes(1_024, 0x64) });
  await expect(uploader.getByRole("status")).toContainText("release-desk-mac.zip uploaded");
  const files = card.getByRole("list", { name: "Files of version 1.0.0" });
  await expect(files.getByRole("listitem")).toHaveCount(3);
  await files
    .getByRole("listitem")
    .filter({ hasText: "release-desk-mac.zip" })
    .getByRole("button", { name: /Delete/ })
    .click();
  await expect(page).toHaveURL(/notice=artifact-deleted/);
  await expect(page.locator("#release-1-0-0").getByRole("list", { name: "Files of version 1.0.0" }).getByRole("listitem")).toHaveCount(2);
  await expect(page.locator("#release-1-0-0")).toContainText("Linux (x64) · Application");
  await expect(page.locator("#release-1-0-0")).toContainText("Windows (x64) · Application");
  await settled(page);
  await shot("dashboard-releases-draft");

  await page.locator("#release-1-0-0").getByRole("button", { name: "Publish version 1.0.0" }).click();
  await expect(page).toHaveURL(/notice=release-published/);
  await expect(page.locator("#release-1-0-0").getByText("Published", { exact: true })).toBeVisible();

  // Notes stay editable after publishing.
  const published = page.locator("#release-1-0-0");
  await published.getByText("Release notes", { exact: true }).first().click();
  await published
    .getByLabel("Release notes")
    .fill("## What's new\n\n- Faster **exports**\n- [Guide](https://example.com/guide)\n\n<script>alert(1)</script>");
  await published.getByRole("button", { name: "Save notes" }).click();
  await expect(page).toHaveURL(/notice=release-saved/);
  await settled(page);
  await shot("dashboard-releases-published");

  // The store's page: version and date by the title, the changelog open on the latest, its files and sizes.
  await page.goto(`/products/${productId}`);
  await expect(page.locator("#latest-version")).toContainText("Version 1.0.0");
  const changelog = page.locator("#changelog");
  const latest = changelog.locator("details").first();
  await expect(latest).toHaveAttribute("open", "");
  await expect(latest.getByRole("heading", { name: "What's new" })).toBeVisible();
  await expect(latest.locator("strong")).toHaveText("exports");
  await expect(latest.getByRole("link", { name: "Guide" })).toHaveAttribute("rel", /nofollow/);
  // Raw HTML is text, never markup.
  await expect(latest).toContainText("<script>alert(1)</script>");
  expect(await latest.locator("script").count()).toBe(0);
  await expect(latest).toContainText("Linux (x64)");
  await expect(latest).toContainText("Windows (x64)");
  await expect(latest).toContainText("2.0 KB");
  await expect(latest).toContainText("3.5 KB");
  await expect(page.getByText("Ubuntu 22.04, 4 GB RAM")).toBeVisible();
  await expect(page.getByText("Updates released within 365 days of your purchase.")).toBeVisible();
  const demos = page.getByRole("link", { name: /Quick tour/ });
  await expect(demos).toHaveAttribute("href", "https://video.example.com/tour");
  await expect(page.getByRole("link", { name: /Before and after/ })).toContainText("Audio demo");
  // Nothing from the demo sites loads with the page (the fixture fails the test on any foreign request).
  expect(await page.locator("iframe").count()).toBe(0);
  await settled(page);
  await shot("product-page-releases");

  // The gallery by keyboard: Enter opens, arrows move, Tab stays inside, Escape closes and returns focus.
  const thumbs = page.locator("#screens-heading + ul a");
  await expect(thumbs).toHaveCount(2);
  await thumbs.first().focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog).toHaveAttribute("aria-modal", "true");
  await expect(dialog.getByRole("heading")).toHaveText(`${productName}: screenshot 1 of 2`);
  await expect(dialog.getByRole("button", { name: /Close/ })).toBeFocused();
  await page.keyboard.press("ArrowRight");
  await expect(dialog.getByRole("heading")).toHaveText(`${productName}: screenshot 2 of 2`);
  await page.keyboard.press("ArrowRight");
  await expect(dialog.getByRole("heading")).toHaveText(`${productName}: screenshot 1 of 2`);
  await page.keyboard.press("ArrowLeft");
  await expect(dialog.getByRole("heading")).toHaveText(`${productName}: screenshot 2 of 2`);
  for (let i = 0; i < 5; i++) {
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest("dialog")))).toBe(true);
  }
  await shot("product-page-lightbox");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(thumbs.first()).toBeFocused();
  // A click opens it too; Close closes it.
  await thumbs.nth(1).click();
  await expect(dialog.getByRole("heading")).toHaveText(`${productName}: screenshot 2 of 2`);
  await dialog.getByRole("button", { name: /Close/ }).click();
  await expect(dialog).toBeHidden();
  await expect(thumbs.nth(1)).toBeFocused();

  // The catalog and the details API carry the latest version and the new fields.
  const details = await (await page.request.get(`/api/marketplace/product/${productId}`)).json();
  expect(details.product).toMatchObject({
    latest_version: { version: "1.0.0" },
    update_policy: "days",
    update_days: 365,
    system_requirements: "Windows 10 or later\nUbuntu 22.04, 4 GB RAM",
    demo_links: [
      { kind: "video", url: "https://video.example.com/tour", title: "Quick tour" },
      { kind: "audio", url: "https://audio.example.com/demo.mp3", title: "Before and after" },
    ],
  });

  // A buyer: the success page lists the files this license may download, each behind a license-gated link.
  await page.goto(`/products/${productId}`);
  await page.getByLabel("E-mail address").fill(`e2e-releases-buyer-${run}@example.com`);
  await page.getByRole("button", { name: /^buy$/i }).click();
  await expect(page).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]+$/);
  await page.getByRole("button", { name: /^pay/i }).click();
  await expect(page.getByTestId("license-key")).toBeVisible();
  const downloads = page.getByTestId("license-downloads");
  await expect(downloads).toContainText("Version 1.0.0");
  await expect(downloads.getByTestId("updates-until")).toContainText("Updates until");
  await expect(downloads.getByRole("link", { name: /^Download/ })).toHaveCount(2);
  // The product's single download link gives way to the files.
  await expect(page.getByRole("link", { name: `Download ${productName}` })).toHaveCount(0);
  const linux = downloads.getByRole("link", { name: /release-desk-1\.0\.0-linux\.zip/ });
  const gated = await page.request.get((await linux.getAttribute("href"))!, { maxRedirects: 0 });
  expect(gated.status()).toBe(302);
  const file = await page.request.get(gated.headers().location!);
  expect(file.status()).toBe(200);
  expect(Buffer.from(await file.body()).equals(zipBytes(2_048, 0x61))).toBe(true);
  // Without the license's token the same path refuses.
  const bare = (await linux.getAttribute("href"))!.split("?")[0]!;
  expect((await page.request.get(bare, { maxRedirects: 0 })).status()).toBeGreaterThanOrEqual(400);
  await settled(page);
  await shot("checkout-success-downloads");

  // Yanking withdraws it from the page.
  await page.goto(`/dashboard/products/${productId}/releases`);
  await page.locator("#release-1-0-0").getByRole("button", { name: "Yank version 1.0.0" }).click();
  await expect(page).toHaveURL(/notice=release-yanked/);
  await expect(page.locator("#release-1-0-0").getByText("Yanked", { exact: true })).toBeVisible();
  await page.goto(`/products/${productId}`);
  await expect(page.locator("#latest-version")).toHaveCount(0);
  await expect(page.locator("#changelog")).toHaveCount(0);
});
