import { afterAll, describe, expect, it } from "vitest";
import { GET as listings } from "@/app/api/marketplace/listings/route";
import { GET as product } from "@/app/api/marketplace/product/[id]/route";
import { GET as categories } from "@/app/api/marketplace/categories/route";
import { GET as catalog } from "@/app/api/catalog/route";
import { GET as unknownApi } from "@/app/api/[...path]/route";
import { GET as download } from "@/app/downloads/[id]/route";
import { CATEGORIES } from "@/lib/marketplace/constants";
import { CATALOG_PAGE_SIZE, LISTING_LIMIT } from "@/lib/marketplace/schemas";
import { getDb, disconnectDb } from "@/lib/db";
import { call, expectProblem } from "../helpers/http";

afterAll(() => disconnectDb());

async function allListings(query = ""): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const r = await call(listings, `/api/marketplace/listings?limit=${LISTING_LIMIT.max}&page=${page}${query}`);
    expect(r.status).toBe(200);
    out.push(...r.body.products);
    if (page >= r.body.pages) return out;
  }
}

describe("GET /api/marketplace/listings", () => {
  it("lists the seeded catalogue with a default page size and the API headers", async () => {
    const r = await call(listings, "/api/marketplace/listings");
    expect(r.status).toBe(200);
    expect(r.body.total).toBeGreaterThanOrEqual(24);
    expect(r.body.page).toBe(1);
    expect(r.body.limit).toBe(LISTING_LIMIT.default);
    expect(r.body.products).toHaveLength(Math.min(LISTING_LIMIT.default, r.body.total));
    expect(r.headers.get("link")).toMatch(/<http:\/\/localhost:3000\/api\/mcp>; rel="mcp"/);
    expect(r.headers.get("cache-control")).toContain("max-age");
    expect(r.headers.get("content-type")).toContain("application/json");
    const p = r.body.products[0];
    expect(p).toMatchObject({
      id: expect.any(String),
      plugin_id: expect.any(String),
      price_cents: expect.any(Number),
      price_display: expect.stringMatching(/^[$€£][\d,]+\.\d\d (USD|EUR|GBP)$/),
      icon_url: expect.stringMatching(/^http:\/\/localhost:3000\/icons\//),
      product_page: `http://localhost:3000/products/${p.id}`,
    });
    // Other suites list products in other currencies meanwhile: the code shown is the product's own.
    expect(p.price_display.endsWith(String(p.currency).toUpperCase())).toBe(true);
  });

  it("sorts by every order it offers", async () => {
    const check = async (sort: string, key: (p: any) => number | string, dir: 1 | -1) => {
      const list = await allListings(`&sort=${sort}`);
      for (let i = 1; i < list.length; i++) {
        const a = key(list[i - 1]);
        const b = key(list[i]);
        expect(dir === 1 ? a <= b : a >= b, `${sort}: ${a} before ${b}`).toBe(true);
      }
    };
    await check("price_asc", (p) => p.price_cents, 1);
    await check("price_desc", (p) => p.price_cents, -1);
    await check("newest", (p) => p.created_at, -1);
    const popular = await allListings("&sort=popular");
    const sales = await getDb().product.findMany({ where: { status: "active" }, select: { id: true, salesCount: true } });
    const byId = new Map(sales.map((s) => [s.id, s.salesCount]));
    for (let i = 1; i < popular.length; i++) expect(byId.get(popular[i - 1].id)!).toBeGreaterThanOrEqual(byId.get(popular[i].id)!);
  });

  it("filters by category and search, case-insensitively and by every word", async () => {
    const audio = await allListings("&category=audio-plugins");
    expect(audio.length).toBeGreaterThan(0);
    expect(audio.every((p) => p.category === "audio-plugins")).toBe(true);

    const sample = audio[0];
    const word = sample.name.split(" ")[0];
    const found = await allListings(`&search=${encodeURIComponent(word.toUpperCase())}`);
    expect(found.map((p) => p.id)).toContain(sample.id);

    const both = await allListings(`&search=${encodeURIComponent(`${word} ${sample.developer}`)}`);
    expect(both.map((p) => p.id)).toContain(sample.id);
    const none = await allListings(`&search=${encodeURIComponent(`${word} zzqqxxnotaword`)}`);
    expect(none).toHaveLength(0);
  });

  it("treats LIKE wildcards in a search as plain characters", async () => {
    for (const s of ["%", "_", "%_%", "\\", "zzq\\", "zz%qq"]) {
      const r = await call(listings, `/api/marketplace/listings?search=${encodeURIComponent(s)}`);
      expect(r.status, s).toBe(200);
      expect(r.body.total, s).toBe(0);
    }
    const before = await getDb().product.count();
    const r = await call(listings, `/api/marketplace/listings?search=${encodeURIComponent(`'; DROP TABLE "Product"; --`)}`);
    expect(r.status).toBe(200);
    expect(await getDb().product.count()).toBe(before);
  });

  it("pages without overlap and answers an empty page past the end", async () => {
    const a = await call(listings, "/api/marketplace/listings?limit=5&page=1");
    const b = await call(listings, "/api/marketplace/listings?limit=5&page=2");
    const ids = new Set([...a.body.products, ...b.body.products].map((p: any) => p.id));
    expect(ids.size).toBe(10);
    const far = await call(listings, "/api/marketplace/listings?page=999");
    expect(far.status).toBe(200);
    expect(far.body.products).toEqual([]);
    expect(far.body.page).toBe(999);
  });

  it.each([
    ["category=not-a-category", "category"],
    ["sort=cheapest", "sort"],
    ["page=-1", "page"],
    ["page=0", "page"],
    ["page=abc", "page"],
    ["page=1.5", "page"],
    ["limit=0", "limit"],
    ["limit=100000", "limit"],
    [`search=${"x".repeat(10_000)}`, "search"],
  ])("answers 400 naming the parameter for %s", async (query, name) => {
    const r = await call(listings, `/api/marketplace/listings?${query}`);
    expectProblem(r, 400, "invalid_query");
    expect(r.body.errors[0]).toMatchObject({ in: "query", name });
    expect(r.body.detail).toContain(`"${name}"`);
    expect(r.headers.get("cache-control")).toBe("no-store");
  });
});

/**
 * A listed product of the demo catalogue (its download is served here), as the listings show it. Other test files
 * list products of their own, so it is found by name rather than expected on the first page.
 */
async function demoProduct(): Promise<any> {
  const row = await getDb().product.findFirstOrThrow({
    where: { status: "active", downloadUrl: { startsWith: "/downloads/" } },
    select: { id: true, name: true },
  });
  const found = await call(listings, `/api/marketplace/listings?limit=50&search=${encodeURIComponent(row.name)}`);
  return found.body.products.find((p: { id: string }) => p.id === row.id);
}

describe("GET /api/marketplace/product/{id}", () => {
  it("returns the product with developer info, images and pricing", async () => {
    // A product of the demo catalogue (other test files add products of their own).
    const first = await demoProduct();
    const r = await call(product, `/api/marketplace/product/${first.id}`, { params: { id: first.id } });
    expect(r.status).toBe(200);
    const p = r.body.product;
    expect(p.id).toBe(first.id);
    expect(p.developer_info).toMatchObject({ id: first.developer_id, name: first.developer, product_count: expect.any(Number) });
    expect(p.developer_info.products_url).toContain(first.developer_id);
    expect(p.images.length).toBeGreaterThan(0);
    for (const img of p.images) expect(img).toMatch(/^http:\/\/localhost:3000\//);
    expect(p.pricing).toMatchObject({ price_cents: first.price_cents, price_display: first.price_display, platform_fee_percent: 5 });
    expect(p.pricing.license).toMatch(/machine/);
  });

  it("answers 404 for unknown and unlisted products, 400 for malformed ids", async () => {
    expectProblem(await call(product, "/api/marketplace/product/nope", { params: { id: "nope" } }), 404, "product_not_found");
    const bad = await call(product, "/api/marketplace/product/x", { params: { id: "../../etc/passwd" } });
    expectProblem(bad, 400, "invalid_path");

    const db = getDb();
    const victim = await db.product.findFirstOrThrow({ where: { status: "active" }, orderBy: { id: "asc" } });
    await db.product.update({ where: { id: victim.id }, data: { status: "unlisted" } });
    try {
      expectProblem(await call(product, `/api/marketplace/product/${victim.id}`, { params: { id: victim.id } }), 404, "product_not_found");
      const listed = await allListings();
      expect(listed.map((p) => p.id)).not.toContain(victim.id);
    } finally {
      await db.product.update({ where: { id: victim.id }, data: { status: "active" } });
    }
  });
});

describe("GET /api/marketplace/categories", () => {
  it("counts active listings in every category, matching the listing totals", async () => {
    const r = await call(categories, "/api/marketplace/categories");
    expect(r.status).toBe(200);
    expect(r.body.categories.map((c: any) => c.category)).toEqual([...CATEGORIES]);
    let sum = 0;
    for (const { category, count } of r.body.categories as { category: string; count: number }[]) {
      expect(count).toBeGreaterThan(0);
      const l = await call(listings, `/api/marketplace/listings?category=${category}&limit=1`);
      expect(l.body.total, category).toBe(count);
      const c = await call(catalog, `/api/catalog?category=${category}`);
      expect(c.body.total, category).toBe(count);
      sum += count;
    }
    const all = await call(listings, "/api/marketplace/listings?limit=1");
    expect(all.body.total).toBe(sum);
  });
});

describe("GET /api/catalog", () => {
  it("has every field of the catalog response", async () => {
    const r = await call(catalog, "/api/catalog");
    expect(r.status).toBe(200);
    const b = r.body;
    expect(b).toMatchObject({
      catalog_version: "1.0",
      issuer: "http://localhost:3000",
      generated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      total: expect.any(Number),
      _oacs: {
        version: "0.1",
        spec: "http://localhost:3000/oacs",
        discovery: "http://localhost:3000/api/discover",
        catalog: "http://localhost:3000/api/catalog",
      },
      _agent_howto: expect.any(Object),
      filters: {
        categories: [...CATEGORIES],
        sort_options: ["newest", "price_asc", "price_desc", "name", "rating"],
        current: { category: null, search: null, sort: "newest", page: 1 },
      },
    });
    expect(Object.keys(b._links).sort()).toEqual(["discover", "mcp", "next", "openapi", "self", "terms", "tools"]);
    expect(b.products).toHaveLength(Math.min(CATALOG_PAGE_SIZE, b.total));
    const fields = [
      "id",
      "name",
      "plugin_id",
      "description",
      "price_cents",
      "price_display",
      "currency",
      "category",
      "developer",
      "max_machines",
      "download_url",
      "icon_url",
      "created_at",
      "compatibility",
      "inputs",
      "outputs",
      "seat_model",
      "trial_available",
      "platforms",
      "min_version",
      "checkout_url",
      "product_page",
      "latest_version",
    ];
    // A bundle (made by another file on the same database, and newest first) also names what it includes.
    for (const p of b.products) {
      expect(Object.keys(p).sort()).toEqual([...fields, ...(p.bundle ? ["bundle"] : [])].sort());
      if (p.bundle) expect(p.bundle.items.length).toBeGreaterThan(0);
      expect(typeof p.min_version).toBe("string");
      if (p.latest_version !== null) expect(Object.keys(p.latest_version).sort()).toEqual(["published_at", "version"]);
      expect(p.product_page).toBe(`http://localhost:3000/products/${p.id}`);
      expect(p.checkout_url).toMatch(/^http:\/\/localhost:3000\//);
      expect(p.max_machines).toBeGreaterThanOrEqual(1);
    }
  });

  it("links to the next page until the last, where next is null", async () => {
    const first = await call(catalog, "/api/catalog?sort=name");
    const total = first.body.total;
    const seen: string[] = [...first.body.products.map((p: any) => p.id)];
    let links = first.body._links;
    let guard = 0;
    while (links.next && guard++ < 50) {
      const u = new URL(links.next);
      expect(u.searchParams.get("sort")).toBe("name");
      const r = await call(catalog, u.pathname + u.search);
      expect(r.status).toBe(200);
      seen.push(...r.body.products.map((p: any) => p.id));
      links = r.body._links;
    }
    expect(links.next).toBeNull();
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    const sorted = [...first.body.products].map((p: any) => p.name);
    expect(sorted).toEqual([...sorted].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it("echoes current filters and refuses unknown values", async () => {
    const r = await call(catalog, "/api/catalog?category=dev-tools&search=git&sort=price_desc&page=1");
    expect(r.body.filters.current).toEqual({ category: "dev-tools", search: "git", sort: "price_desc", page: 1 });
    expectProblem(await call(catalog, "/api/catalog?sort=popular"), 400, "invalid_query");
    expectProblem(await call(catalog, "/api/catalog?category=music"), 400, "invalid_query");
  });
});

describe("other paths", () => {
  it("answers unknown API paths with a 404 problem document", async () => {
    expectProblem(await call(unknownApi, "/api/nothing/here"), 404, "route_not_found");
  });

  it("serves the demo download for a seeded product", async () => {
    // A product of the demo catalogue (other test files add products of their own).
    const first = await demoProduct();
    const r = await call(download, `/downloads/${first.id}`, { params: { id: first.id } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-disposition")).toContain("attachment");
    expect(r.text).toContain(first.plugin_id);
  });
});
