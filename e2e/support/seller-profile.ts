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
