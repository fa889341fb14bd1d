import { afterAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { getDb, disconnectDb, dbEngine } from "@/lib/db";
import { loadMigrations, migrate } from "@/lib/db/migrate";
import { env } from "@/lib/env";
import { seedDemoCatalogue } from "@/prisma/seed";
import { CATEGORIES } from "@/lib/marketplace/constants";

afterAll(() => disconnectDb());

describe("migrations", () => {
  it("recorded every committed migration in _prisma_migrations as Prisma does", async () => {
    const migrations = loadMigrations(dbEngine());
    expect(migrations.length).toBeGreaterThan(0);
    const rows = await getDb().$queryRawUnsafe<Array<{ migration_name: string; checksum: string; finished_at: unknown; applied_steps_count: number | bigint }>>(
      `SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(migrations.map((m) => m.name));
    for (const [i, row] of rows.entries()) {
      expect(row.checksum).toBe(createHash("sha256").update(migrations[i]!.sql).digest("hex"));
      expect(row.finished_at).not.toBeNull();
      expect(Number(row.applied_steps_count)).toBe(1);
    }
  });

  it("applies nothing twice, also when several processes start at once", async () => {
    const results = await Promise.all([migrate(env().DATABASE_URL), migrate(env().DATABASE_URL), migrate(env().DATABASE_URL)]);
    for (const r of results) expect(r.applied).toEqual([]);
  });

  it("refuses to run over a migration that was edited after it was applied", async () => {
    const db = getDb();
    const [row] = await db.$queryRawUnsafe<Array<{ id: string; checksum: string }>>(`SELECT id, checksum FROM "_prisma_migrations" LIMIT 1`);
    await db.$executeRawUnsafe(`UPDATE "_prisma_migrations" SET checksum = 'tampered' WHERE id = '${row!.id}'`);
    try {
      await expect(migrate(env().DATABASE_URL)).rejects.toThrow(/changed after it was applied/);
    } finally {
      await db.$executeRawUnsafe(`UPDATE "_prisma_migrations" SET checksum = '${row!.checksum}' WHERE id = '${row!.id}'`);
    }
    await expect(migrate(env().DATABASE_URL)).resolves.toMatchObject({ applied: [] });
  });
});

describe("demo catalogue", () => {
  it("was seeded once with realistic variety", async () => {
    const db = getDb();
    const products = await db.product.findMany({ include: { developer: true } });
    const developers = await db.developer.count();
    expect(products.length).toBeGreaterThanOrEqual(24);
    expect(developers).toBeGreaterThanOrEqual(6);
    for (const c of CATEGORIES) expect(products.some((p) => p.category === c), c).toBe(true);
    expect(new Set(products.map((p) => p.maxMachines))).toEqual(new Set([1, 2, 3, 4, 5]));
    expect(products.filter((p) => p.trialAvailable && p.trialDays > 0).length).toBeGreaterThanOrEqual(3);
    expect(new Set(products.map((p) => p.priceCents)).size).toBeGreaterThan(10);
    for (const p of products) {
      expect(p.iconUrl).toMatch(/^\/icons\/.+\.svg$/);
      expect(p.searchText).toContain(p.name.toLowerCase());
      expect(Array.isArray(p.platforms)).toBe(true);
    }
  });

  it("does nothing on a database that already has data", async () => {
    const before = await getDb().product.count();
    expect(await seedDemoCatalogue(getDb())).toBe(0);
    expect(await getDb().product.count()).toBe(before);
  });
});
