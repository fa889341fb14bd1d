/**
 * Screenshots of the main page of each journey, for people to review: a buyer (home, search, a product with its audio
 * demo, checkout, success, My licenses), a seller (the welcome step, the overview, a new product, a product, Sales)
 * and the operator (the console), at 390 px and 1440 px, in the light and the dark colour scheme.
 *
 *   npm run build && npm run screenshots
 *
 * Serves the production build on a free port with a fresh SQLite file and test-mode payments (bench/site.ts), buys
 * the demo catalogue's first product as a buyer, signs the buyer, a new seller, the product's seller and the operator
 * in with the links from the development mailbox, and writes JPEGs (quality 70, at most MAX_HEIGHT px of each page)
 * to docs/screenshots/, committed, with docs/screenshots/README.md listing them. File names carry no dates, and every
 * shot waits for the network to go idle and the images to load, so a second run changes only what the pages changed.
 */
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "@playwright/test";
import { format, resolveConfig } from "prettier";
import { CHROMIUM_FLAGS, CHROMIUM_PATH, createCheckout, startSite, type Site } from "../bench/site.ts";
import { developers, products } from "../prisma/seed/catalogue.ts";

const OUT = "docs/screenshots";
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
];
const SCHEMES = ["light", "dark"] as const;
/** The most of a page's height kept: the top of a long page shows what it is; the total stays a few megabytes. */
const MAX_HEIGHT = 2400;
const QUALITY = 70;
const OPERATOR = "operator@example.com";
// Fixed addresses: the database is new on every run, and the pages show them.
const BUYER = "buyer@example.com";
const NEW_SELLER = "new-seller@example.com";
// The demo catalogue's first product (Tape Warmth) has a before/after audio demo.
const product = products[0];
const seller = developers.find((d) => d.id === product?.developerId);
if (!product || !seller) throw new Error("the demo catalogue has no product with a developer");

type StorageState = BrowserContextOptions["storageState"];

interface Shot {
  journey: string;
  name: string;
  title: string;
  path: string;
  /** A selector: the shot is one screen from a little above this element, not the top of the page. */
  focus?: string;
  files: string[];
}

/** Every width and scheme of one page, as `<name>-<width>-<scheme>.jpg`. */
async function shoot(browser: Browser, site: Site, shot: Omit<Shot, "files">, storageState?: StorageState): Promise<Shot> {
  const files: string[] = [];
  for (const viewport of VIEWPORTS) {
    for (const colorScheme of SCHEMES) {
      const context = await browser.newContext({ baseURL: site.url, viewport, colorScheme, reducedMotion: "reduce", storageState });
      const page = await context.newPage();
      const response = await page.goto(shot.path);
      if (!response?.ok()) throw new Error(`${shot.name}: ${shot.path} answered ${response?.status()}`);
      await page.waitForLoadState("networkidle");
      // Lazy images below the first screen are in the shot too: load them all, then wait for them and the fonts.
      const pageHeight = await page.evaluate(async () => {
        const images = [...document.images];
        for (const img of images) img.loading = "eager";
        // decode() settles once the image has loaded (or failed to) and can be painted.
        await Promise.all(images.map((img) => img.decode().catch(() => undefined)));
        await document.fonts.ready;
        return document.documentElement.scrollHeight;
      });
      await page.waitForLoadState("networkidle");
      const top = shot.focus
        ? Math.max(
            0,
            Math.round(
              await page
                .locator(shot.focus)
                .first()
                .evaluate((el) => el.getBoundingClientRect().top + window.scrollY),
            ) - 160,
          )
        : 0;
      const height = shot.focus ? Math.min(viewport.height, pageHeight - top) : Math.min(pageHeight, MAX_HEIGHT);
      const file = `${shot.name}-${viewport.width}-${colorScheme}.jpg`;
      await page.screenshot({
        path: join(OUT, file),
        type: "jpeg",
        quality: QUALITY,
        fullPage: true,
        clip: { x: 0, y: top, width: viewport.width, height },
        animations: "disabled",
        caret: "hide",
      });
      files.push(file);
      await context.close();
    }
  }
  console.log(`${shot.name}: ${shot.path}`);
  return { ...shot, files };
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
  await page.context().clearCookies();
  await page.goto(form);
  await page.getByLabel(/e-?mail address/i).fill(email);
  await page.getByRole("button", { name: button }).click();
  await page.waitForURL(/\/auth\/check-email/);
  await page.goto(await signInLink(site, email));
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/auth/"));
  return await page.context().storageState();
}

