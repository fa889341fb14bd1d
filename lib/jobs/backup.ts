import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { engineOf, sqlitePath } from "../db/engine.ts";

/**
 * Backups of the whole database. SQLite: SQLite's online backup API (consistent while the service keeps writing).
 * PostgreSQL: pg_dump's custom format, restored with pg_restore (both from the PostgreSQL client tools).
 */
export async function backupDatabase(databaseUrl: string, file: string): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  if (engineOf(databaseUrl) === "sqlite") {
    const db = new Database(sqlitePath(databaseUrl), { readonly: true, fileMustExist: true });
    try {
      await db.backup(file);
    } finally {
      db.close();
    }
    return;
  }
  run("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", `--file=${file}`, `--dbname=${databaseUrl}`]);
}

/**
 * Restores a backup into `databaseUrl`. SQLite: replaces the file (stop the service first). PostgreSQL: replaces
 * every object of the backup in the target database, which must exist.
 */
export function restoreDatabase(databaseUrl: string, file: string): void {
  if (!existsSync(file)) throw new Error(`no backup at ${file}`);
  if (engineOf(databaseUrl) === "sqlite") {
    const target = sqlitePath(databaseUrl);
    mkdirSync(dirname(target), { recursive: true });
    for (const suffix of ["-wal", "-shm"]) rmSync(target + suffix, { force: true });
    copyFileSync(file, target);
    new Database(target).pragma("integrity_check");
    return;
  }
  run("pg_restore", ["--clean", "--if-exists", "--no-owner", "--no-privileges", "--single-transaction", `--dbname=${databaseUrl}`, file]);
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  if (r.error) throw new Error(`${cmd} is not available: ${r.error.message} (install the PostgreSQL client tools)`);
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
}
