import { coverArt, encodePng } from "../lib/media/generate";
import { expect, noHorizontalScroll, test } from "./fixtures";
import { createSeatProduct, newSeller } from "./support/seller-profile";

/**
 * Issue 35, item 1: listings lead with cover art, screenshots sit in a gallery with thumbnails (server-rendered, no
 * script), and audio demos play on the product page from the object store.
 */

const run = Date.now().toString(36);

/** A plain RGB PNG (a screenshot's size), one shade. */
function screenshot(shade: number): Buffer {
  const width = 640;
  const height = 400;
  return encodePng(width, height, new Uint8Array(width * height * 3).fill(shade));
}

/** The path of the file an <img> shows, once it has loaded. */
const shownFile = (img: HTMLImageElement) => (img.complete && img.naturalWidth > 0 ? new URL(img.currentSrc).pathname : "");

test("a seeded audio plugin leads with its cover, and its audio demo plays", async ({ page, browser, baseURL, shot }) => {
  await page.goto("/");
  // Cards lead with the cover, sized so nothing shifts as it loads.
  const cardCover = page.locator('article img[src^="/uploads/media/"]').first();
  await expect(cardCover).toHaveAttribute("width", "1200");
  await expect(cardCover).toHaveAttribute("height", "630");
  await expect(cardCover).toHaveAttribute("loading", "lazy");
  // A laptop screen of ordinary density shows a card under 640 px wide: the browser takes the narrow copy, not the
  // 1200 px original.
  await cardCover.scrollIntoViewIfNeeded();
  await expect.poll(() => cardCover.evaluate(shownFile)).toMatch(/^\/uploads\/media\/[a-f0-9]{32}-w640\.webp$/);
  // A phone with 3 pixels to the point needs more than 640: the original.
  const phone = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
  const onPhone = await phone.newPage();
  await onPhone.goto("/");
  const phoneCover = onPhone.locator('article img[src^="/uploads/media/"]').first();
  await phoneCover.scrollIntoViewIfNeeded();
  await expect.poll(() => phoneCover.evaluate(shownFile)).toMatch(/^\/uploads\/media\/[a-f0-9]{32}\.png$/);
  await phone.close();

  await page.goto("/products/tape-warmth");
  const cover = page.getByRole("img", { name: /^Cover art for Tape Warmth/ });
  await expect(cover).toBeVisible();
  await expect.poll(() => cover.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1200);

  const demos = page.getByRole("region", { name: "Demos" });
  const audio = demos.locator("audio").first();
  await expect(audio).toHaveAttribute("preload", "none");
  await expect(demos.getByText(/dry, then through Tape Warmth/)).toBeVisible();
  // A click on the page is the user's gesture that lets a page start playback; then play() must resolve and time move.
  await demos.getByText(/dry, then through Tape Warmth/).click();
  await audio.evaluate((a: HTMLAudioElement) => a.play());
  await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.currentTime), { timeout: 15_000 }).toBeGreaterThan(0.3);
  expect(await audio.evaluate((a: HTMLAudioElement) => a.error)).toBeNull();
  await audio.evaluate((a: HTMLAudioElement) => {
    a.pause();
  });
  await shot("product-media-seeded");
});

test("a seller uploads a cover and screenshots; the product page shows them in a gallery that works without script", async ({
  page,
  browser,
  baseURL,
  shot,
}) => {
  const email = `media-${run}@example.com`;
  await newSeller(page, email, { name: `Media Studio ${run}`, about: "We make tools and show them." });
  const productId = await createSeatProduct(page, {
    name: `Pictured ${run}`,
    pluginId: `com.media.pictured${run}`,
    tagline: "A product with pictures.",
    description: "A product this test gives a cover and screenshots, described at sufficient length.",
  });
  // Listed, whatever a new product starts as.
  const status = ((await (await page.request.get(`/api/v1/products/${productId}`)).json()) as { product: { status: string } }).product.status;
  if (status !== "active") expect((await page.request.post(`/api/v1/products/${productId}/publish`)).status()).toBeLessThan(300);

  await page.goto(`/dashboard/products/${productId}`);
  const media = page.getByRole("region", { name: "Media" });
  const form = media.getByRole("form", { name: "Upload media" });
  const uploadOne = async (kind: string, name: string, buffer: Buffer, alt: string) => {
    await form.getByLabel("Kind").selectOption({ label: kind });
    await form.getByLabel("File").setInputFiles({ name, mimeType: "image/png", buffer });
    await form.getByLabel(/^Alt text/).fill(alt);
    await form.getByRole("button", { name: "Upload" }).click();
    await expect(form.getByRole("status")).toHaveText(`${name} uploaded.`);
  };
  await uploadOne("Cover", "cover.png", coverArt(`e2e-${run}`), "A teal gradient with rings");
  await uploadOne("Screenshot", "one.png", screenshot(40), "The main window");
  await uploadOne("Screenshot", "two.png", screenshot(200), "The settings dialog");
  await expect(media.getByRole("listitem")).toHaveCount(3);

  // Order: the second screenshot first.
  await media.getByRole("listitem").filter({ hasText: "640 × 400" }).nth(1).getByRole("button", { name: "Move earlier" }).click();
  await expect(page).toHaveURL(/media=moved/);

  await page.goto(`/products/${productId}`);
  await expect(page.getByRole("img", { name: "A teal gradient with rings" })).toBeVisible();
  const screens = page.getByRole("region", { name: "Screenshots" });
  await expect(screens.getByRole("img", { name: "The settings dialog" })).toBeVisible();
  await expect(screens.getByRole("img", { name: "The main window" })).toBeHidden();
  // The thumbnails are links: by keyboard, the other one shows.
  const thumbs = screens.getByRole("list", { name: "Choose a screenshot" }).getByRole("link");
  await expect(thumbs).toHaveCount(2);
  await thumbs.nth(1).focus();
  await page.keyboard.press("Enter");
  await expect(screens.getByRole("img", { name: "The main window" })).toBeVisible();
  await expect(screens.getByRole("img", { name: "The settings dialog" })).toBeHidden();
  await shot("product-media-gallery");

  // Without JavaScript it all works the same, at a phone's width, in dark mode.
  const phone = await browser.newContext({ baseURL, javaScriptEnabled: false, viewport: { width: 390, height: 844 }, colorScheme: "dark" });
  const bare = await phone.newPage();
  await bare.goto(`/products/${productId}`);
  await expect(bare.getByRole("img", { name: "A teal gradient with rings" })).toBeVisible();
  await bare.getByRole("list", { name: "Choose a screenshot" }).getByRole("link").nth(1).click();
  await expect(bare.getByRole("img", { name: "The main window" })).toBeVisible();
  await noHorizontalScroll(bare);
  await phone.close();
});
