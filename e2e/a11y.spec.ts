import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { developers, products } from "../prisma/seed/catalogue";
import { expect, test } from "./fixtures";
import { signInLink } from "./support/sign-in";

// Every page passes axe (the WCAG 2.0, 2.1 and 2.2 A and AA rules and axe's best practices, none disabled) in the
// light and the dark colour scheme, at a phone's width (390 px) and a laptop's (1280 px). axe's default run leaves out
// WCAG 2.2 (target-size) and the best practices (heading-order, region, landmarks), so the tags name them. Pages that
// need a signed-in buyer, seller or operator are reached the way people reach them: the e-mailed link from the
// development mailbox, then its confirm button. PAGES below is the one list of pages: a new page gets a line there.

const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];
const SCHEMES = ["light", "dark"] as const;
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
] as const;

// A seeded seller whose products no other spec buys or changes (tape-warmth's developer is everyone's).
const SELLER_ID = "brightmoor-instruments";
const SELLER = developers.find((d) => d.id === SELLER_ID)?.email ?? "";
const SELLER_PRODUCT = "sample-shelf"; // Brightmoor's: a trial, a screenshot, and a release this spec publishes
const OTHER_PRODUCT = "chord-atlas"; // Brightmoor's too: no trial
const OPERATOR = "operator-a11y@e2e.example.com"; // ADMIN_EMAILS in playwright.config.ts

/**
 * Every page, by who sees it. `{name}` in a path is something its test makes on the way (a checkout, an order, a
 * license…); the test fills it in. Pages reached only in the middle of a flow (check your e-mail, the sign-in
 * confirmation, the welcome step) are checked where the flow passes them.
 */
const PAGES = {
  /** Signed out. */
  storefront: [
    { name: "home", path: "/" },
    { name: "search results", path: "/?q=tape" },
    { name: "search without results", path: "/?q=nothing-here-at-all" },
    { name: "category", path: "/?category=audio-plugins" },
    { name: "developer page", path: `/developers/${SELLER_ID}` },
    { name: "product with a trial and screenshots", path: `/products/${SELLER_PRODUCT}` },
    { name: "product without a trial", path: `/products/${OTHER_PRODUCT}` },
    { name: "for AI agents", path: "/agents" },
    { name: "terms", path: "/terms" },
    { name: "refunds", path: "/refunds" },
    { name: "privacy", path: "/privacy" },
    { name: "contact", path: "/contact" },
    { name: "My licenses, signed out", path: "/licenses" },
    { name: "seller sign-in", path: "/dashboard/sign-in" },
    { name: "device page, the code form", path: "/device" },
    { name: "unknown product", path: "/products/no-such-product", status: 404 },
    { name: "unknown page", path: "/no-such-page", status: 404 },
  ],
  /** A buyer who has bought once and signed in to My licenses. */
  buyer: [
    { name: "checkout (test mode)", path: "/checkout/{checkout}" },
    { name: "checkout success", path: "/checkout/{paid}/success" },
    { name: "checkout cancelled", path: "/checkout/{cancelled}/cancelled" },
    { name: "signed receipt", path: "/receipt?key={key}" },
    { name: "My licenses, signed in", path: "/licenses" },
    { name: "device page, an app's request", path: "/device?user_code={userCode}" },
  ],
  /** The seeded seller, after a sale, a review, a release and a checkout link of theirs. */
  seller: [
    { name: "dashboard overview", path: "/dashboard" },
    { name: "products", path: "/dashboard/products" },
    { name: "new product", path: "/dashboard/products/new" },
    { name: "product", path: `/dashboard/products/${SELLER_PRODUCT}` },
    { name: "releases", path: `/dashboard/products/${SELLER_PRODUCT}/releases` },
    { name: "orders", path: "/dashboard/orders" },
    { name: "order", path: "/dashboard/orders/{order}" },
    { name: "sales", path: "/dashboard/sales" },
    { name: "coupons", path: "/dashboard/coupons" },
    { name: "checkout links", path: "/dashboard/links" },
    // The live preview's frame is a page of its own, checked on the next line: axe's landmark-unique rule compares the
    // landmarks of every frame together, so the frame's <main> and the page's would count as two of one name.
    { name: "buy button", path: "/dashboard/buy-button", exclude: ["iframe"] },
    { name: "buy button preview (the frame above)", path: `/embed/preview?product=${SELLER_PRODUCT}` },
    { name: "API tokens", path: "/dashboard/api-tokens" },
    { name: "webhooks", path: "/dashboard/webhooks" },
    { name: "payouts", path: "/dashboard/payouts" },
    { name: "profile", path: "/dashboard/profile" },
    { name: "subscriptions", path: "/dashboard/subscriptions" },
    { name: "upgrades", path: "/dashboard/upgrades" },
    { name: "reviews", path: "/dashboard/reviews" },
    { name: "licenses", path: "/dashboard/licenses" },
    { name: "license", path: "/dashboard/licenses/{license}" },
    { name: "store page with a release and a review", path: `/products/${SELLER_PRODUCT}` },
    { name: "checkout link page", path: `/developers/${SELLER_ID}/buy/{link}` },
  ],
  /** The operator (ADMIN_EMAILS), after a sale. */
  operator: [
    { name: "console overview", path: "/admin" },
    { name: "sellers", path: "/admin/sellers" },
    { name: "products", path: "/admin/products" },
    { name: "orders", path: "/admin/orders" },
    { name: "order", path: "/admin/orders/{order}" },
    { name: "licenses", path: "/admin/licenses" },
    { name: "license", path: "/admin/licenses/{license}" },
    { name: "reviews", path: "/admin/reviews" },
    { name: "agents", path: "/admin/agents" },
    { name: "events", path: "/admin/events" },
    { name: "audit log", path: "/admin/audit" },
    // A message's own page shows the e-mail in a sandboxed frame; e-mails are not pages of the site, so only the list.
    { name: "development mailbox", path: "/dev/mailbox" },
  ],
} satisfies Record<string, Scan[]>;

