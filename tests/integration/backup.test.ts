import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { dbEngine, disconnectDb, getDb } from "@/lib/db";
import { env } from "@/lib/env";
import { backupDatabase, restoreDatabase } from "@/lib/jobs/backup";
import { newLicense } from "../helpers/licenses";

afterAll(() => disconnectDb());

describe("backup and restore", () => {
  it("an online backup restores every row into a fresh database", async () => {
    const { license } = await newLicense();
    const dir = mkdtempSync(join(tmpdir(), "ilm-backup-"));
    const file = join(dir, "db.bak");
    await backupDatabase(env().DATABASE_URL, file);
    const counts = { licenses: await getDb().license.count(), products: await getDb().product.count() };

    let target: string;
    let drop: () => Promise<void> = () => Promise.resolve();
    if (dbEngine() === "sqlite") {
      target = `file:${join(dir, "restored.db")}`;
    } else {
      const name = `ilm_restore_${Date.now().toString(36)}`;
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${name}"`);
      await admin.end();
      const u = new URL(process.env.TEST_DATABASE_URL!);
      u.pathname = `/${name}`;
      target = u.toString();
      drop = async () => {
        const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await c.end();
      };
    }
    try {
      restoreDatabase(target, file);
      const query = async (sql: string): Promise<any[]> => {
        if (dbEngine() === "sqlite") {
          const Database = (await import("better-sqlite3")).default;
          const db = new Database(target.slice(5), { readonly: true });
          try {
            return db.prepare(sql).all();
          } finally {
            db.close();
          }
        }
        const c = new pg.Client({ connectionString: target });
        await c.connect();
        try {
          return (await c.query(sql)).rows;
        } finally {
          await c.end();
        }
      };
      expect(Number((await query(`SELECT count(*) AS n FROM "License"`))[0].n)).toBe(counts.licenses);
      expect(Number((await query(`SELECT count(*) AS n FROM "Product"`))[0].n)).toBe(counts.products);
      expect((await query(`SELECT key FROM "License" WHERE key = '${license.key}'`)).length).toBe(1);
      expect((await query(`SELECT count(*) AS n FROM "_prisma_migrations"`))[0].n).toBeDefined();
    } finally {
      await drop();
    }
  });
});
