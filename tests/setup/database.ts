import { rmSync } from "node:fs";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { disconnectDb } from "../../lib/db.ts";
import { engineOf, sqlitePath } from "../../lib/db/engine.ts";
import { prepareDatabase } from "../../lib/db/prepare.ts";
import { resetEnv } from "../../lib/env.ts";

/** Creates the project's fresh database, migrates and seeds it with the same code `npm start` runs, and drops it afterwards. */
export default async function setup(project: TestProject) {
  const url = project.config.env.DATABASE_URL as string;
  const engine = engineOf(url);
  const adminUrl = project.config.env.TEST_DATABASE_URL;
  const name = engine === "postgresql" ? new URL(url).pathname.slice(1) : "";

  if (engine === "postgresql") {
    await adminQuery(adminUrl!, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await adminQuery(adminUrl!, `CREATE DATABASE "${name}"`);
  } else {
    removeSqlite(url);
  }

  const previous = { DATABASE_URL: process.env.DATABASE_URL, BASE_URL: process.env.BASE_URL };
  process.env.DATABASE_URL = url;
  process.env.BASE_URL = project.config.env.BASE_URL;
  resetEnv();
  await prepareDatabase(() => undefined);
  await disconnectDb();
  for (const [k, v] of Object.entries(previous)) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();

  return async () => {
    if (engine === "postgresql") await adminQuery(adminUrl!, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    else removeSqlite(url);
  };
}

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
