import { expect, test } from "./fixtures";
import { signIn } from "./support/sign-in";

/**
 * What the phone work of issue 35 changed, beyond the figures of bench/hydration.ts.
 *
 * "Sell" in the header, on a phone with the CPU slowed as the hydration benchmark slows it (bench/hydration.ts): it
 * leads straight to the seller sign-in page, which shows at once, instead of /dashboard, which had to find nobody
 * signed in and redirect there (a blank wait of 2–3 s on a phone). A signed-in seller is sent on from there.
 */
const PHONE = { width: 390, height: 844 } as const;

test.describe.configure({ mode: "parallel" });

test("signed out, Sell opens the seller sign-in page without a detour through the dashboard", async ({ page }) => {
  await page.setViewportSize(PHONE);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  const dashboardRequests: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/dashboard") dashboardRequests.push(r.url());
  });
  // The server loads a route's code on its first request (preloadEntriesOnStart: false): not what this measures.
  expect((await page.request.get("/dashboard/sign-in")).status()).toBe(200);
  await page.goto("/");
  const sell = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sell" });
  await expect(sell).toHaveAttribute("href", "/dashboard/sign-in");

  await sell.click();
  // The suite's assertion bound, not a wait: the heading is there as soon as the page is.
  await expect(page.getByRole("heading", { level: 1, name: /^Sell your software/ })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Sign in or start selling" })).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard\/sign-in$/);
  expect(dashboardRequests).toEqual([]);
});

test("signed in, Sell leads on to the seller's onboarding", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, `e2e-sell-link-${Date.now()}@example.com`);
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sell" }).click();
  // A new seller has no developer profile yet: the sign-in page sends them to set one up.
  await expect(page).toHaveURL(/\/dashboard\/welcome$/);
});

test("the screenshot viewer, whose code loads on the first click, opens, moves, closes and returns focus", async ({ page, request }) => {
  const { products } = (await (await request.get("/api/marketplace/listings?limit=50")).json()) as { products: Array<{ id: string }> };
  let withImages: { id: string; name: string; images: string[] } | undefined;
  for (const p of products) {
    const details = (await (await request.get(`/api/marketplace/product/${p.id}`)).json()).product as { id: string; name: string; images: string[] };
    if (details.images.length > 1) {
      withImages = details;
      break;
    }
  }
  expect(withImages, "a seeded product with screenshots").toBeTruthy();
  const count = withImages!.images.length;
  await page.setViewportSize(PHONE);
  await page.goto(`/products/${withImages!.id}`);
  // Nothing of the viewer is on the page until it is asked for.
  await expect(page.locator("dialog")).toHaveCount(0);
  const first = page.locator("#screens-heading + ul a").first();
  await first.click();
  const viewer = page.getByRole("dialog", { name: `${withImages!.name}: screenshot 1 of ${count}` });
  await expect(viewer).toBeVisible();
  await expect(viewer.getByRole("button", { name: /^Close/ })).toBeFocused();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("dialog", { name: `${withImages!.name}: screenshot 2 of ${count}` })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(first).toBeFocused();
  // Open again (the code is loaded now) and close with the button.
  await first.click();
  await page
    .getByRole("dialog")
    .getByRole("button", { name: /^Close/ })
    .click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(first).toBeFocused();
});
