import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomInt } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { GET as listings } from "@/app/api/marketplace/listings/route";
import { removeProduct, restoreProduct } from "@/lib/admin/products";
import { updateDeveloperProfile } from "@/lib/selling/developer-profile";
import { setProductStatus, updateProduct } from "@/lib/selling/products";
import { dbEngine, disconnectDb, getDb } from "@/lib/db";
import { loadMigrations, migrate } from "@/lib/db/migrate";
import { CATEGORIES } from "@/lib/marketplace/constants";
import { countCategories } from "@/lib/marketplace/count-categories";
import { listProducts } from "@/lib/marketplace/list-products";
import { clearReadCache } from "@/lib/cache/read-cache";
import { productInputSchema, type ProductSort } from "@/lib/marketplace/schemas";
import { call } from "../helpers/http";
import { createTestProduct, SELLER_TRUST, sellingDeveloper, testProductBody } from "../helpers/sellers";
import { clockPast } from "../helpers/clock";

afterAll(() => disconnectDb());

/** Letters only, so a made-up word is one token everywhere; random, so no other product has it. */
const letters = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + randomInt(26))).join("");
const run = `q${letters(7)}`;
const unique = () => `${Date.now().toString(36)}${letters(4)}`;

async function search(q: string, sort?: ProductSort, extra: { developerId?: string; category?: (typeof CATEGORIES)[number] } = {}) {
  clearReadCache();
  return (await listProducts({ search: q, sort, page: 1, limit: 50, ...extra })).rows.map((r) => r.name);
}

let developerId: string;
const product = (name: string, fields: Record<string, unknown> = {}) => createTestProduct(developerId, name, `com.test.search${unique()}`, fields);

beforeAll(async () => {
  const dev = await sellingDeveloper(`search-${unique()}@example.com`, { name: `Searchlight ${run}`, website: null, bio: "" });
  developerId = dev.id;
});

describe("spelling variants", () => {
  it.each([
    ["Colour Grader", "color"],
    ["Color Picker", "colour"],
    ["Grey Box", "gray"],
    ["Analyse Tool", "analyze"],
    ["Center Panel", "centre"],
    ["Licence Helper", "license"],
    ["Organizer Kit", "organiser"],
    ["Visualiser Pro", "visualizer"],
  ])("%s is found by %s", async (name, query) => {
    const full = `${name} ${run}`;
    await product(full);
    expect(await search(`${query} ${run}`)).toContain(full);
  });
});

describe("stemming", () => {
  it.each([
    ["Bus Compressor", "compressors"],
    ["Mix Console", "mixing"],
    ["Tape Loops", "loop"],
  ])("%s is found by %s", async (name, query) => {
    const full = `${name} ${run}`;
    await product(full);
    expect(await search(`${query} ${run}`)).toContain(full);
  });
});

describe("a typo in a product name", () => {
  // Made-up words: whatever is found is found because of the typo correction, not a neighbouring real word.
  // Random, but with two different letters where the transposition swaps them (a doubled letter would swap to itself).
  let six = `k${letters(5)}`;
  while (six[2] === six[3]) six = `k${letters(5)}`;
  const ten = `z${letters(9)}`;
  let name: string;
  beforeAll(async () => {
    name = `${six[0]!.toUpperCase()}${six.slice(1)} ${ten}`;
    await product(name);
  });

  const edits: [string, (w: string) => string][] = [
    ["substitution", (w) => w.slice(0, 3) + (w[3] === "x" ? "y" : "x") + w.slice(4)],
    ["deletion", (w) => w.slice(0, 2) + w.slice(3)],
    ["insertion", (w) => `${w.slice(0, 3)}e${w.slice(3)}`],
    ["transposition", (w) => w.slice(0, 2) + w[3]! + w[2]! + w.slice(4)],
  ];
  it.each(edits)("one %s in a six-letter word finds it", async (_kind, edit) => {
    const typo = edit(six);
    expect(typo).not.toBe(six);
    expect(await search(typo)).toEqual([name]);
  });

  it("two edits in a ten-letter word find it, two in a six-letter word do not", async () => {
    expect(await search(edits[0]![1](edits[1]![1](ten)))).toEqual([name]);
    expect(await search(edits[0]![1](edits[1]![1](six)))).toEqual([]);
  });

  it("words under four letters are not corrected", async () => {
    // "x…" is a prefix of no other word of this product; the second word keeps other products out.
    const short = `x${letters(2)}`;
    const word = `y${letters(7)}`;
    await product(`Tiny ${short} ${word}`);
    expect(await search(`${short} ${word}`)).toEqual([`Tiny ${short} ${word}`]);
    const typo = `x${short[1] === "q" ? "r" : "q"}${short[2]}`;
    expect(await search(`${typo} ${word}`)).toEqual([]);
  });
});

