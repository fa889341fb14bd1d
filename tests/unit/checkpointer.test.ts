import { afterEach, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { startCheckpointer, stopCheckpointers } from "@/lib/db/checkpointer";

/**
 * The checkpointing thread copies the write-ahead log back into the database file while the writer does nothing:
 * 2 MB written with the writer's own checkpoints off reach the database file only through it.
 */

const files: string[] = [];
afterEach(async () => {
  await stopCheckpointers();
  for (const f of files.splice(0)) for (const suffix of ["", "-wal", "-shm"]) rmSync(f + suffix, { force: true });
});

function writeTwoMegabytes(): { path: string; db: Database.Database } {
  const path = join(tmpdir(), `ilm-checkpoint-${randomBytes(4).toString("hex")}.db`);
  files.push(path);
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("wal_autocheckpoint = 0");
  db.exec(`CREATE TABLE t (b BLOB)`);
  const insert = db.prepare(`INSERT INTO t (b) VALUES (?)`);
  for (let i = 0; i < 64; i++) insert.run(randomBytes(32 * 1024));
  return { path, db };
}

const size = (path: string) => statSync(path).size;
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the checkpointing thread", () => {
  it("leaves the log in place when it is not running (the control)", async () => {
    const { path, db } = writeTwoMegabytes();
    await settle(1_000);
    expect(size(path)).toBeLessThan(1024 * 1024);
    expect(size(`${path}-wal`)).toBeGreaterThan(2 * 1024 * 1024);
    db.close();
  });

  it("copies the log into the database file, off the writer's thread", async () => {
    const { path, db } = writeTwoMegabytes();
    startCheckpointer(path);
    const deadline = Date.now() + 10_000;
    while (size(path) < 2 * 1024 * 1024 && Date.now() < deadline) await settle(50);
    expect(size(path)).toBeGreaterThan(2 * 1024 * 1024);
    expect(db.prepare(`SELECT COUNT(*) AS n FROM t`).get()).toEqual({ n: 64 });
    db.close();
  });
});
