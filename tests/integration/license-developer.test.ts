import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbEngine, disconnectDb, getDb } from "@/lib/db";
import { issueLicense } from "@/lib/licensing/issue-license";
import { searchLicenses } from "@/lib/seller-api/licenses";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

/**
 * A license's seller column (`License.developerId`, migration `license_developer`), which the seller's license list
 * walks newest first: kept by database triggers from the product, never by the application, on both engines.
 */
const run = randomBytes(4).toString("hex");
let owner: { id: string };
let other: { id: string };
let product: { id: string };
let keys: string[] = [];

const developerOf = async (key: string) => (await getDb().license.findUniqueOrThrow({ where: { key }, select: { developerId: true } })).developerId;

beforeAll(async () => {
  owner = await sellingDeveloper(`ld-owner-${run}@example.com`, { name: `LD Owner ${run}`, website: null, bio: "" });
  other = await sellingDeveloper(`ld-other-${run}@example.com`, { name: `LD Other ${run}`, website: null, bio: "" });
  product = await createTestProduct(owner.id, `Seller Column ${run}`, `com.ld.col${run}`, { max_machines: 2 });
  keys = [];
  for (let n = 0; n < 3; n++) {
    const license = await issueLicense(getDb(), {
      productId: product.id,
      buyerEmail: `ld-${run}-${n}@example.com`,
      maxMachines: 2,
      source: "complimentary",
    });
    keys.push(license.key);
    // Issued a second apart, so "newest first" has one answer.
    await getDb().license.update({ where: { key: license.key }, data: { issuedAt: new Date(Date.now() - 60_000 + n * 1_000) } });
  }
});

afterAll(async () => {
  await disconnectDb();
});

describe("License.developerId", () => {
  it("has its triggers after every migration", async () => {
    const names =
      dbEngine() === "sqlite"
        ? (
            await getDb().$queryRawUnsafe<Array<{ name: string }>>(
              `SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'License_developer%'`,
            )
          ).map((r) => r.name)
        : (
            await getDb().$queryRawUnsafe<Array<{ name: string }>>(`SELECT tgname AS name FROM pg_trigger WHERE tgname LIKE 'License_developer%'`)
          ).map((r) => r.name);
    const expected =
      dbEngine() === "sqlite"
        ? ["License_developer_insert", "License_developer_product", "License_developer_update"]
        : ["License_developer", "License_developer_product"];
    expect(names.sort()).toEqual(expected);
  });

  it("is the product's seller on every license issued, though the application never writes it", async () => {
    for (const key of keys) expect(await developerOf(key)).toBe(owner.id);
  });

  it("puts back a write of anything else", async () => {
    await getDb().$executeRaw`UPDATE "License" SET "developerId" = ${other.id} WHERE "key" = ${keys[0]}`;
    expect(await developerOf(keys[0]!)).toBe(owner.id);
    await getDb().$executeRaw`UPDATE "License" SET "developerId" = NULL WHERE "key" = ${keys[0]}`;
    expect(await developerOf(keys[0]!)).toBe(owner.id);
  });

  it("follows a product that changes hands, and the license lists follow it", async () => {
    const listed = async (developerId: string) => (await searchLicenses(developerId, { limit: 50 })).licenses.map((l) => l.key).sort();
    expect(await listed(owner.id)).toEqual([...keys].sort());
    expect(await listed(other.id)).toEqual([]);
    await getDb().product.update({ where: { id: product.id }, data: { developerId: other.id } });
    try {
      for (const key of keys) expect(await developerOf(key)).toBe(other.id);
      expect(await listed(other.id)).toEqual([...keys].sort());
      expect(await listed(owner.id)).toEqual([]);
    } finally {
      await getDb().product.update({ where: { id: product.id }, data: { developerId: owner.id } });
    }
    for (const key of keys) expect(await developerOf(key)).toBe(owner.id);
  });

  it("lists newest first and pages with the cursor, scoped to a product when asked", async () => {
    const first = await searchLicenses(owner.id, { limit: 2 });
    expect(first.licenses.map((l) => l.key)).toEqual([keys[2], keys[1]]);
    const second = await searchLicenses(owner.id, { limit: 2, cursor: first.next_cursor! });
    expect(second.licenses.map((l) => l.key)).toEqual([keys[0]]);
    expect(second.next_cursor).toBeNull();
    expect((await searchLicenses(owner.id, { limit: 50, product_id: product.id })).licenses).toHaveLength(3);
    // Another seller's product id finds nothing, not that seller's licenses.
    expect((await searchLicenses(other.id, { limit: 50, product_id: product.id })).licenses).toHaveLength(0);
  });
});
