import { expect, type Page } from "@playwright/test";

/**
 * Connects the built-in test payout account the way a seller does in test mode: the Payouts page's button. A paid
 * listing needs a ready payout account, so every spec that publishes one calls this after creating the profile.
 */
export async function connectTestPayouts(page: Page) {
  await page.goto("/dashboard/payouts");
  await page.getByRole("button", { name: "Connect the test payout account" }).click();
  await expect(page).toHaveURL(/\/dashboard\/payouts\?notice=payout-connected$/);
  await expect(page.locator("#payout-status")).toHaveText("Ready");
}
