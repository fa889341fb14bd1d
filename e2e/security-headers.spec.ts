import { test as bare, type Page, type Response } from "@playwright/test";
import { expect, test } from "./fixtures";
import { signIn } from "./support/sign-in";

/**
 * The Content-Security-Policy and its companions, in a real browser: every page runs under a per-response nonce
 * with no violation at all (a violation is also a console error, which the fixtures' guard refuses), and a script
 * without the nonce does not run.
 */

declare global {
  interface Window {
    __cspViolations?: string[];
    __injected?: number;
    __control?: number;
  }
}

/** Records every securitypolicyviolation the page raises, from before its first script. */
async function watchViolations(page: Page): Promise<string[]> {
  const console: string[] = [];
  page.on("console", (m) => {
    if (m.text().includes("Content Security Policy")) console.push(m.text());
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e) => {
      window.__cspViolations?.push(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  return console;
}

async function violations(page: Page): Promise<string[]> {
  return page.evaluate(() => window.__cspViolations ?? []);
}

function nonceOf(response: { headers: () => Record<string, string> }): string {
  const csp = response.headers()["content-security-policy"] ?? "";
  const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
  expect(nonce, `no nonce in ${csp}`).toBeTruthy();
  return nonce!;
}

/** The checks every HTML page must pass; returns its nonce. */
async function checkPage(page: Page, response: Response | null, consoleCsp: string[]): Promise<string> {
  expect(response).not.toBeNull();
  const headers = response!.headers();
  const csp = headers["content-security-policy"] ?? "";
  for (const directive of [
    "default-src 'self'",
    "'strict-dynamic'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "connect-src 'self'",
    "font-src 'self'",
  ]) {
    expect(csp).toContain(directive);
  }
  expect(csp).toMatch(/form-action 'self' https:\/\/checkout\.stripe\.com/);
  // Not an https deployment: neither HSTS nor the upgrade.
  expect(csp).not.toContain("upgrade-insecure-requests");
  expect(csp).not.toContain("unsafe-eval");
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  expect(headers["strict-transport-security"]).toBeUndefined();
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toMatch(/^(strict-origin-when-cross-origin|same-origin)$/);
  expect(headers["permissions-policy"]).toContain("camera=()");

  // Every script Next rendered into the HTML carries this response's nonce (JSON-LD is data, not a script).
  const nonce = nonceOf(response!);
  const html = await response!.text();
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]).filter((tag) => !/type="application\/(ld\+)?json"/.test(tag));
  expect(scripts.length).toBeGreaterThan(0);
  for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);

  await page.waitForLoadState("networkidle");
  expect(await violations(page)).toEqual([]);
  expect(consoleCsp).toEqual([]);
  return nonce;
}

test("every page runs under a nonce policy with no violation, and the nonce is fresh on each load", async ({ page, request }) => {
  test.setTimeout(120_000);
  const consoleCsp = await watchViolations(page);
  const { products } = (await (await request.get("/api/marketplace/listings?limit=1")).json()) as { products: Array<{ id: string }> };
  const productId = products[0]!.id;
  const created = await request.post("/api/checkout/create", { data: { product_id: productId, buyer_email: `e2e-csp-${Date.now()}@example.com` } });
  expect(created.status()).toBe(200);
  const { url: checkoutUrl } = (await created.json()) as { url: string };

  const nonces = new Set<string>();
  for (const path of ["/", `/products/${productId}`, "/agents", "/licenses", "/dashboard/sign-in", new URL(checkoutUrl).pathname, "/dev/mailbox"]) {
    await test.step(path, async () => {
      nonces.add(await checkPage(page, await page.goto(path), consoleCsp));
    });
  }
  // Two loads of the same page: two different nonces.
  nonces.add(await checkPage(page, await page.goto("/"), consoleCsp));
  expect(nonces.size).toBe(8);

  // A client-side navigation (the product card link) loads further chunks under 'strict-dynamic'.
  await page.goto("/");
  await page.locator('a[href^="/products/"]').first().click();
  await expect(page).toHaveURL(/\/products\//);
  await page.waitForLoadState("networkidle");
  expect(await violations(page)).toEqual([]);

  // Pages whose URL is a capability send no Referer to other sites.
  expect((await page.goto(new URL(checkoutUrl).pathname))!.headers()["referrer-policy"]).toBe("same-origin");
  expect((await page.goto("/"))!.headers()["referrer-policy"]).toBe("strict-origin-when-cross-origin");

  // The not-found page renders per request too.
  const missing = await page.goto("/no-such-page");
  expect(missing!.status()).toBe(404);
  await checkPage(page, missing, consoleCsp);
});

test("the checkout Pay form and a seller's dashboard pages work under the policy", async ({ page, request }) => {
  test.setTimeout(120_000);
  const consoleCsp = await watchViolations(page);
  const { products } = (await (await request.get("/api/marketplace/listings?limit=1")).json()) as { products: Array<{ id: string }> };
  const created = await request.post("/api/checkout/create", {
    data: { product_id: products[0]!.id, buyer_email: `e2e-csp-pay-${Date.now()}@example.com` },
  });
  const { url, session_id } = (await created.json()) as { url: string; session_id: string };
  await checkPage(page, await page.goto(url), consoleCsp);
  await page.getByRole("button", { name: /^pay/i }).click();
  await expect(page).toHaveURL(new RegExp(`/checkout/${session_id}/success$`));
  await page.waitForLoadState("networkidle");
  expect(await violations(page)).toEqual([]);

  await signIn(page, `e2e-csp-seller-${Date.now().toString(36)}@example.com`);
  await expect(page).toHaveURL(/\/dashboard\/welcome$/);
  await checkPage(page, await page.reload(), consoleCsp);
  await page.getByLabel("Developer or studio name").fill("CSP Studio");
  await page.getByLabel("Website").fill("https://example.com");
  await page.getByLabel("About you").fill("Small tools for people who ship desktop software.");
  await page.getByRole("button", { name: "Create profile" }).click();
  await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);
  for (const path of [
    "/dashboard",
    "/dashboard/products",
    "/dashboard/products/new",
    "/dashboard/licenses",
    "/dashboard/sales",
    "/dashboard/profile",
    "/dashboard/payouts",
  ]) {
    await test.step(path, async () => {
      await checkPage(page, await page.goto(path), consoleCsp);
    });
  }
});

