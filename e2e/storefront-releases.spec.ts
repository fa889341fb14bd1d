import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { connectTestPayouts } from "./support/payouts";
import { signIn } from "./support/sign-in";
import { fillSupportAndRefunds } from "./support/seller-profile";

// A plugin with releases as a buyer meets it: formats as badges, the changelog, the files a license includes on the
// success page and in My licenses, and a newer major version that needs a new license ("major" update policy).

/** Bytes the artifact content check takes for a .zip: the local file header signature, then filler. */
function zipBytes(size: number, fill: number): Buffer {
  const bytes = Buffer.alloc(size, fill);
  bytes.set([0x50, 0x4b, 0x03, 0x04], 0);
  return bytes;
}

async function settled(page: Page) {
  await page.waitForLoadState("networkidle");
}

/** Publishes a release through the seller REST API with one file per [platform, format, filename]. */
async function publish(request: APIRequestContext, productId: string, version: string, notes: string, files: Array<[string, string, string]>) {
  const base = `/api/v1/products/${productId}/releases`;
  const created = await request.post(base, { data: { version, notes } });
  expect(created.status(), await created.text()).toBe(201);
  for (const [i, [platform, format, filename]] of files.entries()) {
    const put = await request.put(`${base}/${version}/artifacts?${new URLSearchParams({ platform, format, filename })}`, {
      data: zipBytes(1_500 + i * 1_000, 0x41 + i),
      headers: { "content-type": "application/octet-stream" },
    });
    expect(put.status(), await put.text()).toBe(201);
  }
  const published = await request.post(`${base}/${version}/publish`);
  expect(published.status(), await published.text()).toBe(200);
}