interface Scan {
  /** What the page is, for the failure message. */
  name: string;
  /** The path to open; the page the browser is on when omitted. */
  path?: string;
  /** The status the page answers with (404 pages are pages too). */
  status?: number;
  /** Parts axe leaves out, each with its reason where the page is listed. */
  exclude?: string[];
}

/** Checks every page of a list, with the `{name}` parts of their paths filled in from what the test made. */
async function expectAllAccessible(page: Page, scans: Scan[], made: Record<string, string> = {}): Promise<void> {
  for (const scan of scans) {
    const path = scan.path?.replace(/\{(\w+)\}/g, (_, key: string) => {
      expect(made[key], `${scan.name}: the test made no ${key}`).toBeTruthy();
      return encodeURIComponent(made[key]!);
    });
    await expectAccessible(page, { ...scan, path });
  }
}

/**
 * Opens the page once per colour scheme (a scheme switch on an open page would let colour transitions run while axe
 * measures contrast) and runs axe at both widths. Violations are soft failures, so one run lists every page's.
 */
async function expectAccessible(page: Page, { name, path, status = 200, exclude = [] }: Scan): Promise<void> {
  const url = path ?? new URL(page.url()).pathname + new URL(page.url()).search;
  for (const colorScheme of SCHEMES) {
    await page.emulateMedia({ colorScheme });
    await page.setViewportSize(VIEWPORTS[0]);
    const response = await page.goto(url);
    expect(response?.status(), `${name} (${url})`).toBe(status);
    await page.waitForLoadState("networkidle");
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      const { violations } = await exclude.reduce((axe, part) => axe.exclude(part), new AxeBuilder({ page }).withTags(WCAG_TAGS)).analyze();
      const report = violations.map(
        (v) =>
          `${v.id} (${v.impact}): ${v.help}\n` +
          v.nodes
            .slice(0, 5)
            .map((n) => `    ${n.target.join(" ")}\n      ${(n.failureSummary ?? "").replace(/\n/g, "\n      ")}`)
            .join("\n"),
      );
      expect.soft(report, `${name} (${url}), ${colorScheme}, ${viewport.width} px:\n${report.join("\n")}`).toEqual([]);
    }
  }
  await page.emulateMedia({ colorScheme: null });
}

