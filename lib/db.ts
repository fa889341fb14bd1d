import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "./generated/postgresql/client.ts";
import { engineOf, sqlitePath, type Engine } from "./db/engine.ts";
import { env } from "./env.ts";
import { clearReadCache } from "./marketplace/read-cache.ts";

/**
 * Both generated clients come from one model file, so they have the same API; the SQLite client's type stands
 * for both.
 */
export type Db = SqliteClient;

interface Holder {
  url: string;
  engine: Engine;
  client: Db;
}

// One client per process, shared through globalThis: server.ts and Next's bundled route handlers load this module
// separately, and both must use the same connection (SQLite has one writer) and see the same caches.
const KEY = Symbol.for("indie-license-market.db");
const g = globalThis as unknown as Record<symbol, Holder | undefined>;

const PRODUCT_WRITES = new Set([
  "create",
  "createMany",
  "createManyAndReturn",
  "update",
  "updateMany",
  "updateManyAndReturn",
  "upsert",
  "delete",
  "deleteMany",
]);

/** Every product write through this client clears the marketplace read cache, whoever makes it. */
function withCacheInvalidation(client: SqliteClient): Db {
  return client.$extends({
    query: {
      product: {
        async $allOperations({ operation, args, query }) {
          const result = await query(args);
          if (PRODUCT_WRITES.has(operation)) clearReadCache();
          return result;
        },
      },
    },
  }) as unknown as Db;
}

function create(url: string): Holder {
  const engine = engineOf(url);
  if (engine === "sqlite") {
    const path = sqlitePath(url);
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const adapter = new PrismaBetterSqlite3({ url: path, timeout: 10_000 });
    return { url, engine, client: withCacheInvalidation(new SqliteClient({ adapter })) };
  }
  const adapter = new PrismaPg({
    connectionString: url,
    max: env().DATABASE_POOL_SIZE,
    connectionTimeoutMillis: 5_000,
  });
  // Both clients come from one model file; the PostgreSQL one is extended through the SQLite one's (identical) type.
  return { url, engine, client: withCacheInvalidation(new PostgresClient({ adapter }) as unknown as SqliteClient) };
}

/** The process's database client for DATABASE_URL. */
export function getDb(): Db {
  const url = env().DATABASE_URL;
  let holder = g[KEY];
  if (!holder || holder.url !== url) {
    void holder?.client.$disconnect();
    holder = create(url);
    g[KEY] = holder;
  }
  return holder.client;
}

export function dbEngine(): Engine {
  return engineOf(env().DATABASE_URL);
}

export async function disconnectDb(): Promise<void> {
  const holder = g[KEY];
  g[KEY] = undefined;
  await holder?.client.$disconnect();
}
