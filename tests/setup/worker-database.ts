import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The database of one Vitest worker: the project's DATABASE_URL with the worker's number (1 to TEST_WORKERS) added
 * to the database's name (PostgreSQL) or the file's (SQLite). tests/setup/database.ts creates one per worker, and
 * tests/setup/worker.ts points each test file at its worker's.
 */
export function workerDatabaseUrl(base: string, worker: number): string {
  if (base.startsWith("file:")) return base.replace(/(\.db)?$/, `_w${worker}$1`);
  const u = new URL(base);
  u.pathname = `${u.pathname}_w${worker}`;
  return u.toString();
}

/** The uploads folder (UPLOAD_DIR) of one worker of one project's run. */
export function workerUploadDir(run: string, project: string, worker: number): string {
  return join(tmpdir(), `ilm-test-uploads-${run}-${project}-w${worker}`);
}
