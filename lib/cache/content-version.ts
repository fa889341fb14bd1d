import Database from "better-sqlite3";
import { getDb } from "../db.ts";
import { engineOf, sqlitePath } from "../db/engine.ts";
import { env } from "../env.ts";

/**
 * The version of what the storefront shows: a number that database triggers raise on every write to products,
 * developers, releases, artifacts and reviews (migration `content_version`), whoever makes it and on whichever
 * instance. A cache of pages or reads stays valid for as long as this number is unchanged, so each instance reads it
 * per request (not on a timer): a change is seen by the very next request on every instance.
 *
 * SQLite: one prepared statement on a read-only connection of its own (microseconds; WAL readers never wait for the
 * writer). PostgreSQL: one primary-key read through the pool. Null when it cannot be read (a database not yet
 * migrated, an in-memory one): then nothing may be served from cache.
 */
interface Reader {
  url: string;
  read: () => Promise<number | null> | number | null;
  close: () => void;
}

const KEY = Symbol.for("indie-license-market.content-version");
const g = globalThis as unknown as Record<symbol, Reader | undefined>;

function sqliteReader(url: string): Reader {
  const path = sqlitePath(url);
  let db: Database.Database | undefined;
  let stmt: Database.Statement | undefined;
  return {
    url,
    read: () => {
      if (path === ":memory:" || path === "") return null;
      try {
        if (!stmt) {
          db = new Database(path, { readonly: true, fileMustExist: true });
          stmt = db.prepare(`SELECT "version" FROM "ContentVersion" WHERE "id" = 1`);
        }
        const row = stmt.get() as { version: number } | undefined;
        return row ? row.version : null;
      } catch {
        db?.close();
        db = undefined;
        stmt = undefined;
        return null;
      }
    },
    close: () => db?.close(),
  };
}

function postgresReader(url: string): Reader {
  return {
    url,
    read: async () => {
      try {
        const rows = await getDb().$queryRaw<Array<{ version: bigint | number }>>`SELECT "version" FROM "ContentVersion" WHERE "id" = 1`;
        return rows[0] ? Number(rows[0].version) : null;
      } catch {
        return null;
      }
    },
    close: () => undefined,
  };
}

/** The current content version, or null when it cannot be read (then serve nothing from cache). */
export function contentVersion(): Promise<number | null> | number | null {
  const url = env().DATABASE_URL;
  let reader = g[KEY];
  if (!reader || reader.url !== url) {
    reader?.close();
    reader = engineOf(url) === "sqlite" ? sqliteReader(url) : postgresReader(url);
    g[KEY] = reader;
  }
  return reader.read();
}