describe("relevance", () => {
  it("ranks a match in the name above one in the description, unless another order is chosen", async () => {
    const word = `w${letters(7)}`;
    const inName = `Ranked ${word} ${run}`;
    const inText = `Other ${run}`;
    await product(inName);
    await clockPast();
    await product(inText, { description: `A product whose description, not its name, says ${word} once.` });
    expect(await search(word)).toEqual([inName, inText]);
    expect(await search(word, "relevance")).toEqual([inName, inText]);
    expect(await search(word, "newest")).toEqual([inText, inName]);
    expect(await search(word, "name")).toEqual([inText, inName]);
  });

  it("is the API's order for a search without a sort, newest without a search", async () => {
    const word = `v${letters(7)}`;
    await product(`Beta ${word} ${run}`);
    await clockPast();
    await product(`Alpha ${run}`, { description: `Mentions ${word} in passing, at the end of a description.` });
    const names = async (query: string) => {
      clearReadCache();
      const r = await call(listings, `/api/marketplace/listings?${query}`);
      expect(r.status, r.text).toBe(200);
      return r.body.products.map((p: { name: string }) => p.name);
    };
    expect(await names(`search=${word}`)).toEqual([`Beta ${word} ${run}`, `Alpha ${run}`]);
    expect(await names(`search=${word}&sort=newest`)).toEqual([`Alpha ${run}`, `Beta ${word} ${run}`]);
    expect(await names(`search=${word}&sort=relevance`)).toEqual([`Beta ${word} ${run}`, `Alpha ${run}`]);
    // Without a search, relevance has nothing to rank by: newest first.
    expect(await names(`sort=relevance&limit=1`)).toEqual([`Alpha ${run}`]);
  });
});

describe("query syntax", () => {
  it.each([
    '"',
    '""',
    "'",
    "*",
    "tape*",
    "NEAR(tape warmth)",
    "tape AND warmth",
    "tape OR",
    "NOT tape",
    "-tape",
    "tape:warmth",
    "name:tape",
    "^tape",
    "(tape",
    "tape)",
    "{tape}",
    "[tape]",
    "tape & | ! <->",
    "\\",
    '\'; DROP TABLE "Product"; --',
    "a'b:*",
  ])("%s never errors", async (q) => {
    const r = await call(listings, `/api/marketplace/listings?search=${encodeURIComponent(q)}`);
    expect(r.status, r.text).toBe(200);
  });

  it("matches nothing when nothing searchable is left", async () => {
    for (const q of ["*", "()", '"', "%_"]) {
      const r = await call(listings, `/api/marketplace/listings?search=${encodeURIComponent(q)}`);
      expect(r.body.total, q).toBe(0);
    }
  });
});

