import type { Page } from "@playwright/test";
import { expect, noHorizontalScroll, test } from "./fixtures";
import { signIn, signInLink } from "./support/sign-in";

// Phones first: no page is wider than the viewport at 320, 390 or 1280 px; at 390 × 844 the first product and a
// product's price with a Buy action are on the first screen; dashboard tables stack into cards on phones, so every
// column of an order (gross, fee, net) can be read; the product 404, /favicon.ico and the skip link work.

const WIDTHS = [320, 390, 1280] as const;
const PHONE = { width: 390, height: 844 } as const;
const SELLER = "hello@tidewater-audio.example";
const OPERATOR = "operator-responsive@e2e.example.com";
/** A seeded product of SELLER's with a free trial, and one without. */
const TRIAL_PRODUCT = "tape-warmth";
const NO_TRIAL_PRODUCT = "reef-reverb";
const LONG_TERM = "supercalifragilisticexpialidociousreverbwithanextremelylongnamethatneverbreaks";

/** Loads a page at each width and checks it is no wider than the viewport. */
async function fitsEveryWidth(page: Page, path: string): Promise<void> {
  for (const width of WIDTHS) {
    await test.step(`${path} at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(path);
      await page.waitForLoadState("networkidle");
      await noHorizontalScroll(page);
    });
  }
}

/** The first link on the current page whose address matches, as a path. */
async function firstHref(page: Page, pattern: RegExp): Promise<string> {
  const hrefs = await page.locator("a[href]").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
  const href = hrefs.find((h) => pattern.test(h));
  expect(href, `a link matching ${pattern}`).toBeTruthy();
  return href!;
}

/** Buys a product through its page in test mode; returns the checkout and success paths. */
async function buy(page: Page, productId: string, email: string): Promise<{ checkout: string; success: string }> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/products/${productId}`);
  await page.getByLabel(/e-?mail address/i).fill(email);
  await page.getByRole("button", { name: /^buy$/i }).click();
  await expect(page).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]+$/);
  const checkout = new URL(page.url()).pathname;
  await page.getByRole("button", { name: /^pay/i }).click();
  await expect(page.getByTestId("license-key")).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  return { checkout, success: new URL(page.url()).pathname };
}

/** Scrolls until the Buy box is above the screen (the description in view). */
async function scrollPastBuyBox(page: Page): Promise<void> {
  await page.evaluate(() => {
    const box = document.getElementById("buy")!.getBoundingClientRect();
    window.scrollTo(0, window.scrollY + box.bottom + 40);
  });
}

// Each test makes its own sellers and buyers: they run side by side (playwright.config.ts).
test.describe.configure({ mode: "parallel" });

