import { afterAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { getDb, disconnectDb, dbEngine } from "@/lib/db";
import { loadMigrations, migrate } from "@/lib/db/migrate";
import { env } from "@/lib/env";
import { seedDemoCatalogue } from "@/prisma/seed";
import { CATEGORIES } from "@/lib/marketplace/constants";

afterAll(() => disconnectDb());

interface MigrationRow {
  id: string;
  migration_name: string;
  checksum: string;
  started_at: unknown;
  finished_at: unknown;
  applied_steps_count: number | bigint;
}
const ROWS = `SELECT id, migration_name, checksum, started_at, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`;

/** A new, empty database on this project's engine, read without Prisma. */
async function emptyDatabase() {
  const name = `ilm_migrate_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  if (dbEngine() === "sqlite") {
    const path = join(tmpdir(), `${name}.db`);
    const read = <T>(sql: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare(sql).all() as T[];
      } finally {
        db.close();
      }
    };
    new Database(path).close();
    return {
      url: `file:${path}`,
      tables: () => Promise.resolve(read<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`).map((r) => r.name)),
      migrationRows: () => Promise.resolve(read<MigrationRow>(ROWS).map((r) => ({ ...r, applied_steps_count: Number(r.applied_steps_count) }))),
      drop: () => {
        for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });
        return Promise.resolve();
      },
    };
  }
  const admin = process.env.TEST_DATABASE_URL!;
  const adminQuery = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await adminQuery(`CREATE DATABASE "${name}"`);
  const u = new URL(admin);
  u.pathname = `/${name}`;
  const url = u.toString();
  const read = async <T>(sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  };
  return {
    url,
    tables: async () => (await read<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).map((r) => r.tablename),
    migrationRows: async () => (await read<MigrationRow>(ROWS)).map((r) => ({ ...r, applied_steps_count: Number(r.applied_steps_count) })),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

describe("migrations", () => {
  it("recorded every committed migration in _prisma_migrations as Prisma does", async () => {
    const migrations = loadMigrations(dbEngine());
    expect(migrations.length).toBeGreaterThan(0);
    const rows = await getDb().$queryRawUnsafe<
      Array<{ migration_name: string; checksum: string; finished_at: unknown; applied_steps_count: number | bigint }>
    >(`SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`);
    expect(rows.map((r) => r.migration_name)).toEqual(migrations.map((m) => m.name));
    for (const [i, row] of rows.entries()) {
      expect(row.checksum).toBe(createHash("sha256").update(migrations[i]!.sql).digest("hex"));
      expect(row.finished_at).not.toBeNull();
      expect(Number(row.applied_steps_count)).toBe(1);
    }
  });

  it("migrates an empty database, then applies nothing twice, also when several processes start at once", async () => {
    const fresh = await emptyDatabase();
    try {
      const names = loadMigrations(dbEngine()).map((m) => m.name);
      expect(await fresh.tables()).toEqual([]);
      expect((await migrate(fresh.url)).applied).toEqual(names);
      const recorded = await fresh.migrationRows();
      expect(recorded.map((r) => r.migration_name)).toEqual(names);

      const again = await Promise.all([migrate(fresh.url), migrate(fresh.url), migrate(fresh.url)]);
      for (const r of again) expect(r).toMatchObject({ applied: [], total: names.length });
      expect(await fresh.migrationRows()).toEqual(recorded);
    } finally {
      await fresh.drop();
    }
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
    // Listed products: other test files leave theirs unlisted when they use uploaded images.
    const products = await db.product.findMany({ where: { status: "active" }, include: { developer: true } });
    const developers = await db.developer.count();
    expect(products.length).toBeGreaterThanOrEqual(24);
    expect(developers).toBeGreaterThanOrEqual(6);
    for (const c of CATEGORIES)
      expect(
        products.some((p) => p.category === c),
        c,
      ).toBe(true);
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
