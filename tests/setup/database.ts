import { rmSync } from "node:fs";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { disconnectDb } from "../../lib/db.ts";
import { engineOf, sqlitePath } from "../../lib/db/engine.ts";
import { prepareDatabase } from "../../lib/db/prepare.ts";
import { resetEnv } from "../../lib/env.ts";
import { workerDatabaseUrl, workerUploadDir } from "./worker-database.ts";

/**
 * Creates the project's fresh databases, one per Vitest worker (tests/setup/worker.ts points each test file at its
 * worker's, so two files running at once never share one), migrates and seeds each with the same code `npm start`
 * runs, and drops them (and the workers' uploads folders) afterwards.
 */
export default async function setup(project: TestProject) {
  const base = project.config.env.DATABASE_URL as string;
  const adminUrl = project.config.env.TEST_DATABASE_URL;
  const workers = Number(project.config.env.TEST_WORKERS ?? 1);
  const urls = Array.from({ length: workers }, (_, i) => workerDatabaseUrl(base, i + 1));
  // The seed stores the demo catalogue's media (lib/media) in the uploads folder of the worker that uses the database.
  const uploads = (w: number) => workerUploadDir(project.config.env.TEST_RUN ?? "run", project.config.env.TEST_PROJECT ?? "db", w);
  for (const [i, url] of urls.entries()) await createWithRetry(url, adminUrl, project.config.env.BASE_URL, uploads(i + 1));
  return async () => {
    for (const url of urls) await drop(url, adminUrl);
    const { TEST_RUN: run, TEST_PROJECT: name } = project.config.env;
    if (run && name) for (let w = 1; w <= workers; w++) rmSync(workerUploadDir(run, name, w), { recursive: true, force: true });
  };
}

/**
 * The seed runs in interactive transactions with Prisma's 5 s limit, which a machine busy with other work (two
 * cores shared with builds and browsers) has been seen to exceed (P2028): the database is dropped and made again,
 * up to three times, rather than the whole run failing before any test.
 */
async function createWithRetry(url: string, adminUrl: string | undefined, baseUrl: string | undefined, uploadDir: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await create(url, adminUrl, baseUrl, uploadDir);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== "P2028" || attempt === 3) throw error;
      console.warn(`tests/setup/database.ts: preparing ${url} took too long (attempt ${attempt}), trying again`);
    }
  }
}

async function create(url: string, adminUrl: string | undefined, baseUrl: string | undefined, uploadDir: string): Promise<void> {
  await drop(url, adminUrl);
  if (engineOf(url) === "postgresql") await adminQuery(adminUrl!, `CREATE DATABASE "${databaseName(url)}"`);
  const previous = { DATABASE_URL: process.env.DATABASE_URL, BASE_URL: process.env.BASE_URL, UPLOAD_DIR: process.env.UPLOAD_DIR };
  process.env.DATABASE_URL = url;
  process.env.BASE_URL = baseUrl;
  process.env.UPLOAD_DIR = uploadDir;
  resetEnv();
  try {
    await prepareDatabase(() => undefined);
  } finally {
    await disconnectDb();
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) Reflect.deleteProperty(process.env, k);
      else process.env[k] = v;
    }
    resetEnv();
  }
}

async function drop(url: string, adminUrl: string | undefined): Promise<void> {
  if (engineOf(url) === "postgresql") await adminQuery(adminUrl!, `DROP DATABASE IF EXISTS "${databaseName(url)}" WITH (FORCE)`);
  else removeSqlite(url);
}

const databaseName = (url: string) => new URL(url).pathname.slice(1);

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function removeSqlite(url: string): void {
  const path = sqlitePath(url);
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });
}
