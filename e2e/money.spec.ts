import { createHash } from "node:crypto";
import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { connectTestPayouts } from "./support/payouts";
import { dropDatabase, freshDatabase, PG_ADMIN, startApp, type AppProcess } from "./support/servers";
import { signIn } from "./support/sign-in";
import { fillSupportAndRefunds, publishOpenProduct } from "./support/seller-profile";

// The money flow end to end in Chromium, test mode, on each engine: a seller connects the test payout account, lists
// a per-seat product in EUR and a coupon for it; a buyer buys two seats with the coupon; the Sales page and the ledger
// show gross, discount, fee and net in EUR; the seller refunds; /validate answers REFUNDED within the license cache's
// TTL (on PostgreSQL, on another instance than the one that refunded); the buyer's refund mail is in the outbox; the
// operator's console shows the refund. SQLite runs against the server Playwright started; PostgreSQL against two
// servers of its own on a fresh database.
test.describe.configure({ timeout: 240_000 });

const OPERATOR = "operator@e2e.example.com";
// What each instance allows itself to serve from its license cache after another instance changed a license.
const CACHE_TTL_MS = 4_000;

interface Engine {
  /** Where the browser works (seller, buyer, operator). */
  url: string;
  /** Where /validate is asked after the refund: another instance on PostgreSQL. */
  validateUrl: string;
}

async function createProfile(page: Page, name: string) {
  await expect(page).toHaveURL(/\/dashboard\/welcome$/);
  await page.getByLabel("Developer or studio name").fill(name);
  await page.getByLabel("About you").fill("Plugins sold by the seat, priced in euros.");
  await fillSupportAndRefunds(page);
  await page.getByRole("button", { name: "Create profile" }).click();
  await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);
}

async function mailbox(page: Page, to: string): Promise<Array<{ subject: string; text: string }>> {
  const r = await page.request.get(`/api/dev/mailbox?to=${encodeURIComponent(to)}`);
  expect(r.status()).toBe(200);
  return ((await r.json()) as { messages: Array<{ subject: string; text: string }> }).messages;
}

