import { expect, noHorizontalScroll, test } from "./fixtures";

test("every link of the discovery payload resolves on this deployment", async ({ request }) => {
  const d = await (await request.get("/api/discover")).json();
  expect(Object.keys(d._links)).toHaveLength(18);
  for (const [name, url] of Object.entries(d._links as Record<string, string>)) {
    const r = await request.get(url);
    // POST-only endpoints answer GET with 405, and the receipt endpoint without a key with 400: both exist.
    expect([200, 400, 405], `${name} ${url} → ${r.status()}`).toContain(r.status());
  }
});

test("robots.txt and the sitemap are served", async ({ request }) => {
  const robots = await request.get("/robots.txt");
  expect(robots.headers()["content-type"]).toContain("text/plain");
  expect(await robots.text()).toMatch(/Sitemap: http:\/\/localhost:\d+\/sitemap\.xml/);
  const sitemap = await request.get("/sitemap.xml");
  expect(await sitemap.text()).toContain("/products/");
  for (const path of ["/llms.txt", "/llms-full.txt"]) {
    expect((await request.get(path)).headers()["content-type"]).toBe("text/plain; charset=utf-8");
  }
});

test("the For AI agents page shows the MCP endpoint, its config and every tool", async ({ page, request, shot }) => {
  await page.goto("/");
  await page.getByRole("link", { name: "For AI agents" }).first().click();
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  const manifest = await (await request.get("/api/tools")).json();
  for (const t of manifest.tools) await expect(page.getByText(t.function.name, { exact: true })).toBeVisible();
  await expect(page.getByText(manifest.mcp.endpoint).first()).toBeVisible();
  await expect(page.getByRole("link", { name: "llms.txt" }).first()).toBeVisible();
  await shot("agents");
  await page.setViewportSize({ width: 390, height: 844 });
  await noHorizontalScroll(page);
});