test("data and file answers carry the locked-down policy", async ({ request }) => {
  for (const path of ["/api/catalog", "/openapi.json", "/llms.txt", "/api/no-such-endpoint"]) {
    const headers = (await request.get(path)).headers();
    expect(headers["content-security-policy"], path).toContain("default-src 'none'");
    expect(headers["content-security-policy"], path).toContain("frame-ancestors 'none'");
    expect(headers["x-frame-options"], path).toBe("DENY");
    expect(headers["x-content-type-options"], path).toBe("nosniff");
    expect(headers["strict-transport-security"], path).toBeUndefined();
  }
});

// The attack, without the console guard: this test expects violations.
bare("markup injected into a page cannot run script, and another site cannot frame a page", async ({ page, baseURL }) => {
  const consoleCsp = await watchViolations(page);
  // What a stored or reflected HTML injection would put into the page the server sends: an inline script and an
  // inline event handler, neither with the nonce (the attacker cannot know it). The response keeps its own headers.
  let nonce = "";
  await page.route(
    (url) => url.pathname === "/",
    async (route) => {
      const response = await route.fetch();
      nonce = nonceOf(response);
      const payload = '<script>window.__injected = 1</script><img src="data:,x" onerror="window.__injected = 2">';
      // Control: the same script with this response's nonce runs, so the policy (not something else) stops the first.
      const control = `<script nonce="${nonce}">window.__control = 1</script>`;
      const body = (await response.text()).replace(/<body([^>]*)>/, `<body$1>${payload}${control}`);
      await route.fulfill({ response, body });
    },
  );
  await page.goto("/");
  await page.waitForLoadState("networkidle");
  await expect
    .poll(() => violations(page))
    .toEqual(
      expect.arrayContaining([expect.stringMatching(/^script-src-elem blocked inline/), expect.stringMatching(/^script-src-attr blocked inline/)]),
    );
  expect(await page.evaluate(() => window.__injected)).toBeUndefined();
  expect(await page.evaluate(() => window.__control)).toBe(1);
  expect(consoleCsp.some((m) => /inline script/i.test(m))).toBe(true);
  // The page's own (nonced) scripts did run: it is hydrated and navigates client-side.
  expect(await page.evaluate(() => Array.isArray((window as unknown as { __next_f?: unknown }).__next_f))).toBe(true);

  // A page elsewhere that frames ours gets nothing.
  await page.unrouteAll();
  const framed = await page.context().newPage();
  const messages: string[] = [];
  framed.on("console", (m) => messages.push(m.text()));
  await framed.setContent(`<iframe src="${baseURL!}/"></iframe>`);
  await expect.poll(() => messages.some((t) => /frame-ancestors/i.test(t))).toBe(true);
});