/** Asks for a sign-in link on the page the browser is on, checks the pages on the way, and signs in. */
async function signInChecking(page: Page, email: string, form: { button: RegExp; purpose: string }): Promise<void> {
  await page.getByLabel(/e-?mail address/i).fill(email);
  await page.getByRole("button", { name: form.button }).click();
  await expect(page).toHaveURL(/\/auth\/check-email/);
  await expectAccessible(page, { name: `check your e-mail (${form.purpose})` });
  const link = await signInLink(page, email);
  // Opening the link only asks (a mail scanner's GET spends nothing), so the confirm page can be checked like any page.
  await expectAccessible(page, { name: `sign-in confirm (${form.purpose})`, path: link });
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await expect(page).not.toHaveURL(/\/auth\//);
}

/** Signs an existing seller or the operator in without checking the pages on the way (other tests check them). */
async function signInAs(page: Page, email: string, landing: "/dashboard" | "/admin"): Promise<void> {
  await page.goto(`/dashboard/sign-in?next=${landing}`);
  await page.getByLabel("E-mail address").fill(email);
  await page.getByRole("button", { name: /e-mail me a sign-in link/i }).click();
  await expect(page).toHaveURL(/\/auth\/check-email/);
  await page.goto(await signInLink(page, email));
  await page.getByRole("button", { name: /^sign in as /i }).click();
  await expect(page).toHaveURL(new RegExp(`${landing}$`));
}

/** Pays a test-mode checkout for a product through its Buy form; leaves the browser on the success page. */
async function buy(page: Page, productId: string, email: string): Promise<string> {
  await page.goto(`/products/${productId}`);
  await page.locator("#buy").getByRole("textbox", { name: "E-mail address" }).fill(email);
  await page.locator("#buy").getByRole("button", { name: /^buy$/i }).click();
  await expect(page).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]+$/);
  await page.getByRole("button", { name: /^pay/i }).click();
  await expect(page.getByTestId("license-key")).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  return (await page.getByTestId("license-key").textContent())!.trim();
}

/** The last part of the path of the first link on a page whose path matches (an order's or a license's id). */
async function firstLinkId(page: Page, path: string, pattern: RegExp): Promise<string> {
  await page.goto(path);
  const hrefs = await page.locator("a[href]").evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).pathname));
  const found = hrefs.find((h) => pattern.test(h));
  expect(found, `a link matching ${pattern} on ${path}`).toBeTruthy();
  return decodeURIComponent(found!.split("/").pop()!);
}

