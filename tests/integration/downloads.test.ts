import { afterAll, describe, expect, it } from "vitest";
import { GET as download } from "@/app/downloads/[id]/route";
import { sellingDeveloper } from "../helpers/sellers";
import { issueComplimentaryLicense } from "@/lib/selling/licenses";
import { createProduct, updateProduct } from "@/lib/selling/products";
import { sellerProductCreateSchema, sellerProductInputSchema } from "@/lib/selling/seller-product";
import { disconnectDb, getDb } from "@/lib/db";
import { setLicenseStatus } from "@/lib/licensing/set-license-status";
import { downloadPath } from "@/lib/marketplace/get-download";
import { catalogQuerySchema, productInputSchema, type ProductInput } from "@/lib/marketplace/schemas";
import { SELLER } from "@/lib/operations/seller";
import { clearReadCache } from "@/lib/cache/read-cache";
import { getCatalog } from "@/lib/marketplace/get-catalog";
import { getProduct } from "@/lib/marketplace/get-product";
import { call, expectProblem } from "../helpers/http";

/**
 * /downloads/{id} used to redirect anyone to whatever URL the seller stored (an open redirect on our domain), and a
 * relative stored URL made it fail with a 500. Now the URL is checked when it is saved and again before a redirect,
 * and only a license holder's link redirects at all.
 */

afterAll(async () => {
  // The legacy download URLs written below are not for other test files' listings to find.
  await getDb().product.updateMany({ where: { developer: { email: { startsWith: "dl-" } } }, data: { status: "unlisted" } });
  await disconnectDb();
});

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const SELLER_URL = "https://builds.example.com/synth-1.0.dmg";

function input(downloadUrl: string): ProductInput {
  const id = unique();
  return productInputSchema.parse({
    name: `Download Synth ${id}`,
    description: "A product used by the download tests, with a long enough description.",
    plugin_id: `com.test.dl${id}`,
    price_cents: 1500,
    category: "audio-plugins",
    max_machines: 2,
    seat_model: "per-machine",
    platforms: ["linux"],
    download_url: downloadUrl,
    icon_url: "/icons/tape-warmth.svg",
  });
}

async function sellerWithProduct(downloadUrl = SELLER_URL) {
  const dev = await sellingDeveloper(`dl-${unique()}@example.com`, { name: `DL ${unique()}`, website: null, bio: "" });
  await getDb().developer.update({ where: { id: dev.id }, data: { createdAt: new Date(Date.now() - 30 * 86_400_000) } });
  const product = await createProduct(dev.id, input(downloadUrl), { publish: true });
  return { dev, product };
}

const get = (path: string) => {
  const id = new URL(path, "http://localhost:3000").pathname.split("/")[2] ?? "";
  return call(download, path, { params: { id } });
};

describe("the seller's installer address", () => {
  it("is in no public answer: product details and the catalog name the license-gated route instead", async () => {
    const { product } = await sellerWithProduct();
    clearReadCache();
    const details = await getProduct(product.id);
    expect(details.download_url).toBe(`http://localhost:3000/downloads/${product.id}`);
    expect(JSON.stringify(details)).not.toContain("builds.example.com");
    const catalog = await getCatalog(catalogQuerySchema.parse({ search: product.name }));
    const item = catalog.products.find((p: { id: string }) => p.id === product.id);
    expect(item).toMatchObject({ download_url: `http://localhost:3000/downloads/${product.id}` });
    expect(JSON.stringify(catalog)).not.toContain("builds.example.com");
    // And the route it names hands nothing to a visitor without a license.
    expectProblem(await get(`/downloads/${product.id}`), 403, "download_license_required");
  });
});

