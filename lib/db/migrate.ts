import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { engineOf, sqlitePath, type Engine } from "./engine.ts";

/**
 * Applies the committed migrations (prisma/migrations/<engine>/<name>/migration.sql) that the database lacks, and
 * records each in `_prisma_migrations` exactly as `prisma migrate deploy` does (same table, checksum and columns),
 * so Prisma's own tooling agrees wherever its native engine is available. Safe to run from several processes at
 * once: PostgreSQL takes Prisma's advisory lock, SQLite an immediate transaction.
 */

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  engine: Engine;
  applied: string[];
  total: number;
}

// The lock id `prisma migrate` uses, so our runner and Prisma's never run at the same time.
const PRISMA_ADVISORY_LOCK = 72707369;

function migrationsDir(engine: Engine, root = process.cwd()): string {
  return join(root, "prisma", "migrations", engine);
}

export function loadMigrations(engine: Engine, root = process.cwd()): Migration[] {
  const dir = migrationsDir(engine, root);
  if (!existsSync(dir)) throw new Error(`No migrations folder at ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const SQLITE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

const POSTGRES_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

/** Decides what to run; refuses to go on over a failed or edited migration, as Prisma does. */
function plan(migrations: Migration[], rows: AppliedRow[]): Migration[] {
  const done = new Map<string, AppliedRow>();
  for (const row of rows) {
    if (row.rolled_back_at != null) continue;
    if (row.finished_at == null) {
      throw new Error(
        `Migration ${row.migration_name} started but did not finish; repair the database, then mark it rolled back in _prisma_migrations.`,
      );
    }
    done.set(row.migration_name, row);
  }
  for (const m of migrations) {
    const row = done.get(m.name);
    if (row && row.checksum !== m.checksum) {
      throw new Error(`Migration ${m.name} was changed after it was applied (checksum differs); add a new migration instead.`);
    }
  }
  return migrations.filter((m) => !done.has(m.name));
}

function migrateSqlite(url: string, migrations: Migration[]): string[] {
  const path = sqlitePath(url);
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: 30_000 });
  try {
    // WAL lets readers proceed while one writer commits; the setting is stored in the file.
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    db.exec(SQLITE_TABLE);
    const run = db.transaction(() => {
      const rows = db.prepare(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`).all() as AppliedRow[];
      const todo = plan(migrations, rows);
      const insert = db.prepare(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
         VALUES (?, ?, ?, ?, NULL, NULL, ?, 1)`,
      );
      for (const m of todo) {
        const started = Date.now();
        db.exec(m.sql);
        insert.run(randomUUID(), m.checksum, Date.now(), m.name, started);
      }
      return todo.map((m) => m.name);
    });
    return run.immediate();
  } finally {
    db.close();
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${PRISMA_ADVISORY_LOCK})`);
    await client.query(POSTGRES_TABLE);
    const { rows } = await client.query<AppliedRow>(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`);
    const applied: string[] = [];
    for (const m of plan(migrations, rows)) {
      // Each migration and its record commit together: a failure leaves neither behind.
      await client.query("BEGIN");
      try {
        const started = new Date();
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, NULL, NULL, $4, 1)`,
          [randomUUID(), m.checksum, m.name, started],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${m.name} failed: ${(error as Error).message}`);
      }
      applied.push(m.name);
    }
    return applied;
  } finally {
    await client.query(`SELECT pg_advisory_unlock(${PRISMA_ADVISORY_LOCK})`).catch(() => undefined);
    await client.end();
  }
}

export async function migrate(url: string, root = process.cwd()): Promise<MigrateResult> {
  const engine = engineOf(url);
  const migrations = loadMigrations(engine, root);
  const applied = engine === "sqlite" ? migrateSqlite(url, migrations) : await migratePostgres(url, migrations);
  return { engine, applied, total: migrations.length };
}