/** Signs the buyer in to My licenses with the e-mail link from the development mailbox. */
async function buyerSignIn(page: Page, email: string) {
  await page.goto("/licenses");
  await page.getByLabel(/e-?mail address/i).fill(email);
  await page.getByRole("button", { name: "Send sign-in link" }).click();
  await expect(page).toHaveURL(/\/auth\/check-email\?purpose=buyer$/);
  let link = "";
  await expect
    .poll(
      async () => {
        const { messages } = await (await page.request.get(`/api/dev/mailbox?to=${encodeURIComponent(email)}`)).json();
        link =
          (messages as Array<{ kind: string; text: string }>)
            .filter((m) => m.kind === "sign-in")
            .map((m) => /https?:\/\/[^\s"<>]+\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(m.text)?.[0])
            .find(Boolean) ?? "";
        return link;
      },
      { timeout: 10_000 },
    )
    .not.toBe("");
  const url = new URL(link);
  await page.goto(`${url.pathname}${url.search}`);
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await expect(page).toHaveURL(/\/licenses$/);
}

test("a buyer of a plugin sees its formats and changelog, downloads the files the license includes, and is told a new major version needs a new license", async ({
  page,
  shot,
}) => {
  test.setTimeout(180_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const name = `Tape Echo ${run}`;

  // The seller: a plugin whose licenses get the major version they bought.
  await signIn(page, `e2e-storefront-releases-${run}@example.com`);
  await page.getByLabel("Developer or studio name").fill(`Echo Works ${run}`);
  await fillSupportAndRefunds(page);
  await page.getByRole("button", { name: "Create profile" }).click();
  await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);
  await connectTestPayouts(page);
  const created = await page.request.post("/api/v1/products", {
    data: {
      publish: true,
      name,
      tagline: "A tape delay with wow and flutter.",
      description: "A tape echo plugin used by the storefront releases e2e test, in VST3 and AU.",
      plugin_id: `com.e2e.tapeecho${run}`,
      price_cents: 2900,
      category: "audio-plugins",
      max_machines: 2,
      seat_model: "per-machine",
      platforms: ["windows", "macos"],
      download_url: "https://example.com/downloads/tape-echo.zip",
      icon_url: "/icons/tape-warmth.svg",
      update_policy: "major",
      system_requirements: "macOS 12+ or Windows 10+; a VST3 or AU host",
      demo_links: [{ kind: "audio", url: "https://audio.example.com/tape-echo.mp3", title: "Dry, then wet" }],
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const productId: string = (await created.json()).product.id;
  await publish(page.request, productId, "1.0.0", "First release.", [
    ["windows-x64", "vst3", "TapeEcho-1.0.0-win-vst3.zip"],
    ["macos-universal", "au", "TapeEcho-1.0.0-mac-au.zip"],
  ]);

  // The product page: version by the title, formats as badges, the changelog with both files.
  await page.goto(`/products/${productId}`);
  await expect(page.locator("#latest-version")).toContainText("Version 1.0.0");
  const formats = page.getByRole("list", { name: "Plugin formats" });
  await expect(formats.getByRole("listitem")).toHaveText(["VST3", "AU"]);
  await expect(page.locator("#changelog details").first()).toContainText("Windows (x64) · VST3");
  await expect(page.locator("#changelog details").first()).toContainText("macOS (Universal) · AU");
  await expect(page.getByText("Updates within the major version you buy")).toBeVisible();

  // The buyer buys 1.0.0: the success page lists both files.
  const buyer = `e2e-storefront-releases-buyer-${run}@example.com`;
  await page.getByLabel("E-mail address").fill(buyer);
  await page.getByRole("button", { name: /^buy$/i }).click();
  await expect(page).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]+$/);
  await page.getByRole("button", { name: /^pay/i }).click();
  const success = page.getByTestId("license-downloads");
  await expect(success).toContainText("Version 1.0.0");
  await expect(success.getByRole("link", { name: /^Download/ })).toHaveCount(2);
  await expect(success.getByTestId("updates-until")).toHaveCount(0);
  await expect(success.getByTestId("newer-not-entitled")).toHaveCount(0);

  // Later: 1.1.0 (same major: included) and 2.0.0 (a new major: not included).
  await publish(page.request, productId, "1.1.0", "Fixes.", [["windows-x64", "vst3", "TapeEcho-1.1.0-win-vst3.zip"]]);
  await publish(page.request, productId, "2.0.0", "A new engine.", [["windows-x64", "clap", "TapeEcho-2.0.0-win-clap.zip"]]);
  const catalog = await (await page.request.get(`/api/catalog?search=${encodeURIComponent(name)}`)).json();
  expect(catalog.products.find((p: { id: string }) => p.id === productId)?.latest_version).toMatchObject({ version: "2.0.0" });

  // My licenses: 1.1.0 open with its file, 1.0.0 folded below, and 2.0.0 needs a new license.
  await buyerSignIn(page, buyer);
  const card = page.getByTestId("license").filter({ hasText: name });
  const downloads = card.getByTestId("license-downloads");
  await expect(downloads).toContainText("Version 1.1.0");
  await expect(downloads.getByTestId("newer-not-entitled")).toContainText("A newer version 2.0.0 needs a new license.");
  await expect(downloads.getByText("Earlier versions (1)")).toBeVisible();
  await downloads.getByText("Earlier versions (1)").click();
  await expect(downloads).toContainText("TapeEcho-1.0.0-mac-au.zip");
  await expect(downloads).not.toContainText("TapeEcho-2.0.0");
  // No single download link for a product with releases.
  await expect(card.getByRole("link", { name: `Download ${name}`, exact: true })).toHaveCount(0);
  const link = downloads.getByRole("link", { name: /TapeEcho-1\.1\.0-win-vst3\.zip/ });
  const gated = await page.request.get((await link.getAttribute("href"))!, { maxRedirects: 0 });
  expect(gated.status()).toBe(302);
  const file = await page.request.get(gated.headers().location!);
  expect(Buffer.from(await file.body()).equals(zipBytes(1_500, 0x41))).toBe(true);
  await settled(page);
  await shot("my-licenses-downloads");
});

test("without JavaScript the screenshots are plain links to the images", async ({ browser, request, baseURL }) => {
  const { products } = await (await request.get("/api/marketplace/listings?limit=50")).json();
  let withImages: { id: string; images: string[] } | undefined;
  for (const p of products as Array<{ id: string }>) {
    const details = (await (await request.get(`/api/marketplace/product/${p.id}`)).json()).product;
    if (details.images.length > 1) {
      withImages = details;
      break;
    }
  }
  expect(withImages, "a seeded product with screenshots").toBeTruthy();
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${baseURL}/products/${withImages!.id}`);
  const thumbs = page.locator("#screens-heading + ul a");
  await expect(thumbs).toHaveCount(withImages!.images.length);
  await expect(page.getByRole("dialog")).toBeHidden();
  const href = (await thumbs.first().getAttribute("href"))!;
  expect(new URL(href, baseURL).pathname).toBe(new URL(withImages!.images[0]!).pathname);
  await thumbs.first().click();
  await expect(page).toHaveURL(new RegExp(`${new URL(withImages!.images[0]!).pathname.replace(/[.]/g, "\\.")}$`));
  await context.close();
});
