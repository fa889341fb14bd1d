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

/** One SQL statement the client sent, with its bound parameters (Prisma's query event). */
export interface CapturedQuery {
  sql: string;
  params: unknown[];
}

interface Holder {
  url: string;
  engine: Engine;
  client: Db;
  /** With DATABASE_QUERY_EVENTS=on: the lists of the captureQueries() calls running now. */
  captures?: Set<CapturedQuery[]>;
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

/** Hands each statement the client reports to the running captures (the client's `$on` exists before $extends only). */
function listen(client: { $on(event: "query", callback: (e: { query: string; params: string }) => void): unknown }, captures: Set<CapturedQuery[]>) {
  client.$on("query", (e) => {
    const query = { sql: e.query, params: JSON.parse(e.params) as unknown[] };
    for (const list of captures) list.push(query);
  });
}

function create(url: string): Holder {
  const engine = engineOf(url);
  // Query events cost something on every statement: only when asked for.
  const captures = env().DATABASE_QUERY_EVENTS === "on" ? new Set<CapturedQuery[]>() : undefined;
  if (engine === "sqlite") {
    const path = sqlitePath(url);
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const adapter = new PrismaBetterSqlite3({ url: path, timeout: 10_000 });
    if (!captures) return { url, engine, client: withCacheInvalidation(new SqliteClient({ adapter })) };
    const client = new SqliteClient({ adapter, log: [{ emit: "event", level: "query" }] });
    listen(client, captures);
    return { url, engine, captures, client: withCacheInvalidation(client) };
  }
  const adapter = new PrismaPg({
    connectionString: url,
    max: env().DATABASE_POOL_SIZE,
    connectionTimeoutMillis: 5_000,
  });
  // Both clients come from one model file; the PostgreSQL one is extended through the SQLite one's (identical) type.
  if (!captures) return { url, engine, client: withCacheInvalidation(new PostgresClient({ adapter }) as unknown as SqliteClient) };
  const client = new PostgresClient({ adapter, log: [{ emit: "event", level: "query" }] });
  listen(client, captures);
  return { url, engine, captures, client: withCacheInvalidation(client as unknown as SqliteClient) };
}

/** The process's database client for DATABASE_URL. */
export function getDb(): Db {
  const url = env().DATABASE_URL;
  let holder = g[KEY];
  if (!holder || holder.url !== url || (holder.captures !== undefined) !== (env().DATABASE_QUERY_EVENTS === "on")) {
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

/**
 * Runs `fn` and returns the SQL statements the client sent meanwhile, with their parameters: every statement of this
 * process, so run nothing else at the same time. Needs DATABASE_QUERY_EVENTS=on (the query-plan test sets it).
 */
export async function captureQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: CapturedQuery[] }> {
  getDb();
  const captures = g[KEY]?.captures;
  if (!captures) throw new Error("captureQueries needs DATABASE_QUERY_EVENTS=on");
  const queries: CapturedQuery[] = [];
  captures.add(queries);
  try {
    return { result: await fn(), queries };
  } finally {
    captures.delete(queries);
  }
}
