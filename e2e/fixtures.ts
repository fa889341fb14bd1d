import { mkdirSync } from "node:fs";
import { test as base, expect, type Page } from "@playwright/test";

/**
 * Every page test fails on a console error or on a request to any host but ours, and can keep a screenshot
 * under e2e/artifacts/screens for people to look at.
 */
export const test = base.extend<{ guard: undefined; shot: (name: string) => Promise<void> }>({
  guard: [
    async ({ page, baseURL }, use) => {
      const origin = new URL(baseURL!).origin;
      const problems: string[] = [];
      page.on("console", (m) => {
        // The development mailbox shows each e-mail's HTML in a sandboxed frame without scripts: Chromium reporting a
        // script it refused to run there is that sandbox working, not a page error.
        const sandboxed = /^Blocked script execution in 'about:srcdoc' because the document's frame is sandboxed/.test(m.text());
        if (m.type() === "error" && !/status of 404/.test(m.text()) && !sandboxed) problems.push(`console: ${m.text()}`);
      });
      page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
      page.on("request", (r) => {
        const u = new URL(r.url());
        if (!["data:", "blob:"].includes(u.protocol) && u.origin !== origin) problems.push(`foreign request: ${r.url()}`);
      });
      await use(undefined);
      expect(problems, problems.join("\n")).toEqual([]);
    },
    { auto: true },
  ],
  shot: async ({ page }, use) => {
    mkdirSync("e2e/artifacts/screens", { recursive: true });
    await use(async (name: string) => {
      await page.screenshot({ path: `e2e/artifacts/screens/${name}.png`, fullPage: true });
    });
  },
});

export { expect };

export async function noHorizontalScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}
