import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { contentVersion } from "@/lib/cache/content-version";
import { updateProduct } from "@/lib/selling/products";
import { dbEngine, disconnectDb, getDb } from "@/lib/db";
import { MAX_SEARCH_ENTRIES, pageCacheKey, servePageFromCache } from "@/lib/transports/page-cache";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { createTestProduct, sellingDeveloper, testProductBody } from "../helpers/sellers";

/**
 * The content version behind the page cache (lib/transports/page-cache.ts): database triggers raise it on every write to
 * what the storefront shows, whichever code (or none) makes the write, and leave it alone for licensing traffic; a
 * migration that redefines a watched table would drop its triggers, which the first test catches.
 */

afterAll(() => disconnectDb());

const WATCHED = ["Product", "Developer", "Release", "Artifact", "Review", "ProductMedia"];
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const version = async () => {
  const v = await contentVersion();
  expect(v).not.toBeNull();
  return v!;
};

describe("the content version", () => {
  it("has its triggers on every watched table after all migrations", async () => {
    const db = getDb();
    if (dbEngine() === "postgresql") {
      const rows = await db.$queryRaw<Array<{ table: string }>>`
        SELECT c.relname AS "table" FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE t.tgname LIKE 'ContentVersion_%' AND NOT t.tgisinternal`;
      expect(rows.map((r) => r.table).sort()).toEqual([...WATCHED].sort());
    } else {
      const rows = await db.$queryRaw<Array<{ tbl_name: string; name: string }>>`
        SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ContentVersion_%'`;
      for (const table of WATCHED)
        expect(
          rows
            .filter((r) => r.tbl_name === table)
            .map((r) => r.name.split("_").pop())
            .sort(),
          table,
        ).toEqual(["delete", "insert", "update"]);
    }
  });

  it("rises with a product written through the application, and with one written straight to the database", async () => {
    const dev = await sellingDeveloper(`page-cache-${run}@example.com`, { name: `Cache Studio ${run}`, website: null, bio: "" });
    const v0 = await version();
    const product = await createTestProduct(dev.id, `Cached ${run}`, `com.test.pagecache${run}`);
    const v1 = await version();
    expect(v1).toBeGreaterThan(v0);
    await updateProduct(dev.id, product.id, productInputSchema.parse(testProductBody(`Cached Renamed ${run}`, product.pluginId)));
    const v2 = await version();
    expect(v2).toBeGreaterThan(v1);
    await getDb().$executeRaw`UPDATE "Product" SET "tagline" = ${`raw ${run}`} WHERE "id" = ${product.id}`;
    const v3 = await version();
    expect(v3).toBeGreaterThan(v2);
    await getDb().developer.update({ where: { id: dev.id }, data: { bio: `bio ${run}` } });
    expect(await version()).toBeGreaterThan(v3);
  });

  it("stays put for licensing traffic: licenses and activations are not what pages show", async () => {
    const product = await getDb().product.findFirstOrThrow({ where: { status: "active" } });
    const before = await version();
    const license = await getDb().license.create({
      data: {
        id: `lic-${run}`,
        key: `PC${run}`.slice(0, 19),
        productId: product.id,
        buyerEmail: `pc-${run}@example.com`,
        maxMachines: 1,
        source: "complimentary",
      },
    });
    await getDb().activation.create({ data: { id: `act-${run}`, licenseId: license.id, fingerprint: "f".repeat(64) } });
    expect(await version()).toBe(before);
  });
});

