import { expect, type Page } from "@playwright/test";
import { connectTestPayouts } from "./payouts";
import { signIn } from "./sign-in";

/** A refund policy and a support contact in the profile form (welcome or profile page): what a paid listing needs. */
export async function fillSupportAndRefunds(page: Page) {
  await page.getByLabel("Refund policy").fill("Full refund within 14 days of purchase; the license is revoked on refund.");
  await page.getByLabel("Support e-mail").fill("support@example.com");
}

/**
 * A new seller ready to sell: signed in by the e-mailed link, the profile created on the welcome page (name, about,
 * refund policy, support contact) and the test payout account connected.
 */
export async function newSeller(page: Page, email: string, profile: { name: string; about: string }) {
  await signIn(page, email);
  await expect(page).toHaveURL(/\/dashboard\/welcome$/);
  await page.getByLabel("Developer or studio name").fill(profile.name);
  await page.getByLabel("About you").fill(profile.about);
  await fillSupportAndRefunds(page);
  await page.getByRole("button", { name: "Create profile" }).click();
  await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);
  await connectTestPayouts(page);
}

/**
 * A listed per-seat audio plugin of the signed-in seller, created over the seller API with the session: 25.00 EUR a
 * seat, 2 machines a seat, macOS. Returns its id.
 */
export async function createSeatProduct(page: Page, p: { name: string; pluginId: string; tagline: string; description: string }): Promise<string> {
  const created = await page.request.post("/api/v1/products", {
    data: {
      publish: true,
      name: p.name,
      tagline: p.tagline,
      description: p.description,
      plugin_id: p.pluginId,
      price_cents: 2500,
      currency: "eur",
      category: "audio-plugins",
      max_machines: 2,
      seat_model: "per-seat",
      platforms: ["macos"],
      download_url: "https://example.com/download.zip",
      icon_url: "/icons/tape-warmth.svg",
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  return ((await created.json()) as { product: { id: string } }).product.id;
}

/** Publishes the product whose dashboard page is open: a new product is a draft, shown to no buyer, until then. */
export async function publishOpenProduct(page: Page) {
  await page.getByRole("button", { name: "Publish", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard\/products\/[a-z0-9-]+\?notice=product-published$/);
}
