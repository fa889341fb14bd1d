import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "./fixtures";
import { newSeller } from "./support/seller-profile";
import { signInToMyLicenses } from "./support/sign-in";

// Invoices and license transfer in Chromium, test mode: a buyer downloads the invoice of their purchase from My licenses
// (parsed back with PDF.js: its number and total are the order's), then transfers the license to another address; the
// new holder accepts it by the e-mailed link, gets a new key and activates it, while the old key answers TRANSFERRED
// and the old holder's machine is released.

async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  const standardFontDataUrl = `${join(process.cwd(), "node_modules/pdfjs-dist/standard_fonts")}/`;
  const doc = await pdfjs.getDocument({ data: bytes, standardFontDataUrl, isEvalSupported: false }).promise;
  const parts: string[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    parts.push(content.items.map((it) => ("str" in it ? it.str : "")).join("\n"));
  }
  await doc.destroy();
  return parts.join("\n");
}

test("a buyer downloads the invoice and transfers the license; the new holder accepts and activates it", async ({ page, browser, baseURL }) => {
  test.setTimeout(150_000);
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const sellerName = `Transfer Studio ${run}`;
  await newSeller(page, `e2e-transfer-${run}@example.com`, { name: sellerName, about: "Plugins that change hands." });
  const plugin = `com.e2e.xfer${run}`;
  const created = await page.request.post("/api/v1/products", {
    data: {
      publish: true,
      name: `Handover ${run}`,
      tagline: "A plugin whose licenses may be transferred.",
      description: "A product created by the invoices and transfer end-to-end test, with a long enough description.",
      plugin_id: plugin,
      price_cents: 2900,
      category: "audio-plugins",
      max_machines: 2,
      seat_model: "per-machine",
      platforms: ["macos"],
      download_url: "https://example.com/download.zip",
      icon_url: "/icons/tape-warmth.svg",
      allow_transfers: true,
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const productId = ((await created.json()) as { product: { id: string } }).product.id;

  // The buyer buys and activates one machine.
  const from = `e2e-xfer-from-${run}@example.com`;
  const buyer = await browser.newContext({ baseURL, acceptDownloads: true });
  const shop = await buyer.newPage();
  await shop.goto(`/products/${productId}`);
  await shop.getByLabel(/e-?mail/i).fill(from);
  await shop.getByRole("button", { name: /^buy$/i }).click();
  await shop.getByRole("button", { name: /^pay/i }).click();
  const oldKey = (await shop.getByTestId("license-key").textContent())!.trim();
  const machine = createHash("sha256").update(`xfer-e2e|${run}`).digest("hex");
  expect(
    await (await shop.request.post("/activate", { data: { license_key: oldKey, machine_fingerprint: machine, plugin_id: plugin } })).json(),
  ).toMatchObject({
    activated: true,
  });

  // My licenses: search finds it; the invoice downloads, and its number and total are the order's.
  await signInToMyLicenses(shop, from);
  await shop.getByLabel("Search your licenses").fill(oldKey.slice(-4));
  await shop.getByRole("button", { name: "Search" }).click();
  await expect(shop.getByTestId("license")).toHaveCount(1);
  await shop.getByText(/^Invoice INV-/).click();
  const [download] = await Promise.all([shop.waitForEvent("download"), shop.getByTestId("invoice-link").click()]);
  const text = await pdfText(new Uint8Array(await readFile(await download.path())));
  expect(text).toContain("INV-000001");
  expect(text).toContain(sellerName);
  expect(text).toContain("$29.00");

  // The transfer: offered to another address.
  const to = `e2e-xfer-to-${run}@example.com`;
  await shop.getByText("Transfer this license").click();
  await shop.getByLabel("New holder’s e-mail address").fill(to);
  await shop.getByRole("button", { name: "Send the transfer link" }).click();
  await expect(shop.locator("#licenses-notice")).toContainText("Transfer offered");

  // The new holder opens the e-mailed link, signs in with their address, and accepts.
  const recipient = await browser.newContext({ baseURL });
  const other = await recipient.newPage();
  let link = "";
  await expect
    .poll(async () => {
      const { messages } = (await (await other.request.get(`/api/dev/mailbox?to=${encodeURIComponent(to)}`)).json()) as {
        messages: Array<{ kind: string; text: string }>;
      };
      link = messages.map((m) => /\/licenses\/transfer\?token=[\w-]+/.exec(m.text)?.[0] ?? "").find(Boolean) ?? "";
      return link;
    })
    .not.toBe("");
  await signInToMyLicenses(other, to);
  await other.goto(link);
  await expect(other.getByRole("heading", { level: 1 })).toHaveText("Accept a license");
  await other.getByRole("button", { name: "Accept the license" }).click();
  await expect(other).toHaveURL(/\/licenses\?notice=transfer_accepted/);
  const card = other.getByTestId("license");
  await expect(card).toHaveCount(1);
  const newKey = (await card.getAttribute("data-license-key"))!;
  expect(newKey).not.toBe(oldKey);

  // The new key activates; the old key answers TRANSFERRED; the old holder's machine was released.
  const fresh = createHash("sha256").update(`xfer-e2e-new|${run}`).digest("hex");
  expect(
    await (await other.request.post("/activate", { data: { license_key: newKey, machine_fingerprint: fresh, plugin_id: plugin } })).json(),
  ).toMatchObject({
    activated: true,
  });
  expect(
    await (await shop.request.post("/validate", { data: { license_key: oldKey, machine_fingerprint: machine, plugin_id: plugin } })).json(),
  ).toMatchObject({
    valid: false,
    code: "TRANSFERRED",
  });
  expect(
    await (await other.request.post("/validate", { data: { license_key: newKey, machine_fingerprint: machine, plugin_id: plugin } })).json(),
  ).toMatchObject({
    valid: false,
  });
  await shop.goto("/licenses");
  await expect(shop.getByTestId("license")).toHaveCount(0);
  await buyer.close();
  await recipient.close();
});