/** docs/screenshots/README.md: every shot, by journey, with its four images (formatted as `npm run format` would). */
async function writeIndex(shots: Shot[]): Promise<void> {
  const lines = [
    "# Screenshots",
    "",
    "The main page of each journey at 390 px (a phone) and 1440 px (a laptop), in the light and the dark colour scheme,",
    "made by `npm run screenshots` (scripts/screenshots.ts) from the production build with the demo catalogue and a fresh",
    `database. JPEG, quality ${QUALITY}; at most the top ${MAX_HEIGHT} px of a long page (the audio demo's: one screen around`,
    "the player).",
    "",
  ];
  for (const journey of [...new Set(shots.map((s) => s.journey))]) {
    lines.push(`## ${journey}`, "", "| Page | 390 px, light | 390 px, dark | 1440 px, light | 1440 px, dark |", "| --- | --- | --- | --- | --- |");
    for (const s of shots.filter((x) => x.journey === journey)) {
      lines.push(`| ${s.title} (\`${s.path.replace(/cs_[A-Za-z0-9]+/, "cs_…")}\`) | ${s.files.map((f) => `[${f}](${f})`).join(" | ")} |`);
    }
    lines.push("");
  }
  const file = join(OUT, "README.md");
  writeFileSync(file, await format(lines.join("\n"), { ...(await resolveConfig(file)), filepath: file }));
}

mkdirSync(OUT, { recursive: true });
const site = await startSite("screenshots", { ADMIN_EMAILS: OPERATOR, DEV_MAILBOX: "local" });
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
try {
  const shots: Shot[] = [];
  const buyer = "A buyer";
  shots.push(await shoot(browser, site, { journey: buyer, name: "home", title: "Home", path: "/" }));
  shots.push(await shoot(browser, site, { journey: buyer, name: "search", title: "Search results", path: "/?q=tape" }));
  shots.push(await shoot(browser, site, { journey: buyer, name: "product", title: "Product page", path: `/products/${product.id}` }));
  shots.push(
    await shoot(browser, site, {
      journey: buyer,
      name: "product-audio-demo",
      title: "Product page, its audio demo",
      path: `/products/${product.id}`,
      focus: "audio",
    }),
  );
  const checkout = new URL(await createCheckout(site, product.id, BUYER)).pathname;
  shots.push(await shoot(browser, site, { journey: buyer, name: "checkout", title: "Checkout (test mode)", path: checkout }));

  const context = await browser.newContext({ baseURL: site.url });
  const page = await context.newPage();
  await page.goto(checkout);
  await page.getByRole("button", { name: /^pay/i }).click();
  await page.waitForURL(/\/success$/);
  shots.push(await shoot(browser, site, { journey: buyer, name: "success", title: "Success", path: new URL(page.url()).pathname }));
  const buyerState = await signIn(page, site, "/licenses", BUYER, /^send sign-in link$/i);
  shots.push(await shoot(browser, site, { journey: buyer, name: "my-licenses", title: "My licenses", path: "/licenses" }, buyerState));

  const sellers = "A seller";
  const newSeller = await signIn(page, site, "/dashboard/sign-in", NEW_SELLER, /e-mail me a sign-in link/i);
  shots.push(
    await shoot(
      browser,
      site,
      { journey: sellers, name: "seller-welcome", title: "Welcome step of a new seller", path: "/dashboard/welcome" },
      newSeller,
    ),
  );
  const sellerState = await signIn(page, site, "/dashboard/sign-in", seller.email, /e-mail me a sign-in link/i);
  shots.push(await shoot(browser, site, { journey: sellers, name: "seller-overview", title: "Overview", path: "/dashboard" }, sellerState));
  shots.push(
    await shoot(browser, site, { journey: sellers, name: "seller-new-product", title: "New product", path: "/dashboard/products/new" }, sellerState),
  );
  shots.push(
    await shoot(
      browser,
      site,
      { journey: sellers, name: "seller-product", title: "A product", path: `/dashboard/products/${product.id}` },
      sellerState,
    ),
  );
  shots.push(await shoot(browser, site, { journey: sellers, name: "seller-sales", title: "Sales", path: "/dashboard/sales" }, sellerState));

  const operator = await signIn(page, site, "/dashboard/sign-in?next=/admin", OPERATOR, /e-mail me a sign-in link/i);
  shots.push(await shoot(browser, site, { journey: "The operator", name: "admin", title: "Operator console", path: "/admin" }, operator));
  await context.close();

  // Only after every shot was taken (a failed run leaves the set as it was): shots of pages no longer listed go.
  const written = new Set(shots.flatMap((s) => s.files));
  for (const file of readdirSync(OUT)) if (/\.(jpg|png)$/.test(file) && !written.has(file)) rmSync(join(OUT, file));
  await writeIndex(shots);
  const bytes = readdirSync(OUT).reduce((n, f) => n + statSync(join(OUT, f)).size, 0);
  console.log(`${shots.length * VIEWPORTS.length * SCHEMES.length} images in ${OUT}, ${(bytes / 1_000_000).toFixed(1)} MB`);
} finally {
  await browser.close();
  await site.stop();
}