test.describe("no page is wider than the viewport", () => {
  test("storefront pages, search with a long term, the 404 pages and the sign-in pages", async ({ page }) => {
    test.setTimeout(180_000);
    const { categories } = (await (await page.request.get("/api/marketplace/categories")).json()) as { categories: Array<{ category: string }> };
    const paths = [
      "/",
      `/?q=${LONG_TERM}`,
      `/?q=${encodeURIComponent(`${LONG_TERM} ${LONG_TERM}`)}&category=${categories[0]!.category}`,
      `/?category=${categories[0]!.category}`,
      "/developers/tidewater-audio",
      `/products/${TRIAL_PRODUCT}`,
      `/products/${NO_TRIAL_PRODUCT}`,
      "/products/no-such-product",
      "/no-such-page",
      "/agents",
      "/terms",
      "/refunds",
      "/privacy",
      "/contact",
      "/licenses",
      "/dashboard/sign-in",
      "/auth/check-email?purpose=buyer",
      "/auth/check-email?invalid=1",
    ];
    for (const path of paths) await fitsEveryWidth(page, path);

    // The confirm page a sign-in link opens (opening it spends nothing).
    const email = `e2e-responsive-verify-${Date.now()}@example.com`;
    await page.goto("/licenses");
    await page.getByLabel(/e-?mail address/i).fill(email);
    await page.getByRole("button", { name: "Send sign-in link" }).click();
    await expect(page).toHaveURL(/\/auth\/check-email\?purpose=buyer$/);
    await fitsEveryWidth(page, await signInLink(page, email));
  });

  test("checkout, success and My licenses", async ({ page }) => {
    test.setTimeout(120_000);
    const email = `e2e-responsive-buyer-${Date.now()}@example.com`;
    const { checkout, success } = await buy(page, NO_TRIAL_PRODUCT, email);
    await fitsEveryWidth(page, success);
    // The signed receipt's page for people, linked from the success page.
    await page.goto(success);
    await fitsEveryWidth(page, await firstHref(page, /^\/receipt\?key=/));

    // A second checkout left open, to see the payment page itself.
    await page.goto(`/products/${TRIAL_PRODUCT}`);
    await page.getByLabel(/e-?mail address/i).fill(email);
    await page.getByRole("button", { name: /^buy$/i }).click();
    await expect(page).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]+$/);
    const open = new URL(page.url()).pathname;
    expect(open).not.toBe(checkout);
    await fitsEveryWidth(page, open);
    await fitsEveryWidth(page, `${open}/cancelled`);

    await page.goto("/licenses");
    await page.getByLabel(/e-?mail address/i).fill(email);
    await page.getByRole("button", { name: "Send sign-in link" }).click();
    await page.goto(await signInLink(page, email));
    await page.getByRole("button", { name: /^sign in as /i }).click();
    await expect(page).toHaveURL(/\/licenses$/);
    await fitsEveryWidth(page, "/licenses");
  });

  test("the seller's dashboard", async ({ page, browser }) => {
    test.setTimeout(240_000);
    // A sale, so the order, sales and license pages have rows.
    const buyer = await browser.newPage();
    await buy(buyer, TRIAL_PRODUCT, `e2e-responsive-sale-${Date.now()}@example.com`);
    await buyer.close();

    await signIn(page, SELLER);
    const paths = [
      "/dashboard",
      "/dashboard/products",
      "/dashboard/products/new",
      `/dashboard/products/${TRIAL_PRODUCT}`,
      `/dashboard/products/${TRIAL_PRODUCT}/releases`,
      "/dashboard/orders",
      "/dashboard/subscriptions",
      "/dashboard/licenses",
      `/dashboard/licenses?q=${LONG_TERM}`,
      "/dashboard/coupons",
      "/dashboard/payouts",
      "/dashboard/sales",
      "/dashboard/api-tokens",
      "/dashboard/webhooks",
      "/dashboard/profile",
      "/dashboard/reviews",
      "/dashboard/no-such-page",
    ];
    for (const path of paths) await fitsEveryWidth(page, path);

    await page.goto("/dashboard/orders");
    await fitsEveryWidth(page, await firstHref(page, /^\/dashboard\/orders\/[^/?]+$/));
    await page.goto("/dashboard/licenses");
    await fitsEveryWidth(page, await firstHref(page, /^\/dashboard\/licenses\/[^/?]+$/));
  });

  test("a new seller's welcome page and the operator's console", async ({ page }) => {
    test.setTimeout(180_000);
    await signIn(page, OPERATOR);
    const paths = [
      "/dashboard/welcome",
      "/admin",
      "/admin/sellers",
      "/admin/products",
      "/admin/orders",
      "/admin/licenses",
      "/admin/events",
      "/admin/audit",
      "/admin/agents",
      "/admin/reviews",
      "/dev/mailbox",
    ];
    for (const path of paths) await fitsEveryWidth(page, path);

    await page.goto("/dev/mailbox");
    await fitsEveryWidth(page, await firstHref(page, /^\/dev\/mailbox\/[^/?]+$/));

    await page.goto("/admin/orders");
    await fitsEveryWidth(page, await firstHref(page, /^\/admin\/orders\/[^/?]+$/));
    await page.goto("/admin/licenses");
    await fitsEveryWidth(page, await firstHref(page, /^\/admin\/licenses\/[^/?]+$/));
  });
});

