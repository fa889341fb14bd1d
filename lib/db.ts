import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "./generated/postgresql/client.ts";
import { startCheckpointer, stopCheckpointers, WRITER_CHECKPOINT_PAGES } from "./db/checkpointer.ts";
import { engineOf, sqlitePath, type Engine } from "./db/engine.ts";
import { env } from "./env.ts";
import { clearReadCache } from "./cache/read-cache.ts";

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
  /** SQLite: the client's own connection, once it has connected (directSqlite()). */
  sqlite?: BetterSqlite3.Database;
  /** PostgreSQL: the client's own pool (directPg()). */
  pool?: pg.Pool;
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

type SqliteAdapterFactory = Pick<PrismaBetterSqlite3, "provider" | "adapterName" | "connect" | "connectToShadowDb">;

/**
 * The SQLite adapter, keeping hold of the connection it opens (it opens one, when the client first connects): the
 * licensing write path (lib/licensing/direct-activation.ts) runs its statements on that same connection, so there is
 * still one writer per file.
 */
function keepingConnection(factory: PrismaBetterSqlite3, holder: Holder, path: string): SqliteAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const adapter = await factory.connect();
      holder.sqlite = (adapter as unknown as { client: BetterSqlite3.Database }).client;
      if (path !== ":memory:") {
        // The log is checkpointed by a thread of its own, off the event loop (lib/db/checkpointer.ts).
        holder.sqlite.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
        startCheckpointer(path);
      }
      return adapter;
    },
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
}

function create(url: string): Holder {
  const engine = engineOf(url);
  // Query events cost something on every statement: only when asked for.
  const captures = env().DATABASE_QUERY_EVENTS === "on" ? new Set<CapturedQuery[]>() : undefined;
  const log = captures ? { log: [{ emit: "event" as const, level: "query" as const }] } : {};
  if (engine === "sqlite") {
    const path = sqlitePath(url);
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const holder = { url, engine, captures } as Holder;
    const adapter = keepingConnection(new PrismaBetterSqlite3({ url: path, timeout: 10_000 }), holder, path);
    const client = new SqliteClient({ adapter, ...log });
    if (captures) listen(client, captures);
    holder.client = withCacheInvalidation(client);
    return holder;
  }
  // The pool is ours, so the licensing write path can send its one statement through it; the adapter ends it.
  const pool = new pg.Pool({ connectionString: url, max: env().DATABASE_POOL_SIZE, connectionTimeoutMillis: 5_000 });
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  const client = new PostgresClient({ adapter, ...log });
  if (captures) listen(client, captures);
  // Both clients come from one model file; the PostgreSQL one is extended through the SQLite one's (identical) type.
  return { url, engine, captures, pool, client: withCacheInvalidation(client as unknown as SqliteClient) };
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

function holder(): Holder | undefined {
  getDb();
  return g[KEY];
}

/**
 * The SQLite connection the client uses, for synchronous statements that must not interleave with anything (they
 * run between two of the event loop's turns): undefined before the client has connected, on PostgreSQL, and while
 * one of the client's transactions is open on it (its statements would join that transaction).
 */
export function directSqlite(): BetterSqlite3.Database | undefined {
  const db = holder()?.sqlite;
  return db && db.open && !db.inTransaction ? db : undefined;
}

/** The PostgreSQL pool the client uses; undefined on SQLite. */
export function directPg(): pg.Pool | undefined {
  return holder()?.pool;
}

/** A statement sent outside the client (directSqlite, directPg), told to the running captureQueries() calls. */
export function reportQuery(sql: string, params: unknown[]): void {
  const captures = g[KEY]?.captures;
  if (!captures) return;
  for (const list of captures) list.push({ sql, params });
}

export function dbEngine(): Engine {
  return engineOf(env().DATABASE_URL);
}

export async function disconnectDb(): Promise<void> {
  const holder = g[KEY];
  g[KEY] = undefined;
  await holder?.client.$disconnect();
  await stopCheckpointers();
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
