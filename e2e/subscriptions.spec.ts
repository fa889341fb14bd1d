import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIRequestContext } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { expect, test } from "./fixtures";
import { newSeller } from "./support/seller-profile";
import { signIn, signInToMyLicenses } from "./support/sign-in";

// A subscription's life in Chromium, test mode: a buyer subscribes monthly with a coupon on the product page, the key
// activates, and the operator moves the subscription's clock: renewed (VALID, a later expiry), declined (VALID through
// the grace days, then SUBSCRIPTION_PAST_DUE), the card fixed (VALID), canceled (VALID to the period's end, then
// EXPIRED). The buyer's mailbox has an e-mail for each step; the seller's orders add up to what was charged.

const OPERATOR = "operator-subscriptions@e2e.example.com"; // ADMIN_EMAILS in playwright.config.ts

/** The seller's webhook receiver: records each delivery's id and type, and whether its Standard Webhooks signature verifies. */
async function startReceiver() {
  const received: Array<{ id: string; type: string; verified: boolean }> = [];
  const state = { secret: "" };
  const headersOf = (h: IncomingHttpHeaders): Record<string, string> =>
    Object.fromEntries(Object.entries(h).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : [])));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let type = "";
      let verified = false;
      try {
        type = (new Webhook(state.secret).verify(body, headersOf(req.headers)) as { type: string }).type;
        verified = true;
      } catch {
        verified = false;
      }
      received.push({ id: String(req.headers["webhook-id"] ?? ""), type, verified });
      res.writeHead(verified ? 200 : 400).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    state,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
const MONTHLY = 900;
const DISCOUNTED = 720; // 20 % off for the first two months