test.describe("phones first at 390 × 844", () => {
  test.use({ viewport: PHONE });

  test("the first product card starts on the first screen of the home page", async ({ page }) => {
    await page.goto("/");
    const card = page
      .getByRole("main")
      .getByRole("listitem")
      .filter({ has: page.locator("a[href^='/products/']") })
      .first();
    const box = await card.boundingBox();
    expect(box, "a product card on the home page").not.toBeNull();
    expect(box!.y).toBeLessThan(500);
  });

  test("a product page shows the price and a Buy action without scrolling; further down a bar leads back to the Buy form", async ({
    page,
    request,
  }) => {
    const product = (await (await request.get(`/api/marketplace/product/${NO_TRIAL_PRODUCT}`)).json()).product as { price_display: string };
    await page.goto(`/products/${NO_TRIAL_PRODUCT}`);
    await page.waitForLoadState("networkidle");
    await expect(page.getByRole("main").getByText(product.price_display).first()).toBeInViewport({ ratio: 1 });
    await expect(page.getByRole("link", { name: "Buy a license" })).toBeInViewport({ ratio: 1 });
    // The Buy box follows the title: its e-mail field is on the first screen too.
    await expect(page.getByLabel(/e-?mail address/i)).toBeInViewport({ ratio: 1 });

    // Past the Buy box, the bar offers the price and the action.
    const bar = page.getByTestId("sticky-buy-bar");
    const action = bar.getByRole("link", { name: `Buy – ${product.price_display}` });
    await scrollPastBuyBox(page);
    await expect(action).toBeInViewport({ ratio: 1 });

    // It jumps to the form and puts the cursor in the e-mail field; with the form in view, the bar steps aside.
    await action.click();
    await expect(page.getByLabel(/e-?mail address/i)).toBeFocused();
    await expect(page.getByRole("button", { name: /^buy$/i })).toBeInViewport();
    await expect(bar).toBeHidden();

    // At the very bottom the bar is back, and covers nothing: the page leaves room for it.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect(bar).toBeVisible();
    const barTop = (await bar.boundingBox())!.y;
    const lastLine = await page.locator("footer").evaluate((footer) => {
      const bottoms = [...footer.querySelectorAll("a, p, li, h2")].map((el) => el.getBoundingClientRect().bottom);
      return Math.max(...bottoms);
    });
    expect(lastLine).toBeLessThanOrEqual(barTop);
  });

  test("a product with a free trial offers the trial in the bar too", async ({ page, request }) => {
    const product = (await (await request.get(`/api/marketplace/product/${TRIAL_PRODUCT}`)).json()).product as {
      price_display: string;
    };
    await page.goto(`/products/${TRIAL_PRODUCT}`);
    await page.waitForLoadState("networkidle");
    await scrollPastBuyBox(page);
    const bar = page.getByTestId("sticky-buy-bar");
    await expect(bar.getByRole("link", { name: `Buy – ${product.price_display}` })).toBeInViewport({ ratio: 1 });
    // The trial key comes by e-mail (the installer's address is never public): the bar leads to the trial form.
    const trial = bar.getByRole("link", { name: "Start trial" });
    await expect(trial).toHaveAttribute("href", "#trial");
    await trial.click();
    // The Buy form's one address serves the trial too; the bar leads to it, and the trial's button is on the screen.
    await expect(page.locator("#buy").getByLabel("E-mail address")).toBeInViewport();
    await expect(page.getByRole("button", { name: /^Start a free \d+-day trial$/ })).toBeInViewport();
  });

  test("a product with a trial asks for the address once: the trial key goes to the Buy form's address", async ({ page, request }) => {
    const email = `e2e-trial-${Date.now().toString(36)}@example.com`;
    await page.goto(`/products/${TRIAL_PRODUCT}`);
    // One e-mail field on the page, not one per form.
    await expect(page.locator('input[type="email"]')).toHaveCount(1);
    const field = page.locator("#buy").getByLabel("E-mail address");
    const start = page.getByRole("button", { name: /^Start a free \d+-day trial$/ });

    // An address that cannot receive mail: the server says so under the field (the browser lets "x@y" through).
    await field.fill("x@y");
    await start.click();
    await expect(page).toHaveURL(/\?trial=invalid#trial$/);
    await expect(page.getByRole("alert").filter({ hasText: "can receive mail" })).toBeVisible();
    await expect(page.locator("#buy").getByLabel("E-mail address")).toHaveAttribute("aria-describedby", /trial_outcome/);

    await page.locator("#buy").getByLabel("E-mail address").fill(email);
    await page.getByRole("button", { name: /^Start a free \d+-day trial$/ }).click();
    await expect(page).toHaveURL(/\?trial=sent#trial$/);
    await expect(page.getByRole("status").filter({ hasText: "trial key and download link are on their way" })).toBeVisible();
    // The trial key reached that address.
    await expect
      .poll(async () => {
        const { messages } = (await (await request.get(`/api/dev/mailbox?to=${encodeURIComponent(email)}`)).json()) as {
          messages: Array<{ subject: string }>;
        };
        return messages.length;
      })
      .toBe(1);
  });

  test("without JavaScript the bar is a plain link to the Buy form", async ({ browser }) => {
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`/products/${NO_TRIAL_PRODUCT}`);
    await scrollPastBuyBox(page);
    const action = page.getByTestId("sticky-buy-bar").getByRole("link", { name: /^Buy – / });
    await expect(action).toBeInViewport({ ratio: 1 });
    await expect(action).toHaveAttribute("href", "#buy");
    await context.close();
  });

  test("on a wide screen there is no bar: the Buy box stays beside the description", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`/products/${NO_TRIAL_PRODUCT}`);
    await page.waitForLoadState("networkidle");
    await expect(page.getByTestId("sticky-buy-bar")).toBeHidden();
    await expect(page.getByRole("button", { name: /^buy$/i })).toBeInViewport();
  });

  test("bug 9: the seller's order tables show gross, fee and net on a phone", async ({ page, browser }) => {
    test.setTimeout(120_000);
    const buyer = await browser.newPage();
    await buy(buyer, NO_TRIAL_PRODUCT, `e2e-responsive-orders-${Date.now()}@example.com`);
    await buyer.close();
    await signIn(page, SELLER);
    await page.setViewportSize(PHONE);

    for (const [path, region] of [
      ["/dashboard", "Recent orders table"],
      ["/dashboard/sales", "Orders table"],
    ] as const) {
      await test.step(path, async () => {
        await page.goto(path);
        const table = page.getByRole("region", { name: region });
        await expect(table).toBeVisible();
        // Each column of the first order, found by its header, lies inside the screen.
        const cells = await table.evaluate((region) => {
          const headers = [...region.querySelectorAll("thead th")].map((th) => th.textContent.trim());
          const row = region.querySelector("tbody tr") as HTMLTableRowElement;
          return ["Gross", "Fee", "Net"].map((name) => {
            const cell = row.cells[headers.indexOf(name)]!;
            const r = cell.getBoundingClientRect();
            return { name, left: r.left, right: r.right, width: r.width, text: cell.innerText.trim() };
          });
        });
        for (const c of cells) {
          expect(c.width, `${c.name} has a size`).toBeGreaterThan(0);
          expect(c.left, `${c.name} starts on screen`).toBeGreaterThanOrEqual(0);
          expect(c.right, `${c.name} ends on screen`).toBeLessThanOrEqual(PHONE.width);
          expect(c.text, `${c.name} shows an amount`).toMatch(/\d/);
        }
        await noHorizontalScroll(page);
      });
    }
  });
});

