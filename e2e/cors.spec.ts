import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";

/**
 * A page on another origin (a blank page served from another loopback address and port, so the browser sees a
 * different origin in the same local address space) reads the catalog and calls /validate with a JSON body, which
 * needs a preflight, against the production server; a seller route stays out of its reach. Plain Playwright test: the
 * refused fetch logs a console error, which the fixtures' guard would count against it.
 */
test("a page on another origin reads public APIs but not seller ones", async ({ page, baseURL }) => {
  const other = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>other</title>"));
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  try {
    await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
    const results = await page.evaluate(async (base) => {
      const catalog = await fetch(`${base}/api/catalog`).then(async (r) => ({
        status: r.status,
        products: ((await r.json()) as { products?: unknown[] }).products?.length,
      }));
      const validate = await fetch(`${base}/validate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ license_key: "ABCD-EFGH-JKLM-NPQR", machine_fingerprint: "cors-e2e-device-0001", plugin_id: "none" }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { code?: string } }));
      const seller = await fetch(`${base}/api/v1/products`).then(
        (r) => `read ${r.status}`,
        (e: unknown) => `refused ${String(e)}`,
      );
      return { catalog, validate, seller };
    }, baseURL);
    expect(results.catalog.status).toBe(200);
    expect(results.catalog.products).toBeGreaterThan(0);
    expect(results.validate.status).toBeLessThan(500);
    expect(typeof results.validate.body.code).toBe("string");
    expect(results.seller).toMatch(/^refused/);
  } finally {
    await new Promise<void>((resolve) => other.close(() => resolve()));
  }
});
