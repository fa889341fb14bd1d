import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { createSeatProduct, newSeller } from "./support/seller-profile";

/**
 * The buy button on a seller's own site, in a real browser: static pages served from other loopback ports (another
 * origin than the suite's http://localhost:3100) embed the script and a button. On the site the seller verified
 * (through the dashboard's Buy button page), at desktop size and on a 390 px phone, the overlay opens as a modal
 * dialog with focus inside, Escape closes it, and a test-mode purchase completes inside the frame: the page receives
 * the order id, never the license key. On a site nobody verified, the browser refuses to frame the checkout.
 *
 * This spec uses Playwright's own `test` rather than ./fixtures: its pages live on other origins on purpose.
 */

interface Site {
  origin: string;
  server: Server;
  /** What the site serves at the verification path. */
  token: string;
}

/** A seller's shop page: the snippet, and a listener that writes what the page is told into the page. */
const shopPage = (base: string, productId: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>A seller's shop</title>
<script src="${base}/buy-button.js" defer></script></head>
<body style="margin:0;font-family:sans-serif"><main style="padding:16px;min-height:200vh">
<h1>Tape warmth for your studio</h1>
<a id="buy" href="${base}/products/${productId}" data-ilm-product="${productId}" data-ilm-quantity="2">Buy two seats</a>
<p>Order: <output id="outcome"></output></p>
<pre id="messages"></pre>
</main>
<script>
document.addEventListener("ilm:purchase", function (e) { document.getElementById("outcome").textContent = e.detail.order_id; });
window.addEventListener("message", function (e) { document.getElementById("messages").textContent += JSON.stringify(e.data) + "\\n"; });
</script></body></html>`;

async function startSite(base: string, productId: string): Promise<Site> {
  const site = { origin: "", token: "", server: undefined as unknown as Server };
  site.server = createServer((req, res) => {
    if (req.url === "/.well-known/indie-license-market.txt") res.writeHead(200, { "content-type": "text/plain" }).end(`${site.token}\n`);
    else if (req.url === "/") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(shopPage(base, productId));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.server.listen(0, "127.0.0.1", resolve));
  site.origin = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
  return site;
}

const stop = (s: Site) => new Promise<void>((resolve) => s.server.close(() => resolve()));

/** Chromium's report of a frame it refused to show because of the framed page's frame-ancestors. */
const refusedFrame = (text: string) =>
  /frame-ancestors/.test(text) && /(Refused to frame|violates the following Content Security Policy directive)/.test(text);

/** Page errors and console errors of a buyer's page, but for the refusal a test expects. */
function watch(page: Page): { errors: string[]; console: string[] } {
  const seen = { errors: [] as string[], console: [] as string[] };
  page.on("pageerror", (e) => seen.errors.push(e.message));
  page.on("console", (m) => {
    seen.console.push(m.text());
    if (m.type() === "error" && !/status of 404/.test(m.text()) && !refusedFrame(m.text())) seen.errors.push(m.text());
  });
  return seen;
}

const dialog = (page: Page) => page.getByRole("dialog", { name: "Checkout" });
const focusInDialog = (page: Page) => page.evaluate(() => document.activeElement?.closest("[role=dialog]") !== null);

async function buyOnSite(browser: Browser, site: Site, viewport: { width: number; height: number }, email: string) {
  const context = await browser.newContext({ viewport, ...(viewport.width < 500 ? { hasTouch: true, isMobile: true } : {}) });
  const page = await context.newPage();
  const seen = watch(page);
  await page.goto(`${site.origin}/`);
  const button = page.locator("#buy");

  // Open: a labelled modal dialog, focus inside, the page behind locked; Escape closes it and focus returns.
  await button.click();
  await expect(dialog(page)).toBeVisible();
  await expect(dialog(page)).toHaveAttribute("aria-modal", "true");
  expect(await focusInDialog(page)).toBe(true);
  expect(await page.evaluate(() => document.body.style.overflow)).toBe("hidden");
  const box = (await dialog(page).boundingBox())!;
  if (viewport.width < 500) {
    // Full screen on a phone.
    expect(Math.round(box.width)).toBe(viewport.width);
    expect(Math.round(box.height)).toBe(viewport.height);
  } else {
    expect(box.width).toBeLessThanOrEqual(480);
  }
  // Tab stays inside the dialog.
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.closest("#buy"))).toBeNull();
  }
  // Escape from the page's side of the dialog (Tab may have moved focus into the frame, whose own Escape is tested
  // below): its close button.
  await dialog(page).getByRole("button", { name: "Close checkout" }).focus();
  await page.keyboard.press("Escape");
  await expect(dialog(page)).toHaveCount(0);
  await expect(button).toBeFocused();
  expect(await page.evaluate(() => document.body.style.overflow)).toBe("");

  // Escape with focus inside the frame (a key the page around it never sees) closes it too.
  await button.click();
  const frame = page.frameLocator('iframe[title="Checkout"]');
  await expect(frame.locator("html[data-ilm-bridge=ready]")).toHaveCount(1);
  await frame.getByLabel("Your e-mail address").click();
  await page.keyboard.press("Escape");
  await expect(dialog(page)).toHaveCount(0);
  await expect(button).toBeFocused();

  // Again, and buy: the checkout runs inside the frame, in test mode.
  await button.click();
  await expect(dialog(page)).toBeVisible();
  await expect(frame.getByTestId("embed-price")).toContainText("2 ×");
  await frame.getByLabel("Your e-mail address").fill(email);
  await frame.getByRole("button", { name: "Continue to payment" }).click();
  await expect(frame.getByRole("button", { name: /^pay/i })).toBeVisible();
  await page.screenshot({ path: `e2e/artifacts/screens/buy-button-overlay-${viewport.width}.png` });
  await frame.getByRole("button", { name: /^pay/i }).click();

  // The page is told the order id, and the overlay closes itself; focus is back on the button.
  await expect(page.locator("#outcome")).toHaveText(/^cs_[A-Za-z0-9]{24}$/);
  await expect(dialog(page)).toHaveCount(0);
  await expect(button).toBeFocused();
  const orderId = await page.locator("#outcome").textContent();
  // What reached the page: the Escape pressed inside the frame, passed on, then the completion with the order id and
  // nothing else (no key).
  const messages = (await page.locator("#messages").textContent())!.trim().split("\n");
  expect(messages.map((m) => JSON.parse(m) as unknown)).toEqual([{ type: "ilm:close" }, { type: "ilm:checkout.completed", order_id: orderId }]);
  expect(await page.content()).not.toMatch(/[0-9A-Z]{4}(-[0-9A-Z]{4}){3}/);
  expect(seen.errors).toEqual([]);
  await context.close();
  return orderId!;
}

test("a verified seller site sells through the buy button overlay; an unverified one cannot frame the checkout", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  await newSeller(page, `e2e-buybutton-${run}@example.com`, { name: `Button Studio ${run}`, about: "Sells from its own website." });
  const productId = await createSeatProduct(page, {
    name: `Shop Tape ${run}`,
    pluginId: `com.e2e.buybutton${run}`,
    tagline: "Tape warmth, sold on the seller's own site.",
    description: "A per-seat product created by the buy button end-to-end test, with a long enough description.",
  });

  const verified = await startSite(baseURL!, productId);
  const unverified = await startSite(baseURL!, productId);
  try {
    // The dashboard: add the site, publish its token, verify; the snippet names the product.
    await page.goto("/dashboard/buy-button");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Buy button");
    await page.getByLabel("Site origin").fill(`${verified.origin}/`);
    await page.getByRole("button", { name: "Add site" }).click();
    await expect(page.locator("#buy-button-notice")).toContainText("Origin added");
    verified.token = (await page.getByTestId("embed-origin-token").textContent())!.trim();
    expect(verified.token).toMatch(/^ilm-verify-/);
    // The other site is added too but never publishes its token: it stays unverified.
    await page.getByLabel("Site origin").fill(unverified.origin);
    await page.getByRole("button", { name: "Add site" }).click();
    await expect(page.locator("#buy-button-notice")).toContainText("Origin added");
    await page.getByRole("button", { name: `Verify ${unverified.origin}` }).click();
    await expect(page.locator("#buy-button-notice")).toContainText("Verification failed");
    await expect(page.getByTestId("embed-origin-error")).toContainText("mismatch");
    await page.getByRole("button", { name: `Verify ${verified.origin}` }).click();
    await expect(page.locator("#buy-button-notice")).toContainText("Origin verified");
    await expect(page.getByTestId("buy-button-snippet")).toContainText(`data-ilm-product="${productId}"`);
    await expect(page.getByTestId("buy-button-snippet")).toContainText(`${baseURL}/buy-button.js?v=`);

    // The script itself: JavaScript, cached, no dependencies.
    const script = await page.request.get("/buy-button.js");
    expect(script.status()).toBe(200);
    expect(script.headers()["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.headers()["cache-control"]).toContain("max-age=");

    // Desktop and a 390 px phone: open, Escape, buy; two orders of two seats each.
    const first = await buyOnSite(browser, verified, { width: 1280, height: 800 }, `e2e-bb-desk-${run}@example.com`);
    const second = await buyOnSite(browser, verified, { width: 390, height: 844 }, `e2e-bb-phone-${run}@example.com`);
    expect(first).not.toBe(second);
    for (const id of [first, second]) {
      const status = (await (await page.request.get(`/api/checkout/${id}`)).json()) as { status: string; quantity: number; amount_cents: number };
      expect(status).toMatchObject({ status: "paid", quantity: 2, amount_cents: 5000 });
    }

    // The unverified site: the overlay opens, but the browser refuses to show the checkout in it.
    const context = await browser.newContext();
    const shop = await context.newPage();
    const seen = watch(shop);
    await shop.goto(`${unverified.origin}/`);
    await shop.locator("#buy").click();
    await expect(dialog(shop)).toBeVisible();
    await expect.poll(() => seen.console.find(refusedFrame) ?? null).not.toBeNull();
    // Refused by our answer's policy, which names the verified site and not this one.
    const refusal = seen.console.find(refusedFrame)!;
    expect(refusal).toContain(verified.origin);
    expect(refusal).not.toContain(unverified.origin);
    // No frame holds our checkout: the refused frame shows the browser's error page, not the entry page.
    expect(shop.frames().some((f) => f.url().includes("/embed/checkout"))).toBe(false);
    await expect(shop.frameLocator('iframe[title="Checkout"]').getByLabel("Your e-mail address")).toHaveCount(0);
    expect(seen.errors).toEqual([]);
    await context.close();
  } finally {
    await stop(verified);
    await stop(unverified);
  }
});