async function moneyFlow(browser: Browser, engine: Engine, shot?: (name: string) => Promise<void>) {
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const productName = `Euro Tape ${run}`;
  const buyerEmail = `e2e-money-buyer-${run}@example.com`;
  const contexts = await Promise.all([1, 2, 3].map(() => browser.newContext({ baseURL: engine.url })));
  const [sellerCtx, buyerCtx, operatorCtx] = contexts as [(typeof contexts)[0], (typeof contexts)[0], (typeof contexts)[0]];
  try {
    // The seller: sign up, connect the test payout account.
    const seller = await sellerCtx.newPage();
    await signIn(seller, `e2e-money-seller-${run}@example.com`);
    await createProfile(seller, `Euro Studio ${run}`);
    await connectTestPayouts(seller);

    // A per-seat product priced in EUR, through the product form.
    await seller.goto("/dashboard/products/new");
    await seller.getByLabel("Name", { exact: true }).fill(productName);
    await seller.getByLabel("Tagline").fill("Warm tape saturation, licensed per seat.");
    await seller.getByLabel("Description").fill("A tape saturation plugin for studios, licensed per seat and priced in euros.");
    await seller.getByLabel("Category").selectOption("audio-plugins");
    await seller.getByLabel("Price", { exact: true }).fill("20.00");
    await seller.getByLabel("Currency").selectOption("eur");
    await seller.getByLabel("Machines per license").fill("2");
    await seller.getByRole("radio", { name: /^Per seat/ }).check();
    await seller.getByRole("checkbox", { name: "macOS" }).check();
    await seller.getByLabel("Download URL").fill("https://example.com/downloads/euro-tape.zip");
    await seller.getByLabel("…or Icon URL").fill("/icons/tape-warmth.svg");
    await seller.getByLabel("Plugin ID").fill(`com.e2e.eurotape${run}`);
    await seller.getByRole("button", { name: "Create product" }).click();
    await expect(seller).toHaveURL(/\/dashboard\/products\/[a-z0-9-]+\?notice=product-created$/);
    await publishOpenProduct(seller);
    const productId = new URL(seller.url()).pathname.split("/").pop()!;

    // A 10 % coupon for it.
    const code = `EURO${run}`.toUpperCase().slice(0, 20);
    await seller.goto("/dashboard/coupons");
    await seller.getByLabel("Code", { exact: true }).fill(code);
    await seller.getByLabel("Percent off").fill("10");
    await seller.getByRole("checkbox", { name: new RegExp(productName) }).check();
    await seller.getByRole("button", { name: "Create coupon" }).click();
    await expect(seller).toHaveURL(/\/dashboard\/coupons\?done=created/);

    // The buyer: two seats with the coupon, on the product page; the test-mode Pay button.
    const shop = await buyerCtx.newPage();
    await shop.goto(`/products/${productId}`);
    await expect(shop.getByText("€20.00 EUR").first()).toBeVisible();
    await shop.getByLabel(/e-?mail/i).fill(buyerEmail);
    await shop.getByLabel("Seats").fill("2");
    await shop.getByLabel(/coupon code/i).fill(code);
    await expect(shop.locator("#buy_preview")).toContainText("€36.00 EUR");
    await shop.getByRole("button", { name: /^buy$/i }).click();
    await expect(shop).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]{24}$/);
    const sessionId = /\/checkout\/(cs_[A-Za-z0-9]{24})$/.exec(shop.url())![1]!;
    await shop.getByRole("button", { name: /^pay/i }).click();
    await expect(shop.getByTestId("license-key")).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    const key = (await shop.getByTestId("license-key").textContent())!.trim();
    const charges = shop.getByTestId("order-charges");
    await expect(charges).toContainText("€40.00 EUR");
    await expect(charges).toContainText("€4.00 EUR");
    await expect(charges).toContainText(code);
    await expect(charges).toContainText(/not calculated/i);
    await expect(charges).toContainText("€36.00 EUR");
    // Two seats of two machines each.
    await expect(charges).toContainText("Up to 4 machines");
    await shot?.("money-success");

    // The buyer's app activates and validates.
    const fingerprint = createHash("sha256").update(run).digest("hex");
    const body = { license_key: key, machine_fingerprint: fingerprint, plugin_id: `com.e2e.eurotape${run}` };
    const activated = await shop.request.post("/activate", { data: body });
    expect(await activated.json()).toMatchObject({ activated: true });
    // Ask the validating instance once before the refund, so its cache holds the license as valid.
    const before = await shop.request.post(`${engine.validateUrl}/validate`, { data: body });
    expect(await before.json()).toMatchObject({ valid: true, code: "VALID" });

    // The seller's Sales page and the ledger: gross 40.00, discount 4.00, fee 1.80 (5 % of 36.00), net 34.20, in EUR.
    await seller.goto("/dashboard/sales");
    const totals = seller.getByRole("region", { name: "Sales in EUR" });
    for (const figure of ["€40.00 EUR", "€4.00 EUR", "€1.80 EUR", "€34.20 EUR"]) await expect(totals).toContainText(figure);
    const csv = (await (await seller.request.get("/dashboard/sales/export")).text()).trim().split("\r\n");
    const entries = csv.filter((l) => l.includes(sessionId));
    for (const [kind, amount] of [
      ["sale", "4000"],
      ["discount", "-400"],
      ["platform_fee", "-180"],
    ] as const) {
      expect(
        entries.some((l) => l.includes(`,${kind},`) && l.includes(`,${amount},`) && l.includes(",eur,")),
        `${kind} ${amount} eur in ${entries.join("\n")}`,
      ).toBe(true);
    }

    // The seller refunds the whole order from its page.
    await seller.goto(`/dashboard/orders/${sessionId}`);
    await seller.getByLabel("Reason").fill("Bought for the wrong studio.");
    await seller.getByRole("checkbox", { name: /I understand/ }).check();
    await seller.getByRole("button", { name: "Refund", exact: true }).click();
    await expect(seller.getByText("Bought for the wrong studio.").first()).toBeVisible();
    const refundedAt = Date.now();
    await shot?.("money-order-refunded");

    // Within the cache's TTL, the validating instance says so with the refund code.
    await expect
      .poll(async () => ((await (await shop.request.post(`${engine.validateUrl}/validate`, { data: body })).json()) as { code: string }).code, {
        timeout: CACHE_TTL_MS + 5_000,
        intervals: [250],
      })
      .toBe("REFUNDED");
    expect(Date.now() - refundedAt).toBeLessThanOrEqual(CACHE_TTL_MS + 2_000);
    const after = await (await shop.request.post(`${engine.validateUrl}/validate`, { data: body })).json();
    expect(after).toMatchObject({ valid: false, code: "REFUNDED" });

    // The ledger now has the refund and the fee returned; the buyer's mail says so.
    const csvAfter = (await (await seller.request.get("/dashboard/sales/export")).text()).trim().split("\r\n");
    const afterEntries = csvAfter.filter((l) => l.includes(sessionId));
    expect(afterEntries.some((l) => l.includes(",refund,") && l.includes(",-3600,"))).toBe(true);
    expect(afterEntries.some((l) => l.includes(",fee_refund,") && l.includes(",180,"))).toBe(true);
    await expect.poll(async () => (await mailbox(shop, buyerEmail)).map((m) => m.subject).join("\n")).toMatch(/Refund of €36\.00 EUR/);

    // The buyer cannot reach the console; the operator sees the refund there.
    expect((await shop.goto("/admin"))?.status()).toBe(404);
    const operator = await operatorCtx.newPage();
    await signIn(operator, OPERATOR);
    await operator.goto(`/admin/orders/${sessionId}`);
    await expect(operator.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(operator.locator("main")).toContainText("Bought for the wrong studio.");
    await expect(operator.locator("main")).toContainText("€36.00 EUR");
    await shot?.("money-admin-order");
  } finally {
    await Promise.all(contexts.map((c) => c.close()));
  }
}

