import type BetterSqlite3 from "better-sqlite3";
import { directSqlite, reportQuery } from "../db.ts";
import { epochMs, flag } from "../db/raw-values.ts";
import type { LicenseState, MachineState } from "./license-state.ts";

/**
 * The license state validation needs (license-state.ts), read on SQLite with two prepared statements on the client's
 * own connection instead of through the client: the license cache re-reads keys all the time (each key once per
 * LICENSE_CACHE_TTL_MS), and the client's query compiler cost about 380 µs of CPU for each, this about 20 µs.
 *
 * Synchronous, between two turns of the event loop, so nothing can interleave with it; taken only when none of the
 * client's transactions is open on the connection (its statements would read that transaction's uncommitted rows).
 * Undefined when it cannot be taken: then the caller reads through the client. On PostgreSQL the client's read is
 * one round trip and stays. tests/integration/direct-license-state.test.ts holds the two readers together.
 */
const LICENSE = `SELECT l."id", l."key", l."buyerEmail", l."isActive", l."revocation", l."trial", l."maxMachines", l."issuedAt", l."expiresAt",
  p."id" AS "productId", p."name" AS "productName", p."pluginId"
  FROM "License" l JOIN "Product" p ON p."id" = l."productId" WHERE l."key" = ?`;
const MACHINES = `SELECT "id", "fingerprint", "activatedAt" FROM "Activation" WHERE "licenseId" = ?`;

interface LicenseRow {
  id: string;
  key: string;
  buyerEmail: string;
  isActive: number;
  revocation: string | null;
  trial: number;
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
  return {
    id: row.id,
    key: row.key,
    productId: row.productId,
    productName: row.productName,
    pluginId: row.pluginId,
    buyerEmail: row.buyerEmail,
    isActive: flag(row.isActive),
    revocation: row.revocation,
    trial: flag(row.trial),
    maxMachines: row.maxMachines,
    issuedAt: epochMs(row.issuedAt) ?? 0,
    expiresAt: epochMs(row.expiresAt),
    machines,
    loadedAt: now,
  };
}