test("a buyer subscribes monthly with a coupon; renewal, a declined payment, recovery and cancellation reach the app", async ({
  page,
  browser,
  baseURL,
  shot,
}) => {
  test.setTimeout(180_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;

  // The seller: a profile, the test payout account, a subscription product and a coupon for its first two months.
  await newSeller(page, `e2e-subs-${run}@example.com`, { name: `Subscription Studio ${run}`, about: "Developer tools sold by the month." });
  const created = await page.request.post("/api/v1/products", {
    data: {
      publish: true,
      name: `Monthly Linter ${run}`,
      tagline: "A linter billed by the month.",
      description: "A subscription product created by the subscriptions end-to-end test, with a long enough description.",
      plugin_id: `com.e2e.subs${run}`,
      price_cents: MONTHLY,
      pricing_model: "subscription",
      monthly_price_cents: MONTHLY,
      yearly_price_cents: 9000,
      grace_days: 3,
      category: "dev-tools",
      max_machines: 2,
      seat_model: "per-machine",
      platforms: ["linux"],
      download_url: "https://example.com/download.zip",
      icon_url: "/icons/tape-warmth.svg",
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const product = ((await created.json()) as { product: { id: string; plugin_id: string } }).product;
  // The seller's webhook receiver, on this machine.
  const receiver = await startReceiver();
  const hook = await page.request.post("/api/v1/webhooks", { data: { url: receiver.url, description: "Subscriptions receiver" } });
  expect(hook.status(), await hook.text()).toBe(201);
  receiver.state.secret = ((await hook.json()) as { endpoint: { secret: string } }).endpoint.secret;
  const code = `TWOMONTHS${run}`.toUpperCase().slice(0, 32);
  const coupon = await page.request.post("/api/v1/coupons", {
    data: { code, kind: "percent", percent_off: 20, duration: "repeating", duration_in_months: 2, product_ids: [product.id] },
  });
  expect(coupon.status(), await coupon.text()).toBe(201);

  // The buyer, in a browser of their own: the product page states the terms; monthly with the coupon.
  const buyerEmail = `e2e-subs-buyer-${run}@example.com`;
  const buyer = await browser.newContext({ baseURL });
  const shop = await buyer.newPage();
  await shop.goto(`/products/${product.id}`);
  await expect(shop.locator("#subscription-terms")).toContainText("$9.00 USD a month or $90.00 USD a year, renewed automatically");
  await expect(shop.locator("#subscription-terms")).toContainText("3 more days");
  await shop.getByRole("radio", { name: /Monthly/ }).check();
  await shop.getByLabel(/e-?mail/i).fill(buyerEmail);
  await shop.getByLabel(/coupon code/i).fill(code.toLowerCase());
  // The preview follows the Billing choice.
  await expect(shop.locator("#buy_preview")).toContainText("$7.20 USD a month");
  await shop.getByRole("radio", { name: /Yearly/ }).check();
  await expect(shop.locator("#buy_preview")).toContainText("$72.00 USD a year");
  await shop.getByRole("radio", { name: /Monthly/ }).check();
  await expect(shop.locator("#buy_preview")).toContainText("$7.20 USD a month");
  await shot("product-subscription");
  await shop.getByRole("button", { name: /^buy$/i }).click();
  await expect(shop).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]{24}$/);
  await expect(shop.getByTestId("checkout-plan")).toContainText("Subscription: $9.00 USD a month");
  await shop.getByRole("button", { name: /^pay/i }).click();
  await expect(shop.getByTestId("license-key")).toHaveText(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
  const key = (await shop.getByTestId("license-key").textContent())!.trim();
  await buyer.close();

  // The app activates and validates.
  const app = page.request;
  const machine = { license_key: key, machine_fingerprint: "ab".repeat(32), plugin_id: product.plugin_id };
  const activated = await app.post("/activate", { data: machine });
  expect((await activated.json()).code).toBe("ACTIVATED");
  const validate = async () => (await (await app.post("/validate", { data: machine })).json()) as { code: string; expires_at: string };
  const first = await validate();
  expect(first.code).toBe("VALID");

  // The seller's API names the subscription.
  const listed = (await (await page.request.get("/api/v1/subscriptions?status=active")).json()) as {
    subscriptions: Array<{ id: string; buyer_email: string; interval: string; next_charge: { amount_cents: number } }>;
  };
  const sub = listed.subscriptions.find((s) => s.buyer_email === buyerEmail)!;
  expect(sub).toMatchObject({ interval: "month", next_charge: { amount_cents: DISCOUNTED } });

  // The operator moves the clock, in a browser of their own.
  const ops = await browser.newContext({ baseURL });
  const opsPage = await ops.newPage();
  await signIn(opsPage, OPERATOR);
  const advance = async (api: APIRequestContext, days: number, card?: "fails") => {
    const r = await api.post(`/api/admin/subscriptions/${sub.id}/advance`, { data: { days, ...(card ? { card } : {}) } });
    expect(r.status(), await r.text()).toBe(200);
    return ((await r.json()) as { subscription: { status: string } }).subscription;
  };

  expect((await advance(opsPage.request, 31)).status).toBe("active");
  const renewed = await validate();
  expect(renewed.code).toBe("VALID");
  expect(Date.parse(renewed.expires_at)).toBeGreaterThan(Date.parse(first.expires_at) - 31 * 86_400_000);

  expect((await advance(opsPage.request, 31, "fails")).status).toBe("past_due");
  expect((await validate()).code).toBe("VALID");
  await advance(opsPage.request, 4);
  expect((await validate()).code).toBe("SUBSCRIPTION_PAST_DUE");

  const fixed = await opsPage.request.post(`/api/admin/subscriptions/${sub.id}/test-card`, { data: { card: "succeeds" } });
  expect(((await fixed.json()) as { subscription: { status: string } }).subscription.status).toBe("active");
  expect((await validate()).code).toBe("VALID");

  // The buyer cancels on My licenses (signed in by the e-mailed link), in their own browser.
  const own = await browser.newContext({ baseURL });
  const mine = await own.newPage();
  await signInToMyLicenses(mine, buyerEmail);
  const panel = mine.getByTestId("subscription");
  await expect(panel).toContainText("Subscription: Active");
  await expect(panel.getByTestId("subscription-next")).toContainText(`for $${(MONTHLY / 100).toFixed(2)} USD`);
  await shot("my-licenses-subscription");
  await panel.getByRole("button", { name: "Cancel subscription" }).click();
  await expect(mine.locator("#licenses-notice")).toContainText("Subscription canceled");
  await expect(mine.getByTestId("subscription")).toContainText("Subscription: Canceled");
  await own.close();
  expect((await validate()).code).toBe("VALID");
  // The seller's cancel of it now says so.
  const again = await page.request.post(`/api/v1/subscriptions/${sub.id}/cancel`);
  expect(again.status()).toBe(409);
  expect(((await again.json()) as { code: string }).code).toBe("subscription_already_canceled");
  expect((await advance(opsPage.request, 31)).status).toBe("ended");
  expect((await validate()).code).toBe("EXPIRED");
  await ops.close();

  // The buyer heard of each step, once.
  await expect
    .poll(async () => {
      const { messages } = (await (await page.request.get(`/api/dev/mailbox?to=${encodeURIComponent(buyerEmail)}`)).json()) as {
        messages: Array<{ kind: string }>;
      };
      return messages.map((m) => m.kind).sort();
    })
    .toEqual(
      [
        "license",
        "sign-in",
        "subscription-renewed",
        "subscription-payment_failed",
        "subscription-recovered",
        "subscription-canceled",
        "subscription-expired",
      ].sort(),
    );

  // The seller's receiver got each subscription event once, each verified with standardwebhooks.
  const steps = [
    "subscription.created",
    "subscription.renewed",
    "subscription.past_due",
    "subscription.recovered",
    "subscription.canceled",
    "subscription.expired",
  ];
  await expect
    .poll(
      () =>
        receiver.received
          .filter((r) => r.type.startsWith("subscription."))
          .map((r) => r.type)
          .sort(),
      { timeout: 30_000 },
    )
    .toEqual([...steps].sort());
  const subEvents = receiver.received.filter((r) => r.type.startsWith("subscription."));
  expect(subEvents.every((r) => r.verified)).toBe(true);
  expect(new Set(subEvents.map((r) => r.id)).size).toBe(steps.length);
  await receiver.close();

  // The Sales page, from the ledger: 3 × $9.00 list, $3.60 off by the coupon, 5 % fees ($0.36 + $0.36 + $0.45): $22.23 net.
  await page.goto("/dashboard/sales");
  const usd = page.getByRole("region", { name: "Sales in USD" });
  await expect(usd).toContainText("3 orders");
  await expect(usd).toContainText("$27.00 USD");
  await expect(usd).toContainText("$1.17 USD");
  await expect(usd).toContainText("$22.23 USD");

  // The seller's orders: three charges, two discounted, to the cent.
  const orders = (await (await page.request.get(`/api/v1/orders?q=${encodeURIComponent(buyerEmail)}`)).json()) as {
    orders: Array<{ amount_cents: number; status: string }>;
  };
  expect(
    orders.orders
      .filter((o) => o.status === "paid")
      .map((o) => o.amount_cents)
      .sort(),
  ).toEqual([DISCOUNTED, DISCOUNTED, MONTHLY].sort());
});

test("a buyer changes seats and then to yearly on My licenses, each at the prorated amount they confirmed", async ({
  page,
  browser,
  baseURL,
  shot,
}) => {
  test.setTimeout(120_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  await newSeller(page, `e2e-plans-${run}@example.com`, { name: `Plans Studio ${run}`, about: "Team tools sold by the seat." });
  const created = await page.request.post("/api/v1/products", {
    data: {
      publish: true,
      name: `Team Linter ${run}`,
      tagline: "A linter billed by the seat.",
      description: "A per-seat subscription product created by the plan-change end-to-end test, described at length.",
      plugin_id: `com.e2e.plans${run}`,
      price_cents: 1000,
      pricing_model: "subscription",
      monthly_price_cents: 1000,
      yearly_price_cents: 10000,
      category: "dev-tools",
      max_machines: 1,
      seat_model: "per-seat",
      platforms: ["linux"],
      download_url: "https://example.com/download.zip",
      icon_url: "/icons/tape-warmth.svg",
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const product = ((await created.json()) as { product: { id: string } }).product;

  // Two seats, monthly, bought on the product page.
  const buyerEmail = `e2e-plans-buyer-${run}@example.com`;
  const own = await browser.newContext({ baseURL });
  const mine = await own.newPage();
  await mine.goto(`/products/${product.id}`);
  await mine.getByRole("radio", { name: /Monthly/ }).check();
  await mine.getByLabel("Seats").fill("2");
  await mine.getByLabel(/e-?mail/i).fill(buyerEmail);
  await mine.getByRole("button", { name: /^buy$/i }).click();
  await expect(mine).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]{24}$/);
  await mine.getByRole("button", { name: /^pay/i }).click();
  await expect(mine.getByTestId("license-key")).toBeVisible();

  // Signed in on My licenses by the e-mailed link.
  await signInToMyLicenses(mine, buyerEmail);

  // Three seats: previewed with the amount for the rest of the month, confirmed at it.
  const panel = mine.getByTestId("subscription");
  await expect(panel).toContainText("for 2 seats");
  await panel.getByLabel("Seats").fill("3");
  await panel.getByRole("button", { name: "Preview change" }).click();
  const confirm = mine.getByTestId("plan-confirm");
  await expect(confirm).toContainText("Change to 3 seats, monthly at $30.00 USD a month");
  // Bought moments ago: nearly the whole month of one more seat.
  await expect(confirm).toContainText(/\$(9\.\d\d|10\.00) USD charged now/);
  await shot("my-licenses-plan-change");
  await confirm.getByRole("button", { name: "Confirm change" }).click();
  await expect(mine.locator("#licenses-notice")).toContainText("Plan changed");
  await expect(mine.getByTestId("subscription")).toContainText("for 3 seats");

  // Yearly: a year starts now, the unused month counted against it.
  await mine.getByTestId("subscription").getByLabel("Billing").selectOption("year");
  await mine.getByTestId("subscription").getByRole("button", { name: "Preview change" }).click();
  await expect(mine.getByTestId("plan-confirm")).toContainText("yearly at $300.00 USD a year");
  await expect(mine.getByTestId("plan-confirm")).toContainText("counted");
  await mine.getByTestId("plan-confirm").getByRole("button", { name: "Confirm change" }).click();
  await expect(mine.locator("#licenses-notice")).toContainText("Plan changed");
  await expect(mine.getByTestId("subscription")).toContainText("a year for 3 seats");
  await expect
    .poll(async () => {
      const { messages } = (await (await mine.request.get(`/api/dev/mailbox?to=${encodeURIComponent(buyerEmail)}`)).json()) as {
        messages: Array<{ kind: string }>;
      };
      return messages.filter((m) => m.kind === "subscription-plan_changed").length;
    })
    .toBe(2);
  // Three charges so far, each with a PDF invoice.
  const invoices = mine.getByTestId("subscription-invoices");
  await invoices.locator("summary").click();
  await expect(invoices.getByRole("listitem")).toHaveCount(3);
  const [download] = await Promise.all([mine.waitForEvent("download"), invoices.getByRole("link", { name: /PDF/ }).first().click()]);
  expect(download.suggestedFilename()).toMatch(/^invoice-.+\.pdf$/);
  const chunks: Buffer[] = [];
  for await (const c of await download.createReadStream()) chunks.push(c as Buffer);
  expect(Buffer.concat(chunks).subarray(0, 5).toString()).toBe("%PDF-");
  await own.close();

  // The seller sees the subscriber on the dashboard, and cancels it at the period's end there.
  await page.goto("/dashboard/subscriptions");
  const row = page.getByTestId("subscription-row").filter({ hasText: buyerEmail });
  await expect(row).toContainText("$300.00 USD a year · 3 seats");
  await expect(row).toContainText("Active");
  await row.getByRole("button", { name: /^Cancel/ }).click();
  await expect(page.locator("#subscriptions-notice")).toContainText("Canceled");
  await expect(page.getByTestId("subscription-row").filter({ hasText: buyerEmail })).toContainText("Canceled (runs to period end)");
});
