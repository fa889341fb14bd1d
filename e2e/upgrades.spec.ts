import { createHash } from "node:crypto";
import { expect, test } from "./fixtures";
import { newSeller } from "./support/seller-profile";
import { signInToMyLicenses } from "./support/sign-in";

// Upgrades in Chromium, test mode: the seller offers Standard → Pro for the difference on the Upgrades page; a buyer of
// Standard sees "Upgrade to Pro — $50.00" on My licenses, confirms the amount, pays at the same checkout as any sale and
// gets the Pro key, while the Standard key now answers UPGRADED; Pro's page offers the upgrade by key and words a wrong one.

test("a buyer upgrades Standard to Pro for the difference from My licenses; the Standard key answers UPGRADED", async ({
  page,
  browser,
  baseURL,
  shot,
}) => {
  test.setTimeout(120_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  await newSeller(page, `e2e-upgrades-${run}@example.com`, { name: `Upgrade Studio ${run}`, about: "Tape machines in two editions." });
  const product = async (name: string, plugin: string, price: number) => {
    const r = await page.request.post("/api/v1/products", {
      data: {
        publish: true,
        name,
        tagline: "Tape warmth in two editions.",
        description: "A product created by the upgrades end-to-end test, with a long enough description.",
        plugin_id: plugin,
        price_cents: price,
        category: "audio-plugins",
        max_machines: 2,
        seat_model: "per-machine",
        platforms: ["macos"],
        download_url: "https://example.com/download.zip",
        icon_url: "/icons/tape-warmth.svg",
      },
    });
    expect(r.status(), await r.text()).toBe(201);
    return ((await r.json()) as { product: { id: string } }).product.id;
  };
  const standard = await product(`Tape Standard ${run}`, `com.e2e.std${run}`, 2900);
  const pro = await product(`Tape Pro ${run}`, `com.e2e.pro${run}`, 7900);

  // The Upgrades page: Standard → Pro, pay the difference, retire the old license.
  await page.goto("/dashboard/upgrades");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Upgrades");
  await page.getByLabel("Upgrade from").selectOption(standard);
  await page.getByLabel("Upgrade to").selectOption(pro);
  await page.getByRole("button", { name: "Offer the upgrade" }).click();
  await expect(page).toHaveURL(/\/dashboard\/upgrades\?done=created/);
  await expect(page.locator("#upgrades-notice")).toContainText("Upgrade offered");
  await shot("dashboard-upgrades");

  // A buyer buys Standard on its page and activates it.
  const buyerEmail = `e2e-upgrade-buyer-${run}@example.com`;
  const buyer = await browser.newContext({ baseURL });
  const shop = await buyer.newPage();
  await shop.goto(`/products/${standard}`);
  await shop.getByLabel(/e-?mail/i).fill(buyerEmail);
  await shop.getByRole("button", { name: /^buy$/i }).click();
  await shop.getByRole("button", { name: /^pay/i }).click();
  const key = (await shop.getByTestId("license-key").textContent())!.trim();
  const machine = createHash("sha256").update(`upgrades-e2e|${run}`).digest("hex");
  const body = { license_key: key, machine_fingerprint: machine, plugin_id: `com.e2e.std${run}` };
  expect(await (await shop.request.post("/activate", { data: body })).json()).toMatchObject({ activated: true });

  // Pro's page offers the upgrade by key; a key that is not a Standard license's is worded, not charged.
  await shop.goto(`/products/${pro}`);
  const paths = shop.getByTestId("upgrade-paths");
  await expect(paths).toContainText(`Upgrade from Tape Standard ${run}`);
  await paths.getByLabel(/license key/i).fill("ZZZZ-ZZZZ-ZZZZ-ZZZZ");
  await paths.getByRole("button", { name: "See the price and upgrade" }).click();
  await expect(shop.locator("#upgrade_error")).toContainText("No license of the product you upgrade from has this key.");

  // My licenses: the Standard license offers Pro for the difference, $79.00 − $29.00; the confirmation repeats it.
  await signInToMyLicenses(shop, buyerEmail);
  const upgrades = shop.getByTestId("license-upgrades");
  await upgrades.getByText(`Upgrade to Tape Pro ${run} — $50.00`).click();
  await expect(upgrades).toContainText("You pay $50.00");
  await shot("licenses-upgrade-confirm");
  await upgrades.getByRole("button", { name: /^Pay \$50\.00.* and upgrade$/ }).click();
  await expect(shop).toHaveURL(/\/checkout\/cs_[A-Za-z0-9]{24}$/);
  const sessionId = /\/checkout\/(cs_[A-Za-z0-9]{24})$/.exec(shop.url())![1]!;
  await shop.getByRole("button", { name: /^pay/i }).click();
  const proKey = (await shop.getByTestId("license-key").textContent())!.trim();
  expect(proKey).not.toBe(key);
  const status = (await (await shop.request.get(`/api/checkout/${sessionId}`)).json()) as { status: string; amount_cents: number };
  expect(status).toMatchObject({ status: "paid", amount_cents: 5000 });

  // The Standard key no longer works: its app is told it was upgraded.
  expect(await (await shop.request.post("/validate", { data: body })).json()).toMatchObject({ valid: false, code: "UPGRADED" });
  await buyer.close();
});
