import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import { directPg, directSqlite, reportQuery } from "../db.ts";
import { epochMs, flag } from "../db/raw-values.ts";
import type { LicenseState, MachineState } from "./state.ts";

/**
 * The license state validation needs (license-state.ts), read without the client: the license cache re-reads keys
 * all the time (each key once per LICENSE_CACHE_TTL_MS), and the client's query compiler cost about 380 µs of CPU
 * for each, besides its turns of the event loop.
 *
 * SQLite: two prepared statements on the client's own connection, synchronous, between two turns of the event loop,
 * so nothing can interleave with them; taken only when none of the client's transactions is open on the connection
 * (its statements would read that transaction's uncommitted rows). PostgreSQL: one named statement on the client's
 * own pool, the machines gathered as JSON. tests/integration/direct-license-state.test.ts holds these readers and
 * the client's together, field for field.
 */
const LICENSE = `SELECT l."id", l."key", l."buyerEmail", l."isActive", l."revocation", l."billing", l."trial", l."maxMachines", l."issuedAt", l."expiresAt",
  p."id" AS "productId", p."name" AS "productName", p."pluginId"
  FROM "License" l JOIN "Product" p ON p."id" = l."productId" WHERE l."key" = ?`;
const MACHINES = `SELECT "id", "fingerprint", "activatedAt" FROM "Activation" WHERE "licenseId" = ?`;

/** A license row as either engine answers it (SQLite's booleans are 0 or 1; PostgreSQL's dates come as epoch ms). */
interface LicenseRow {
  id: string;
  key: string;
  buyerEmail: string;
  isActive: number | boolean;
  revocation: string | null;
  billing: string | null;
  trial: number | boolean;
  maxMachines: number;
  issuedAt: string | number;
  expiresAt: string | number | null;
  productId: string;
  productName: string;
  pluginId: string;
}
interface MachineRow {
  id: string;
  fingerprint: string;
  activatedAt: string | number;
}

function stateOf(row: LicenseRow, machines: Map<string, MachineState>, now: number): LicenseState {
  return {
    id: row.id,
    key: row.key,
    productId: row.productId,
    productName: row.productName,
    pluginId: row.pluginId,
    buyerEmail: row.buyerEmail,
    isActive: flag(row.isActive),
    revocation: row.revocation,
    billing: row.billing,
    trial: flag(row.trial),
    maxMachines: row.maxMachines,
    issuedAt: epochMs(row.issuedAt) ?? 0,
    expiresAt: epochMs(row.expiresAt),
    machines,
    loadedAt: now,
  };
}

const prepared = new WeakMap<BetterSqlite3.Database, { license: BetterSqlite3.Statement; machines: BetterSqlite3.Statement }>();

function statements(db: BetterSqlite3.Database) {
  let s = prepared.get(db);
  if (!s) {
    s = { license: db.prepare(LICENSE).safeIntegers(false), machines: db.prepare(MACHINES).safeIntegers(false) };
    prepared.set(db, s);
  }
  return s;
}

/** The license by its key with its product and machines (null: no such key), or undefined when not available here. */
export function loadLicenseStateDirectly(key: string, now = Date.now()): LicenseState | null | undefined {
  const db = directSqlite();
  if (!db) return undefined;
  const s = statements(db);
  reportQuery(LICENSE, [key]);
  const row = s.license.get(key) as LicenseRow | undefined;
  if (!row) return null;
  reportQuery(MACHINES, [row.id]);
  const machines = new Map<string, MachineState>();
  for (const m of s.machines.all(row.id) as MachineRow[]) machines.set(m.fingerprint, { id: m.id, activatedAt: epochMs(m.activatedAt) ?? 0 });
  return stateOf(row, machines, now);
}

const POSTGRES = `SELECT l."id", l."key", l."buyerEmail", l."isActive", l."revocation", l."billing", l."trial", l."maxMachines",
  (extract(epoch FROM l."issuedAt") * 1000)::float8 AS "issuedAt", (extract(epoch FROM l."expiresAt") * 1000)::float8 AS "expiresAt",
  p."id" AS "productId", p."name" AS "productName", p."pluginId",
  COALESCE((SELECT json_agg(json_build_array(a."id", a."fingerprint", (extract(epoch FROM a."activatedAt") * 1000)::float8))
    FROM "Activation" a WHERE a."licenseId" = l."id"), '[]'::json) AS "machines"
  FROM "License" l JOIN "Product" p ON p."id" = l."productId" WHERE l."key" = $1`;

/** The same on PostgreSQL, in one round trip on the client's pool; undefined on SQLite. */
export async function loadLicenseStateOnPool(key: string, now = Date.now()): Promise<LicenseState | null | undefined> {
  const pool: pg.Pool | undefined = directPg();
  if (!pool) return undefined;
  reportQuery(POSTGRES, [key]);
  const row = (
    await pool.query<LicenseRow & { machines: Array<[string, string, number]> }>({
      name: "license-state",
      text: POSTGRES,
      values: [key],
    })
  ).rows[0];
  if (!row) return null;
  const machines = new Map(row.machines.map(([id, fingerprint, activatedAt]): [string, MachineState] => [fingerprint, { id, activatedAt }]));
  return stateOf(row, machines, now);
}