describe("the index follows every change", () => {
  it("to a product's name and words", async () => {
    const before = `b${letters(7)}`;
    const after = `a${letters(7)}`;
    const created = await product(`Renamed ${before}`);
    expect(await search(before)).toEqual([`Renamed ${before}`]);
    await updateProduct(developerId, created.id, productInputSchema.parse(testProductBody(`Renamed ${after}`, created.pluginId)));
    expect(await search(after)).toEqual([`Renamed ${after}`]);
    expect(await search(before)).toEqual([]);
  });

  it("to its listing by the seller and the operator", async () => {
    const word = `u${letters(7)}`;
    const created = await product(`Listed ${word}`);
    await setProductStatus(developerId, created.id, "unlisted");
    expect(await search(word)).toEqual([]);
    await setProductStatus(developerId, created.id, "active");
    expect(await search(word)).toEqual([`Listed ${word}`]);
    const admin = { email: "operator@example.com" };
    await removeProduct(admin, created.id, "Test removal");
    expect(await search(word)).toEqual([]);
    await restoreProduct(admin, created.id);
    expect(await search(word)).toEqual([`Listed ${word}`]);
  });

  it("to the developer's name", async () => {
    const before = `d${letters(7)}`;
    const after = `e${letters(7)}`;
    const dev = await sellingDeveloper(`rename-search-${unique()}@example.com`, { name: `${before} Audio`, website: null, bio: "" });
    await createTestProduct(dev.id, `Renamed Dev Product ${run}`, `com.test.searchdev${unique()}`);
    expect(await search(before)).toEqual([`Renamed Dev Product ${run}`]);
    await updateDeveloperProfile(dev.id, { name: `${after} Tools`, website: null, bio: "", ...SELLER_TRUST });
    expect(await search(after)).toEqual([`Renamed Dev Product ${run}`]);
    expect(await search(before)).toEqual([]);
  });

  it("for every product in the database, seeded or written by any test so far", async () => {
    expect(await staleIndexRows()).toEqual([]);
  });
});

describe("category counts", () => {
  it("follow the search and the developer filter", async () => {
    const word = `c${letters(7)}`;
    const other = await sellingDeveloper(`counts-${unique()}@example.com`, { name: `Counter ${run}`, website: null, bio: "" });
    await product(`Count One ${word}`, { category: "audio-plugins" });
    await product(`Count Two ${word}`, { category: "audio-plugins" });
    await product(`Count Three ${word}`, { category: "dev-tools" });
    await createTestProduct(other.id, `Count Four ${word}`, `com.test.searchcount${unique()}`, { category: "dev-tools" });

    clearReadCache();
    const bySearch = await countCategories({ search: word });
    expect(bySearch.filter((c) => c.count > 0)).toEqual([
      { category: "audio-plugins", count: 2 },
      { category: "dev-tools", count: 2 },
    ]);
    const bySearchAndDeveloper = await countCategories({ search: word, developerId: other.id });
    expect(bySearchAndDeveloper.filter((c) => c.count > 0)).toEqual([{ category: "dev-tools", count: 1 }]);
    // Each count is what choosing that category lists.
    for (const c of await countCategories({ developerId })) {
      clearReadCache();
      const listed = await listProducts({ developerId, category: c.category, page: 1, limit: 1 });
      expect(listed.total, c.category).toBe(c.count);
    }
    expect(await countCategories({ search: "*" })).toEqual(CATEGORIES.map((category) => ({ category, count: 0 })));
  });
});

describe("the migration", () => {
  it("indexes the products that exist when it runs", async () => {
    const target = await emptyDatabase();
    const earlier = mkdtempSync(join(tmpdir(), "ilm-migrations-"));
    try {
      // The migrations before this one, from a copy of the folder that stops short of it.
      const engine = dbEngine();
      const all = loadMigrations(engine);
      const mine = all.findIndex((m) => m.name.endsWith("_product_search"));
      expect(mine).toBeGreaterThan(0);
      for (const m of all.slice(0, mine))
        cpSync(join("prisma/migrations", engine, m.name), join(earlier, "prisma/migrations", engine, m.name), { recursive: true });
      await migrate(target.url, earlier);
      await target.exec(
        `INSERT INTO "Developer" ("id", "email", "name", "createdAt", "updatedAt") VALUES ('dev-old', 'old@example.com', 'Oldtimer Audio', ${target.now}, ${target.now})`,
      );
      await target.exec(
        `INSERT INTO "Product" ("id", "pluginId", "developerId", "name", "description", "priceCents", "category", "maxMachines", "platforms", "compatibility", "inputs", "outputs", "images", "downloadUrl", "iconUrl", "updatedAt")
         VALUES ('old-colour', 'com.old.colour', 'dev-old', 'Colour Mixer', 'Written before search was indexed.', 500, 'audio-plugins', 1, '["linux"]', '["VST3"]', '[]', '[]', '[]', 'https://example.com', '/icons/x.svg', ${target.now})`,
      );
      const { applied } = await migrate(target.url);
      expect(applied[0]).toBe(all[mine]!.name);
      for (const word of ["colour", "mixers", "oldtimer", "vst3", "linux"]) expect(await target.count(word), word).toBe(1);
      expect(await target.count("nowhere")).toBe(0);
    } finally {
      rmSync(earlier, { recursive: true, force: true });
      await target.drop();
    }
  });
});

