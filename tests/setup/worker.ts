import { mkdirSync } from "node:fs";
import { workerDatabaseUrl, workerUploadDir } from "./worker-database.ts";

/**
 * Run in each test file's process before the file is loaded (setupFiles of the integration projects). Two files may
 * run at once, each in its own worker: a file uses its worker's database and uploads folder, which no other file
 * uses at the same moment. VITEST_POOL_ID is the worker's number; a file that sets UPLOAD_DIR itself still wins.
 */
const worker = Number(process.env.VITEST_POOL_ID ?? 1);
const workers = Number(process.env.TEST_WORKERS ?? 1);
const base = process.env.DATABASE_URL;
if (!base) throw new Error("DATABASE_URL is not set: tests/setup/worker.ts runs in the integration projects only");
if (!(worker >= 1 && worker <= workers)) throw new Error(`worker ${worker} has no database: TEST_WORKERS is ${workers}`);
process.env.DATABASE_URL = workerDatabaseUrl(base, worker);
const uploads = workerUploadDir(process.env.TEST_RUN ?? "run", process.env.TEST_PROJECT ?? "db", worker);
mkdirSync(uploads, { recursive: true });
process.env.UPLOAD_DIR = uploads;