describe("which requests may be served from the page cache", () => {
  const req = (url: string, headers: Record<string, string> = {}, method = "GET") => ({ url, method, headers }) as unknown as IncomingMessage;

  it("the storefront's shared pages and the catalog, for anonymous visitors", () => {
    expect(pageCacheKey(req("/"))).toBe("/");
    expect(pageCacheKey(req("/?sort=price_asc&category=audio-plugins"))).toBe("/?category=audio-plugins&sort=price_asc");
    expect(pageCacheKey(req("/?page=50&category=dev-tools"))).toBe("/?category=dev-tools&page=50");
    expect(pageCacheKey(req("/products/tape-warmth"))).toBe("/products/tape-warmth");
    expect(pageCacheKey(req("/developers/dev-1"))).toBe("/developers/dev-1");
    expect(pageCacheKey(req("/api/catalog?page=2"))).toBe("/api/catalog?page=2");
    expect(pageCacheKey(req("/", {}, "HEAD"))).toBe("/");
  });

  it("a search of the home page, spelled as the page reads it", () => {
    expect(pageCacheKey(req("/?q=reverb"))).toBe("/?q=reverb");
    // Parameters sorted, and one spelling for one decoded search.
    expect(pageCacheKey(req("/?sort=price_asc&q=tape%20warmth"))).toBe("/?q=tape+warmth&sort=price_asc");
    expect(pageCacheKey(req("/?q=tape+warmth&sort=price_asc"))).toBe("/?q=tape+warmth&sort=price_asc");
    expect(pageCacheKey(req(`/?q=${"a".repeat(200)}`))).toBe(`/?q=${"a".repeat(200)}`);
  });

  it("never a search the page would read differently, nor one of the catalog", () => {
    // Each of these renders as another spelling would (trimmed, cut, control characters blanked) or not as a search.
    for (const query of ["q=", "q=%20reverb", "q=reverb%20", "q=a%00b", "q=a%0Ab", `q=${"a".repeat(201)}`, "q=a&q=b"]) {
      expect(pageCacheKey(req(`/?${query}`)), query).toBeNull();
    }
    expect(pageCacheKey(req("/api/catalog?q=reverb"))).toBeNull();
    expect(pageCacheKey(req("/developers/dev-1?q=reverb"))).toBeNull();
  });

  it("never a personal page, a signed-in visitor, a router payload or a write", () => {
    expect(pageCacheKey(req("/?category=a&category=b"))).toBeNull();
    expect(pageCacheKey(req("/products/tape-warmth?buy_error=x"))).toBeNull();
    expect(pageCacheKey(req("/api/catalog?search=reverb"))).toBeNull();
  });

  it("never a listing query outside the known values, so junk queries cannot fill the cache", () => {
    for (const query of [
      "category=nope",
      "sort=price",
      "page=0",
      "page=01",
      "page=51",
      "page=4711",
      "page=abc",
      "utm_source=x",
      "category=",
      "__proto__=",
      "constructor=x",
      "toString=1",
    ]) {
      expect(pageCacheKey(req(`/?${query}`)), query).toBeNull();
      expect(pageCacheKey(req(`/api/catalog?${query}`)), query).toBeNull();
    }
    expect(pageCacheKey(req("/licenses"))).toBeNull();
    expect(pageCacheKey(req("/dashboard"))).toBeNull();
    expect(pageCacheKey(req("/products/a/b"))).toBeNull();
    expect(pageCacheKey(req("/", { cookie: "ilm_session=x" }))).toBeNull();
    expect(pageCacheKey(req("/", { authorization: "Bearer x" }))).toBeNull();
    expect(pageCacheKey(req("/products/tape-warmth", { rsc: "1" }))).toBeNull();
    expect(pageCacheKey(req("/", { "next-router-prefetch": "1" }))).toBeNull();
    expect(pageCacheKey(req("/", {}, "POST"))).toBeNull();
  });
});

describe("searches in the page cache", () => {
  it("are kept apart: distinct searches push out only older searches, never the shared pages", async () => {
    // A stand-in for Next behind the cache, as server.ts puts it there: each render says which one it was.
    let renders = 0;
    const server = createServer((req, res) => {
      void servePageFromCache(req, res).then((served) => {
        // Not served from the cache: "Next" renders it.
        if (!served) {
          renders++;
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
          res.end(`<p>${req.url} render ${renders}</p>`);
        }
      });
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (path: string) => {
      const r = await fetch(base + path);
      return { cache: r.headers.get("x-page-cache"), body: await r.text() };
    };
    try {
      const product = await getDb().product.findFirstOrThrow({ where: { status: "active" } });
      const shared = [`/products/${product.id}`, "/", "/?category=audio-plugins"];
      for (const path of shared) expect((await get(path)).cache, path).toBe("miss");
      const first = await get("/?q=reverb");
      expect(first.cache).toBe("miss");
      const again = await get("/?q=reverb");
      expect(again.cache).toBe("hit");
      expect(again.body).toBe(first.body);
      // MAX_SEARCH_ENTRIES more distinct searches: the oldest search goes, the shared pages stay.
      for (let i = 0; i < MAX_SEARCH_ENTRIES; i++) expect((await get(`/?q=junk-${run}-${i}`)).cache).toBe("miss");
      for (const path of shared) expect((await get(path)).cache, path).toBe("hit");
      expect((await get(`/?q=junk-${run}-${MAX_SEARCH_ENTRIES - 1}`)).cache).toBe("hit");
      expect((await get(`/?q=junk-${run}-1`)).cache).toBe("hit");
      expect((await get("/?q=reverb")).cache).toBe("miss");
      // That miss kept "reverb" again and pushed out the next oldest search, junk 0.
      expect((await get(`/?q=junk-${run}-0`)).cache).toBe("miss");
      expect((await get("/?q=reverb")).cache).toBe("hit");
    } finally {
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});