test("money on SQLite: payout account, EUR product, coupon, two seats, ledger, refund, REFUNDED, mail, console", async ({
  browser,
  baseURL,
  shot,
}) => {
  await moneyFlow(browser, { url: baseURL!, validateUrl: baseURL! }, shot);
});

test.describe("money on PostgreSQL, two instances", () => {
  const dbName = `ilm_money_${Date.now().toString(36)}`;
  let a: AppProcess | undefined;
  let b: AppProcess | undefined;

  test.beforeAll(async () => {
    const env = {
      DATABASE_URL: await freshDatabase(PG_ADMIN, dbName),
      BASE_URL: "http://127.0.0.1:3221",
      PAYMENTS: "test",
      ADMIN_EMAILS: OPERATOR,
      LICENSE_CACHE_TTL_MS: String(CACHE_TTL_MS),
      RATE_LIMIT_VALIDATE_PER_MIN: "100000",
      RATE_LIMIT_ACTIVATION_PER_MIN: "100000",
      RATE_LIMIT_CHECKOUT_PER_MIN: "100000",
      RATE_LIMIT_PER_KEY_PER_MIN: "100000",
    };
    [a, b] = await Promise.all([startApp(3221, env), startApp(3222, env)]);
  });

  test.afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await dropDatabase(PG_ADMIN, dbName);
  });

  test("the same flow; the refund made on one instance is answered by the other within the cache's TTL", async ({ browser }) => {
    await moneyFlow(browser, { url: a!.url, validateUrl: b!.url });
  });
});
