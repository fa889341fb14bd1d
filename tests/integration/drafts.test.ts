import { afterAll, describe, expect, it } from "vitest";
import { GET as listingsApi } from "@/app/api/marketplace/listings/route";
import { POST as checkoutApi } from "@/app/api/checkout/create/route";
import { GET as productApi } from "@/app/api/marketplace/product/[id]/route";
import { GET as releasesApi } from "@/app/api/marketplace/product/[id]/releases/route";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { POST as createProductApi } from "@/app/api/v1/products/route";
import { POST as publishApi } from "@/app/api/v1/products/[id]/publish/route";
import sitemap from "@/app/sitemap";
import { disconnectDb, getDb } from "@/lib/db";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { missingPath } from "@/lib/http/request-path";
import { listProducts } from "@/lib/marketplace/list-products";
import { publishProduct, setProductStatus } from "@/lib/selling/products";
import { platformWarnings } from "@/lib/selling/publish";
import { saveUpload } from "@/lib/selling/uploads";
import { missingPageRewrite } from "@/lib/transports/page-guards";
import { createDeveloperProfile } from "@/lib/selling/developer-profile";
import { tinyPng } from "../../e2e/support/png";
import { call, expectProblem } from "../helpers/http";
import { sellerCookie, sellingDeveloper, testProductBody } from "../helpers/sellers";

afterAll(() => disconnectDb());

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

async function seller() {
  const email = `drafts-${unique()}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Draft Studio ${unique()}`, website: null, bio: "" });
  return { dev, cookie: await sellerCookie(email) };
}

const create = (cookie: string, fields: Record<string, unknown> = {}) => {
  const id = unique();
  return call(createProductApi, "/api/v1/products", {
    method: "POST",
    headers: { cookie },
    json: testProductBody(`Draft Probe ${id}`, `com.test.draft${id}`, fields),
  });
};
const publish = (cookie: string, id: string) =>
  call(publishApi, `/api/v1/products/${id}/publish`, { method: "POST", headers: { cookie }, params: { id } });

async function browseTool(query: string) {
  const response = await mcpPost(
    new Request("http://localhost:3000/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", [CLIENT_ADDRESS_HEADER]: "198.51.100.71" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "browse_marketplace", arguments: { query, limit: 20 } } }),
    }),
  );
  const text = await response.text();
  const line = /^\s*\{/.test(text)
    ? text
    : text
        .split("\n")
        .find((l) => l.startsWith("data:"))!
        .slice(5);
  return (JSON.parse(line) as { result: { structuredContent: { products: Array<{ id: string }> } } }).result.structuredContent.products;
}

/** Every public way to find or buy a product, each answering whether it shows this one. */
async function publiclyVisible(id: string, name: string): Promise<Record<string, boolean>> {
  const listings = await call(listingsApi, `/api/marketplace/listings?search=${encodeURIComponent(name)}`);
  const details = await call(productApi, `/api/marketplace/product/${id}`, { params: { id } });
  const releases = await call(releasesApi, `/api/marketplace/product/${id}/releases`, { params: { id } });
  const listed = await listProducts({ search: name, page: 1, limit: 20, sort: "newest" });
  const map = await sitemap();
  const checkout = await call(checkoutApi, "/api/checkout/create", {
    method: "POST",
    headers: { [CLIENT_ADDRESS_HEADER]: "198.51.100.72" },
    json: { product_id: id, buyer_email: `drafts-buyer-${unique()}@example.com` },
  });
  return {
    listings: (listings.body.products as Array<{ id: string }>).some((p) => p.id === id),
    details: details.status === 200,
    releases: releases.status === 200,
    search: listed.rows.some((p) => p.id === id),
    sitemap: map.some((e) => e.url.endsWith(`/products/${id}`)),
    mcp: (await browseTool(name)).some((p) => p.id === id),
    page: (await missingPageRewrite(`/products/${id}`)) === null,
    checkout: checkout.status === 200,
  };
}

const HIDDEN = { listings: false, details: false, releases: false, search: false, sitemap: false, mcp: false, page: false, checkout: false };
const SHOWN = { listings: true, details: true, releases: true, search: true, sitemap: true, mcp: true, page: true, checkout: true };