/** A short random part for the addresses and names a test makes, so runs never meet. */
function runId(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

// Four axe runs per page; on a busy two-core machine a page takes up to a minute. Each test signs its own people in
// and makes its own sales, so they run side by side (playwright.config.ts).
test.describe.configure({ mode: "parallel", timeout: 900_000 });

test("storefront pages, signed out", async ({ page }) => {
  await expectAllAccessible(page, PAGES.storefront);
});

test("a buyer's pages: checkout, success, cancelled checkout, receipt, signing in, My licenses, an app's request", async ({ page }) => {
  const email = `e2e-a11y-buyer-${runId()}@example.com`;
  const key = await buy(page, SELLER_PRODUCT, email);
  const paid = new URL(page.url()).pathname.split("/")[2]!;
  const open = async (productId: string) => {
    const created = await page.request.post("/api/checkout/create", { data: { product_id: productId, buyer_email: email } });
    expect(created.status(), await created.text()).toBe(200);
    return ((await created.json()) as { session_id: string }).session_id;
  };
  // A checkout not paid yet, and one the buyer walks away from.
  const checkout = await open(SELLER_PRODUCT);
  const cancelled = await open(OTHER_PRODUCT);
  // An app on the buyer's machine asks for a license of the product they hold (RFC 8628's device grant).
  const plugin = products.find((p) => p.id === SELLER_PRODUCT)?.pluginId ?? "";
  const device = await page.request.post("/api/v1/device/authorize", {
    data: { plugin_id: plugin, machine_fingerprint: "a11c".repeat(16), machine_name: "Studio Mac" },
  });
  expect(device.ok(), await device.text()).toBe(true);
  const { user_code: userCode } = (await device.json()) as { user_code: string };

  await page.goto("/licenses");
  await signInChecking(page, email, { button: /^send sign-in link$/i, purpose: "buyer" });
  await expect(page).toHaveURL(/\/licenses$/);
  await expectAllAccessible(page, PAGES.buyer, { checkout, paid, cancelled, key, userCode });
});

test("a new seller's welcome step", async ({ page }) => {
  await page.goto("/dashboard/sign-in");
  await signInChecking(page, `e2e-a11y-seller-${runId()}@example.com`, { button: /e-mail me a sign-in link/i, purpose: "new seller" });
  await expect(page).toHaveURL(/\/dashboard\/welcome/);
  await expectAccessible(page, { name: "welcome" });
});

test("the seller's pages, with a sale, a review, a release and a checkout link", async ({ page }) => {
  const run = runId();
  // A sale of the seller's first, so the order and license lists have rows to open.
  const key = await buy(page, SELLER_PRODUCT, `e2e-a11y-customer-${run}@example.com`);
  // Their review, so the product page shows the review block and the seller has one to answer.
  const review = await page.request.post(`/api/marketplace/product/${SELLER_PRODUCT}/reviews`, {
    data: { license_key: key, rating: 4, title: "Finds samples fast", body: "Tagging a library of 40,000 one-shots took an afternoon." },
  });
  expect(review.ok(), await review.text()).toBe(true);
  await signInAs(page, SELLER, "/dashboard");

  // A published release, so the product page shows a version and a changelog and the releases page lists one.
  const version = `1.${Date.now() % 100000}.0`;
  const releases = `/api/v1/products/${SELLER_PRODUCT}/releases`;
  const release = await page.request.post(releases, { data: { version, notes: "Faster library scans.\n\n- Fixes a crash on empty folders." } });
  expect(release.status(), await release.text()).toBe(201);
  const zip = Buffer.alloc(2_000, 0x41);
  zip.set([0x50, 0x4b, 0x03, 0x04], 0);
  const artifact = await page.request.put(
    `${releases}/${version}/artifacts?${new URLSearchParams({ platform: "macos-universal", filename: `SampleShelf-${version}.zip` })}`,
    { data: zip, headers: { "content-type": "application/octet-stream" } },
  );
  expect(artifact.status(), await artifact.text()).toBe(201);
  const published = await page.request.post(`${releases}/${version}/publish`);
  expect(published.status(), await published.text()).toBe(200);
  // A checkout link, so the Links page lists one and its page for buyers can be checked.
  const link = `a11y-${run}`;
  const created = await page.request.post("/api/v1/checkout-links", { data: { product_id: SELLER_PRODUCT, name: `Newsletter ${run}`, slug: link } });
  expect(created.status(), await created.text()).toBe(201);

  const order = await firstLinkId(page, "/dashboard/orders", /^\/dashboard\/orders\/[^/]+$/);
  const license = await firstLinkId(page, "/dashboard/licenses", /^\/dashboard\/licenses\/[^/]+$/);
  await expectAllAccessible(page, PAGES.seller, { order, license, link });
});

test("the operator's console and the development mailbox", async ({ page }) => {
  await signInAs(page, OPERATOR, "/admin");

  // Someone bought something, so the order and license lists have rows to open.
  await buy(page, OTHER_PRODUCT, `e2e-a11y-operator-view-${runId()}@example.com`);
  const order = await firstLinkId(page, "/admin/orders", /^\/admin\/orders\/[^/]+$/);
  const license = await firstLinkId(page, "/admin/licenses", /^\/admin\/licenses\/[^/]+$/);
  await expectAllAccessible(page, PAGES.operator, { order, license });

  // The home page with its Featured row too: the operator features a product, then takes it back (other specs expect
  // the row as they leave it). Top rated has the review the seller test wrote when it ran first.
  const featured = products.find((p) => p.id === OTHER_PRODUCT)?.name ?? "";
  await page.goto(`/admin/products?q=${OTHER_PRODUCT}`);
  await page.waitForLoadState("networkidle");
  await page.getByRole("button", { name: `Feature ${featured}`, exact: true }).click();
  await expect(page.locator("#admin-notice")).toContainText("Listing featured", { timeout: 15_000 });
  await expectAccessible(page, { name: "home with a Featured row", path: "/" });
  await page.goto(`/admin/products?q=${OTHER_PRODUCT}`);
  await page.waitForLoadState("networkidle");
  await page.getByRole("button", { name: `Unfeature ${featured}`, exact: true }).click();
  await expect(page.locator("#admin-notice")).toContainText("Listing no longer featured", { timeout: 15_000 });
});