test.describe("bug 6", () => {
  test("an unknown product gets the product 404 page, with a 404 status", async ({ page }) => {
    const response = await page.goto("/products/no-such-product");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "We couldn't find that product" })).toBeVisible();
    await expect(page).toHaveTitle(/^Product not found/);
    await expect(page.locator('meta[name="robots"]').first()).toHaveAttribute("content", /noindex/);

    // Any other unknown address keeps the site's general 404 page.
    const other = await page.goto("/no-such-page");
    expect(other?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "We couldn't find that page" })).toBeVisible();
    await expect(page).toHaveTitle(/^Page not found/);
  });

  test("/favicon.ico is an icon", async ({ request }) => {
    const response = await request.get("/favicon.ico");
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toMatch(/^image\//);
    expect((await response.body()).length).toBeGreaterThan(0);
  });

  for (const width of [390, 1280]) {
    test(`the skip link shows with padding, clear of the logo, and moves focus to the content (${width} px)`, async ({ page }) => {
      await page.setViewportSize({ width, height: 844 });
      await page.goto("/");
      await page.keyboard.press("Tab");
      const skip = page.getByRole("link", { name: "Skip to content" });
      await expect(skip).toBeFocused();
      await expect(skip).toBeInViewport({ ratio: 1 });
      const style = await skip.evaluate((el) => {
        const s = getComputedStyle(el);
        return { left: parseFloat(s.paddingLeft), top: parseFloat(s.paddingTop), background: s.backgroundColor };
      });
      expect(style.left).toBeGreaterThanOrEqual(8);
      expect(style.top).toBeGreaterThanOrEqual(6);
      expect(style.background).not.toBe("rgba(0, 0, 0, 0)");
      const skipBox = (await skip.boundingBox())!;
      const logoBox = (await page.getByRole("banner").getByRole("link").first().boundingBox())!;
      const overlaps =
        skipBox.x < logoBox.x + logoBox.width &&
        logoBox.x < skipBox.x + skipBox.width &&
        skipBox.y < logoBox.y + logoBox.height &&
        logoBox.y < skipBox.y + skipBox.height;
      expect(overlaps, `skip link ${JSON.stringify(skipBox)} and logo ${JSON.stringify(logoBox)}`).toBe(false);
      await page.keyboard.press("Enter");
      await expect(page).toHaveURL(/#main$/);
    });
  }
});
