import type { Page } from "@playwright/test";

/** A refund policy and a support contact in the profile form (welcome or profile page): what a paid listing needs. */
export async function fillSupportAndRefunds(page: Page) {
  await page.getByLabel("Refund policy").fill("Full refund within 14 days of purchase; the license is revoked on refund.");
  await page.getByLabel("Support e-mail").fill("support@example.com");
}
