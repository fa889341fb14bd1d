/**
 * Screenshots of the pages a buyer and a seller see most, for people to review: home, a product, checkout, the
 * success page, My licenses and the seller's dashboard, at 390 px and 1280 px, in the light and the dark colour scheme.
 *
 *   npm run build && npm run screenshots
 *
 * Serves the production build on a free port with a fresh SQLite file and test-mode payments (bench/site.ts), buys
 * the demo catalogue's first product as a buyer, signs the buyer and the product's seller in with the links from the
 * development mailbox, and writes full-page PNGs to screenshots/ (not committed).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "@playwright/test";
import { CHROMIUM_FLAGS, CHROMIUM_PATH, createCheckout, startSite, type Site } from "../bench/site.ts";
import { developers, products } from "../prisma/seed/catalogue.ts";

const OUT = "screenshots";
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
];
const SCHEMES = ["light", "dark"] as const;
const product = products[0];
const seller = developers.find((d) => d.id === product?.developerId);
if (!product || !seller) throw new Error("the demo catalogue has no product with a developer");
const buyerEmail = `screenshots-${Date.now().toString(36)}@example.com`;

type StorageState = BrowserContextOptions["storageState"];

/** Every width and scheme of one page, as `screenshots/<name>-<width>-<scheme>.png`; returns the paths. */
async function shoot(browser: Browser, site: Site, name: string, path: string, storageState?: StorageState): Promise<string[]> {
  const files: string[] = [];
  for (const viewport of VIEWPORTS) {
    for (const colorScheme of SCHEMES) {
      const context = await browser.newContext({ baseURL: site.url, viewport, colorScheme, storageState });
      const page = await context.newPage();
      const response = await page.goto(path);
      if (!response?.ok()) throw new Error(`${name}: ${path} answered ${response?.status()}`);
      await page.waitForLoadState("networkidle");
      const file = join(OUT, `${name}-${viewport.width}-${colorScheme}.png`);
      await page.screenshot({ path: file, fullPage: true });
      files.push(file);
      await context.close();
    }
  }
  return files;
}

/** The newest sign-in link the development mailbox holds for an address, as a path on this site. */
async function signInLink(site: Site, email: string): Promise<string> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const res = await fetch(`${site.url}/api/dev/mailbox?to=${encodeURIComponent(email)}`);
    const { messages } = (await res.json()) as { messages: Array<{ kind: string; text: string }> };
    const link = messages.filter((m) => m.kind === "sign-in").map((m) => /\/auth\/verify\?token=[\w-]+/.exec(m.text)?.[0])[0];
    if (link) return link;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no sign-in link for ${email} in the development mailbox`);
}

/** Asks for a link on the form the page shows, opens it and confirms, as a person does; returns the signed-in state. */
async function signIn(page: Page, site: Site, form: string, email: string, button: RegExp): Promise<StorageState> {
  await page.goto(form);
  await page.getByLabel(/e-?mail address/i).fill(email);
  await page.getByRole("button", { name: button }).click();
  await page.waitForURL(/\/auth\/check-email/);
  await page.goto(await signInLink(site, email));
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/auth/"));
  return await page.context().storageState();
}

mkdirSync(OUT, { recursive: true });
const site = await startSite("screenshots");
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
try {
  const files: string[] = [];
  files.push(...(await shoot(browser, site, "home", "/")));
  files.push(...(await shoot(browser, site, "product", `/products/${product.id}`)));
  const checkout = new URL(await createCheckout(site, product.id, buyerEmail)).pathname;
  files.push(...(await shoot(browser, site, "checkout", checkout)));

  const context = await browser.newContext({ baseURL: site.url });
  const page = await context.newPage();
  await page.goto(checkout);
  await page.getByRole("button", { name: /^pay/i }).click();
  await page.waitForURL(/\/success$/);
  files.push(...(await shoot(browser, site, "success", new URL(page.url()).pathname)));

  const buyer = await signIn(page, site, "/licenses", buyerEmail, /^send sign-in link$/i);
  files.push(...(await shoot(browser, site, "my-licenses", "/licenses", buyer)));
  await context.clearCookies();
  const sellerState = await signIn(page, site, "/dashboard/sign-in", seller.email, /e-mail me a sign-in link/i);
  files.push(...(await shoot(browser, site, "dashboard", "/dashboard", sellerState)));
  await context.close();

  console.log(files.join("\n"));
} finally {
  await browser.close();
  await site.stop();
}