/** Products whose index row is missing or differs from what the product and its developer say now. */
async function staleIndexRows(): Promise<string[]> {
  const db = getDb();
  if (dbEngine() === "postgresql") {
    const rows = await db.$queryRaw<{ id: string }[]>`
      SELECT p."id" FROM "Product" p JOIN "Developer" d ON d."id" = p."developerId"
      LEFT JOIN "ProductSearch" s ON s."productId" = p."id"
      WHERE s."productId" IS NULL OR s."name" <> p."name" OR s."tagline" <> p."tagline" OR s."developer" <> d."name"
         OR s."description" <> p."description" OR s."tags" NOT LIKE '%' || p."pluginId" || '%'
         OR NOT EXISTS (SELECT 1 FROM "ProductSearchWord" w WHERE w."productId" = p."id")`;
    return rows.map((r) => r.id);
  }
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT p."id" FROM "Product" p JOIN "Developer" d ON d."id" = p."developerId"
    WHERE (SELECT COUNT(*) FROM "ProductSearch" s
           WHERE s."productId" = p."id" AND s."name" = p."name" AND s."tagline" = p."tagline" AND s."developer" = d."name"
             AND s."description" = p."description" AND s."tags" LIKE '%' || p."pluginId" || '%') <> 1
       OR (SELECT COUNT(*) FROM "ProductSearch" s WHERE s."productId" = p."id") <> 1
       OR (SELECT COUNT(*) FROM "ProductWord" w WHERE w."productId" = p."id") <> 1`;
  return rows.map((r) => r.id);
}

/** A new, empty database on this project's engine, written and read without Prisma. */
async function emptyDatabase() {
  const name = `ilm_search_${Date.now().toString(36)}${letters(4)}`;
  if (dbEngine() === "sqlite") {
    const path = join(tmpdir(), `${name}.db`);
    const withDb = <T>(fn: (db: Database.Database) => T) => {
      const db = new Database(path);
      try {
        return fn(db);
      } finally {
        db.close();
      }
    };
    return {
      url: `file:${path}`,
      now: String(Date.now()),
      exec: (sql: string) => Promise.resolve(withDb((db) => db.exec(sql))),
      count: (word: string) =>
        Promise.resolve(
          withDb((db) => (db.prepare(`SELECT COUNT(*) AS n FROM "ProductSearch" WHERE "ProductSearch" MATCH ?`).get(`"${word}"`) as { n: number }).n),
        ),
      drop: () => {
        for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });
        return Promise.resolve();
      },
    };
  }
  const server = process.env.TEST_DATABASE_URL!;
  const url = new URL(server);
  url.pathname = `/${name}`;
  const query = async (connectionString: string, sql: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      return await client.query(sql, values);
    } finally {
      await client.end();
    }
  };
  await query(server, `CREATE DATABASE "${name}"`);
  return {
    url: url.toString(),
    now: "now()",
    exec: async (sql: string) => {
      await query(url.toString(), sql);
    },
    count: async (word: string) =>
      Number(
        (await query(url.toString(), `SELECT COUNT(*) AS n FROM "ProductSearch" WHERE "document" @@ plainto_tsquery('english', $1)`, [word])).rows[0]
          .n,
      ),
    drop: async () => {
      await query(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
