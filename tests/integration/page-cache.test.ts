import type { IncomingMessage } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { contentVersion } from "@/lib/cache/content-version";
import { updateProduct } from "@/lib/selling/products";
import { dbEngine, disconnectDb, getDb } from "@/lib/db";
import { pageCacheKey } from "@/lib/transports/page-cache";
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

  it("never a search, a personal page, a signed-in visitor, a router payload or a write", () => {
    expect(pageCacheKey(req("/?q=reverb"))).toBeNull();
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