describe("/downloads/{id}: no open redirect", () => {
  it("does not redirect an anonymous visitor to the seller's URL", async () => {
    const { product } = await sellerWithProduct();
    const r = await get(`/downloads/${product.id}`);
    expectProblem(r, 403, "download_license_required");
    expect(r.headers.get("location")).toBeNull();
  });

  it("redirects a license holder's link, and only while the license is in force", async () => {
    const { dev, product } = await sellerWithProduct();
    const license = await issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: `holder-${unique()}@example.com` });
    const link = downloadPath(product.id, license);
    const ok = await get(link);
    expect(ok.status).toBe(302);
    expect(ok.headers.get("location")).toBe(SELLER_URL);
    expect(ok.headers.get("referrer-policy")).toBe("no-referrer");
    expect(ok.headers.get("cache-control")).toContain("no-store");

    // Forged, truncated, or another product's token: no redirect.
    const other = await sellerWithProduct();
    const otherLicense = await issueComplimentaryLicense(other.dev.id, { product_id: other.product.id, buyer_email: `o-${unique()}@example.com` });
    const foreign = downloadPath(other.product.id, otherLicense).split("?")[1] ?? "";
    for (const path of [
      `/downloads/${product.id}?${foreign}`,
      `/downloads/${product.id}?t=${license.id}.${"A".repeat(32)}`,
      `/downloads/${product.id}?t=${license.id}`,
      `/downloads/${product.id}?t=${encodeURIComponent(license.key)}`,
      `/downloads/${product.id}?key=${encodeURIComponent(license.key)}`,
    ]) {
      const r = await get(path);
      expectProblem(r, 403, "download_license_required");
      expect(r.headers.get("location")).toBeNull();
    }

    await setLicenseStatus({ licenseId: license.id, active: false, reason: "test" });
    const revoked = await get(link);
    expectProblem(revoked, 403, "download_license_required");
  });

  it("refuses bad download URLs when a seller saves them", async () => {
    const { dev, product } = await sellerWithProduct();
    for (const bad of [
      "javascript:alert(1)",
      "/relative/file.zip",
      "relative.zip",
      `/downloads/${product.id}`,
      "http://builds.example.com/app.zip",
      "https://user:secret@builds.example.com/app.zip",
      "data:text/html,<script>alert(1)</script>",
      `https://example.com/${"a".repeat(600)}`,
    ]) {
      // The demo read-me path passes the schema (a demo product keeps its own); lib refuses it for any other product.
      if (!bad.startsWith("/downloads/"))
        expect(sellerProductInputSchema.safeParse({ ...input(SELLER_URL), download_url: bad }).success, bad).toBe(false);
      await expect(createProduct(dev.id, { ...input(SELLER_URL), download_url: bad }, { publish: true }), bad).rejects.toMatchObject({ status: 400 });
    }
    // An existing product cannot point at another product's read-me either.
    await expect(updateProduct(dev.id, product.id, { ...input(SELLER_URL), download_url: "/downloads/some-other-product" })).rejects.toMatchObject({
      status: 400,
      extra: { errors: [{ name: "download_url" }] },
    });
    // The seller API validates with the same schema.
    const create = SELLER.find((o) => o.id === "createSellerProduct");
    expect(create?.input?.body).toBe(sellerProductCreateSchema);
    expect(sellerProductCreateSchema.safeParse({ ...input(SELLER_URL), download_url: "javascript:alert(1)" }).success).toBe(false);
    expect(sellerProductInputSchema.safeParse({ ...input(SELLER_URL), download_url: "https://builds.example.com/ok.zip" }).success).toBe(true);
  });

  it("answers a stored legacy relative or javascript: URL with 410 (and 403 without a license), never a 500", async () => {
    for (const legacy of ["/not-a-download", "javascript:alert(1)", "relative/app.zip", "/downloads/someone-else"]) {
      const { dev, product } = await sellerWithProduct();
      const license = await issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: `legacy-${unique()}@example.com` });
      // Written straight to the database, as rows saved before the rule existed.
      await getDb().product.update({ where: { id: product.id }, data: { downloadUrl: legacy } });
      const holder = await get(downloadPath(product.id, license));
      expectProblem(holder, 410, "download_unavailable");
      expect(holder.headers.get("location")).toBeNull();
      expectProblem(await get(`/downloads/${product.id}`), 403, "download_license_required");
    }
  });

  it("still serves the demo catalogue's read-me to anyone, and 404s an unknown product", async () => {
    const demo = await getDb().product.findFirstOrThrow({ where: { downloadUrl: { startsWith: "/downloads/" }, status: "active" } });
    const r = await get(`/downloads/${demo.id}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain(demo.pluginId);
    expectProblem(await get("/downloads/no-such-product"), 404, "product_not_found");
  });
});

describe("pages for license holders link the gated download, never the seller's URL", () => {
  it("My licenses and the checkout success page", async () => {
    const { buyerLicenses } = await import("@/lib/buyer/licenses");
    const { createCheckout } = await import("@/lib/checkout/create-checkout");
    const { payTestCheckout } = await import("@/lib/checkout/test-payment");
    const { getCheckoutView } = await import("@/lib/checkout/get-checkout");
    const { dev, product } = await sellerWithProduct();
    const email = `pages-${unique()}@example.com`;
    await issueComplimentaryLicense(dev.id, { product_id: product.id, buyer_email: email });
    const [mine] = await buyerLicenses(email);
    expect(mine!.product.downloadUrl).toBe(`http://localhost:3000${downloadPath(product.id, mine!)}`);
    expect(JSON.stringify(mine)).not.toContain("builds.example.com");

    const { session_id } = await createCheckout({ product_id: product.id, buyer_email: `buyer-${unique()}@example.com` });
    expect((await getCheckoutView(session_id)).product.downloadUrl).toBeNull();
    await payTestCheckout(session_id);
    const view = await getCheckoutView(session_id);
    const license = await getDb().license.findFirstOrThrow({ where: { orderId: session_id } });
    expect(view.product.downloadUrl).toBe(`http://localhost:3000${downloadPath(product.id, license)}`);
    expect(JSON.stringify(view)).not.toContain("builds.example.com");
    // The link works for the holder.
    const r = await get(downloadPath(product.id, license));
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe(SELLER_URL);
  });
});
