import { createRequire } from "node:module";
import { join } from "node:path";
import { Worker } from "node:worker_threads";

/**
 * SQLite's write-ahead log is copied back into the database file by a checkpoint, which SQLite runs by default in
 * the transaction that takes the log past 1,000 pages: on the writer's connection, so on the event loop, costing
 * about half of a small write transaction's time (`docs/benchmarks.md`). Here a worker thread with its own connection
 * checkpoints the log every `CHECKPOINT_MS` (PASSIVE: it never waits for, or blocks, the writer or the readers), and
 * the writer's own automatic checkpoint is raised to `WRITER_CHECKPOINT_PAGES`, a safety net that only fires should
 * the worker fall behind or stop: the log stays bounded either way.
 *
 * The worker is a few lines of plain JavaScript evaluated in the thread (the same code whether this module runs
 * under tsx or inside Next's bundle), loading the better-sqlite3 the application uses; it is unreferenced, so it never
 * keeps a process alive.
 */

const CHECKPOINT_MS = 250;
export const WRITER_CHECKPOINT_PAGES = 16_384;

const WORKER = `
const { workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
let db;
setInterval(() => {
  try {
    db ??= new Database(workerData.path, { fileMustExist: true, timeout: 0 });
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // The file is gone or busy: try again at the next turn.
    try { db?.close(); } catch {}
    db = undefined;
  }
}, workerData.every);
`;

const KEY = Symbol.for("indie-license-market.checkpointers");
const g = globalThis as unknown as Record<symbol, Map<string, Worker> | undefined>;

/** Starts the checkpointing thread of a database file (one per file and process). */
export function startCheckpointer(path: string): void {
  const running = (g[KEY] ??= new Map());
  if (running.has(path)) return;
  const driver = createRequire(join(process.cwd(), "package.json")).resolve("better-sqlite3");
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { path, driver, every: CHECKPOINT_MS },
    // Plain JavaScript: none of the parent's loaders (tsx under `npm run dev` and the tests), and a small heap for a
    // thread that only ever runs one pragma (past it, the thread stops and the writer's checkpoints take over).
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
  });
  worker.unref();
  // A thread that fails (it cannot load the driver, say) leaves the writer's own checkpoints to do the work.
  worker.on("error", () => running.delete(path));
  worker.on("exit", () => running.delete(path));
  running.set(path, worker);
}

/** Stops every checkpointing thread of this process (tests that remove their database files). */
export async function stopCheckpointers(): Promise<void> {
  const running = g[KEY];
  if (!running) return;
  const workers = [...running.values()];
  running.clear();
  await Promise.all(workers.map((w) => w.terminate()));
}