describe("a new product is a draft until its seller publishes it", () => {
  it("is created as a draft, shown on no public path and not sold; publishing lists it, and publishing again changes nothing", async () => {
    const s = await seller();
    const created = await create(s.cookie);
    expect(created.status, created.text).toBe(201);
    const { id, name, status } = created.body.product as { id: string; name: string; status: string };
    expect(status).toBe("draft");
    expect(await publiclyVisible(id, name)).toEqual(HIDDEN);
    const checkout = await call(checkoutApi, "/api/checkout/create", {
      method: "POST",
      headers: { [CLIENT_ADDRESS_HEADER]: "198.51.100.73" },
      json: { product_id: id, buyer_email: "drafts-buyer@example.com" },
    });
    expectProblem(checkout, 404, "product_not_found");

    const first = await publish(s.cookie, id);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ product: { id, status: "active" }, warnings: [] });
    const again = await publish(s.cookie, id);
    expect(again.status, again.text).toBe(200);
    expect(again.body.product.updated_at).toBe(first.body.product.updated_at);
    expect(await publiclyVisible(id, name)).toEqual(SHOWN);

    // Back to a draft: hidden again.
    expect((await setProductStatus(s.dev.id, id, "draft")).status).toBe("draft");
    expect((await publiclyVisible(id, name)).listings).toBe(false);
  });

  it('"publish": true on create lists it in one call, under the same checks', async () => {
    const s = await seller();
    const created = await create(s.cookie, { publish: true });
    expect(created.status, created.text).toBe(201);
    expect(created.body.product.status).toBe("active");

    const before = await getDb().product.count({ where: { developerId: s.dev.id } });
    const refused = await create(s.cookie, { publish: true, download_url: "" });
    expectProblem(refused, 409, "product_not_ready");
    expect(refused.body.errors.map((e: { name: string }) => e.name)).toEqual(["download_url"]);
    expect(await getDb().product.count({ where: { developerId: s.dev.id } })).toBe(before);
  });

  it("refuses to publish what a buyer could not use: 409 product_not_ready naming each missing thing", async () => {
    const s = await seller();
    // No download URL and no release with a file; the seller's profile lacks what a paid listing shows.
    const email = `drafts-bare-${unique()}@example.com`;
    const bare = await createDeveloperProfile(email, { name: `Bare Studio ${unique()}`, website: null, bio: "" });
    const cookie = await sellerCookie(email);
    const draft = await create(cookie, { download_url: "" });
    expect(draft.status, draft.text).toBe(201);
    const refused = await publish(cookie, draft.body.product.id);
    expectProblem(refused, 409, "product_not_ready");
    expect(refused.body.errors.map((e: { name: string }) => e.name)).toEqual(["download_url", "refund_policy", "support_email"]);
    expect(refused.body.detail).toContain("a download URL, or a published release with at least one file");
    expect((await getDb().product.findUniqueOrThrow({ where: { id: draft.body.product.id } })).status).toBe("draft");
    expect(bare.id).toBeTruthy();

    // Only the seller's prerequisites missing: their own code, as when relisting.
    const complete = await create(cookie);
    expectProblem(await publish(cookie, complete.body.product.id), 409, "seller_profile_incomplete");

    // Someone else's product is not found.
    expectProblem(await publish(s.cookie, draft.body.product.id), 404, "product_not_found");
  });

  it("a product shipping its files through Releases publishes without a download URL once a release has one, and flags platforms without a build", async () => {
    const s = await seller();
    const draft = await create(s.cookie, { download_url: "", platforms: ["linux", "windows"] });
    const id = draft.body.product.id as string;
    expectProblem(await publish(s.cookie, id), 409, "product_not_ready");
    const release = await getDb().release.create({
      data: { productId: id, version: "1.0.0", major: 1, minor: 0, patch: 0, status: "published", publishedAt: new Date() },
    });
    await getDb().artifact.create({
      data: {
        releaseId: release.id,
        platform: "linux-x64",
        fileType: "tar.gz",
        filename: "app.tar.gz",
        contentType: "application/gzip",
        size: 1,
        sha256: "0".repeat(64),
        sha512: "x",
        signature: "x",
        minisign: "x",
        keyId: "ed25519-1",
        storageKey: `drafts-test/${unique()}`,
      },
    });
    const published = await publishProduct(s.dev.id, id);
    expect(published.product.status).toBe("active");
    expect(published.warnings).toEqual(["No build for Windows yet"]);
    expect(platformWarnings(["linux"], { any: false, platforms: new Set() })).toEqual([]);
  });
});

describe("the owner's preview", () => {
  it("is the owner's only: anyone else gets the 404 of an unknown id", async () => {
    const a = await seller();
    const b = await seller();
    const draft = await create(a.cookie);
    const path = `/products/${draft.body.product.id}/preview`;
    expect(await missingPageRewrite(path, a.cookie)).toBeNull();
    expect(await missingPageRewrite(path, b.cookie)).toBe(missingPath("product"));
    expect(await missingPageRewrite(path, null)).toBe(missingPath("product"));
    expect(await missingPageRewrite("/products/no-such-product/preview", a.cookie)).toBe(missingPath("product"));
    expect(await missingPageRewrite(`/products/${draft.body.product.id}`, a.cookie)).toBe(missingPath("product"));
  });
});

describe("the icon's stated minimum size", () => {
  it("refuses an uploaded icon smaller than 128 × 128 with icon_too_small naming the size read", async () => {
    const s = await seller();
    const small = await saveUpload(new Uint8Array(tinyPng([1, 2, 3], 64)), s.dev.id);
    const refused = await create(s.cookie, { icon_url: small });
    expectProblem(refused, 400, "icon_too_small");
    expect(refused.body.detail).toContain("64 × 64");
    expect(refused.body.errors).toEqual([expect.objectContaining({ name: "icon_url" })]);
    const big = await saveUpload(new Uint8Array(tinyPng([1, 2, 4], 128)), s.dev.id);
    expect((await create(s.cookie, { icon_url: big })).status).toBe(201);
  });
});
