import { randomBytes } from "node:crypto";
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import { dbEngine, directPg, directSqlite, reportQuery } from "../db.ts";
import { epochMs, flag } from "../db/raw-values.ts";
import { licenseStanding } from "./evaluate.ts";
import { machineDetail } from "./license-change.ts";
import type { Actor } from "./license-events.ts";
import type { ActivateRequest } from "./schemas.ts";
import type { LicenseCode } from "./codes.ts";

/**
 * The activation of a new machine as the database's own statements, not through the client: the common case of
 * `/activate` (a license in good standing, a machine it has not seen, a seller with no webhook endpoint) as one
 * transaction that runs without a turn of the event loop on SQLite and as one statement (one round trip) on
 * PostgreSQL. It writes exactly what the general path (activate-machine.ts) writes: the seat taken by the conditional
 * update `activeMachines < maxMachines` (so concurrent requests never exceed max_machines), the activation row (its
 * unique (license, fingerprint) pair makes a race of one machine end in one activation, and a lost race undoes the
 * seat with it), and the `activated` event of the license's log, all or nothing.
 *
 * Everything else is left to the general path, which reads the license again: a machine activated before (its
 * reported details are compared), a seller with a webhook endpoint (the delivery is queued in the same transaction,
 * through the client), a race lost, and on SQLite a moment when one of the client's transactions is open on the
 * connection. The client's cost per statement (about a tenth of a millisecond each, five statements and a
 * transaction's turns of the event loop) is what this saves: docs/benchmarks.md has the figures.
 */

/** The license as the decision needs it, read in one statement with its machine and whether its seller has hooks. */
interface Row {
  id: string;
  pluginId: string;
  developerId: string;
  isActive: boolean | number;
  revocation: string | null;
  billing: string | null;
  trial: boolean | number;
  maxMachines: number;
  activeMachines: number;
  expiresAt: string | number | null;
  activationId: string | null;
  hooks: boolean | number;
}

export type DirectOutcome =
  | { kind: "activated"; activatedAt: number; active: number; maxMachines: number; licenseKey: string }
  | { kind: "refused"; code: LicenseCode; state: { maxMachines: number; machineCount: number } | null };

const COLUMNS = `l."id", p."pluginId", p."developerId", l."isActive", l."revocation", l."billing", l."trial", l."maxMachines", l."activeMachines"`;
const HOOKS = `EXISTS (SELECT 1 FROM "SellerWebhookEndpoint" e WHERE e."developerId" = p."developerId" AND e."enabled")`;

const SQLITE_READ = `SELECT ${COLUMNS}, l."expiresAt", a."id" AS "activationId", ${HOOKS} AS "hooks"
FROM "License" l JOIN "Product" p ON p."id" = l."productId"
LEFT JOIN "Activation" a ON a."licenseId" = l."id" AND a."fingerprint" = ?
WHERE l."key" = ?`;

// The hooks are checked again inside the transaction: an endpoint created since the read sends it the general way.
const SQLITE_SEAT = `UPDATE "License" SET "activeMachines" = "activeMachines" + 1, "updatedAt" = ?
WHERE "id" = ? AND "isActive" AND "activeMachines" < "maxMachines"
  AND NOT EXISTS (SELECT 1 FROM "SellerWebhookEndpoint" e WHERE e."developerId" = ? AND e."enabled")
RETURNING "activeMachines"`;
const SQLITE_MACHINE = `INSERT INTO "Activation" ("id", "licenseId", "fingerprint", "activatedAt", "lastValidatedAt", "machineName", "platform", "appVersion")
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
const SQLITE_EVENT = `INSERT INTO "LicenseEvent" ("id", "licenseId", "type", "actorType", "actor", "detail", "createdAt", "lastAt")
VALUES (?, ?, 'activated', ?, ?, ?, ?, ?)`;

// PostgreSQL: one statement, one round trip. `lic` reads the license as the decision needs it; the seat is taken only
// when the license is in good standing for the product at `now`, both as `lic` read it and as the row is when the
// update gets it (the same rule as licenseStanding() in evaluate.ts,
// which decides the answer from the returned columns: tests/integration/direct-activation.test.ts checks that the two
// agree over every combination), the machine is new and the seller has no webhook endpoint, and only while
// `activeMachines < maxMachines` holds for the row as it is when the update gets it (a concurrent activation's
// commit is waited for and the condition evaluated again). The machine is written only when a seat was taken, the
// event only when the machine was; a unique violation of the machine fails the whole statement, seat included.
const POSTGRES_ACTIVATE = `WITH lic AS (
  SELECT ${COLUMNS}, (extract(epoch FROM l."expiresAt") * 1000)::float8 AS "expiresAt", a."id" AS "activationId", ${HOOKS} AS "hooks",
    l."isActive" AND (l."expiresAt" IS NULL OR l."expiresAt" > $4::timestamp) AS "open"
  FROM "License" l JOIN "Product" p ON p."id" = l."productId"
  LEFT JOIN "Activation" a ON a."licenseId" = l."id" AND a."fingerprint" = $1
  WHERE l."key" = $2
), seat AS (
  UPDATE "License" u SET "activeMachines" = u."activeMachines" + 1, "updatedAt" = $4::timestamp
  FROM lic
  WHERE u."id" = lic."id" AND lic."open" AND lic."pluginId" = $3 AND lic."activationId" IS NULL AND NOT lic."hooks"
    AND u."isActive" AND (u."expiresAt" IS NULL OR u."expiresAt" > $4::timestamp) AND u."activeMachines" < u."maxMachines"
  RETURNING u."activeMachines"
), machine AS (
  INSERT INTO "Activation" ("id", "licenseId", "fingerprint", "activatedAt", "lastValidatedAt", "machineName", "platform", "appVersion")
  SELECT $5, lic."id", $1, $4::timestamp, $4::timestamp, $6, $7, $8 FROM seat, lic
  RETURNING "id", "licenseId"
), event AS (
  INSERT INTO "LicenseEvent" ("id", "licenseId", "type", "actorType", "actor", "detail", "createdAt", "lastAt")
  SELECT $9, machine."licenseId", 'activated', $10, $11, $12::jsonb, $4::timestamp, $4::timestamp FROM machine
)
SELECT lic.*, (SELECT "activeMachines" FROM seat) AS "seat" FROM lic`;

let counter = 0;
// Random bytes are drawn 4 KiB at a time: one call to the system's generator per 512 ids, not one per id.
let pool = Buffer.alloc(0);
let offset = 0;
function random64(): bigint {
  if (offset + 8 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const value = pool.readBigUInt64BE(offset);
  offset += 8;
  return value;
}

/** An id of the same shape as the client's cuid(): "c", the time, a counter and randomness, in base 36. */
export function newId(now = Date.now()): string {
  counter = (counter + 1) % 1_679_616;
  const random = random64().toString(36).padStart(13, "0").slice(-12);
  return `c${now.toString(36)}${counter.toString(36).padStart(4, "0")}${random}`;
}

/** Statements prepared once per SQLite connection. */
const prepared = new WeakMap<
  BetterSqlite3.Database,
  Record<"read" | "seat" | "machine" | "event" | "begin" | "commit" | "rollback", BetterSqlite3.Statement>
>();

function statements(db: BetterSqlite3.Database) {
  let s = prepared.get(db);
  if (!s) {
    // The client's connection returns integers as BigInt; these statements read plain numbers.
    s = {
      read: db.prepare(SQLITE_READ).safeIntegers(false),
      seat: db.prepare(SQLITE_SEAT).safeIntegers(false),
      machine: db.prepare(SQLITE_MACHINE),
      event: db.prepare(SQLITE_EVENT),
      begin: db.prepare("BEGIN IMMEDIATE"),
      commit: db.prepare("COMMIT"),
      rollback: db.prepare("ROLLBACK"),
    };
    prepared.set(db, s);
  }
  return s;
}

/** What the statements write, besides the license's id. */
function writes(req: ActivateRequest, now: number, actor: Actor) {
  const activationId = newId(now);
  const machine = {
    fingerprint: req.machine_fingerprint,
    machineName: req.machine_name ?? null,
    platform: req.platform ?? null,
    appVersion: req.app_version ?? null,
  };
  return {
    activationId,
    eventId: newId(now),
    machine,
    detail: JSON.stringify(machineDetail({ ...machine, id: activationId })),
    actor,
  };
}

/** The decision before any write: an answer, or the license to take a seat on, or undefined for the general path. */
function decide(row: Row | undefined, req: ActivateRequest, now: number): DirectOutcome | Row | undefined {
  if (!row) return { kind: "refused", code: "NOT_FOUND", state: null };
  const standing = licenseStanding(
    {
      pluginId: row.pluginId,
      isActive: flag(row.isActive),
      revocation: row.revocation,
      billing: row.billing,
      trial: flag(row.trial),
      expiresAt: epochMs(row.expiresAt),
    },
    req.plugin_id,
    now,
  );
  if (standing !== "VALID") return { kind: "refused", code: standing, state: { maxMachines: row.maxMachines, machineCount: row.activeMachines } };
  if (row.activationId !== null || flag(row.hooks)) return undefined;
  return row;
}

const isUnique = (e: unknown) => {
  const code = (e as { code?: string } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
};

function sqliteActivation(db: BetterSqlite3.Database, req: ActivateRequest, now: number, actor: Actor): DirectOutcome | undefined {
  const s = statements(db);
  reportQuery(SQLITE_READ, [req.machine_fingerprint, req.license_key]);
  const decided = decide(s.read.get(req.machine_fingerprint, req.license_key) as Row | undefined, req, now);
  if (!decided || "kind" in decided) return decided;
  const w = writes(req, now, actor);
  const at = new Date(now).toISOString().replace("Z", "+00:00");
  s.begin.run();
  try {
    const seatParams = [at, decided.id, decided.developerId];
    reportQuery(SQLITE_SEAT, seatParams);
    const seat = s.seat.get(...seatParams) as { activeMachines: number } | undefined;
    if (!seat) {
      s.rollback.run();
      return undefined;
    }
    const machineParams = [
      w.activationId,
      decided.id,
      w.machine.fingerprint,
      at,
      at,
      w.machine.machineName,
      w.machine.platform,
      w.machine.appVersion,
    ];
    reportQuery(SQLITE_MACHINE, machineParams);
    s.machine.run(...machineParams);
    const eventParams = [w.eventId, decided.id, actor.type, actor.name, w.detail, at, at];
    reportQuery(SQLITE_EVENT, eventParams);
    s.event.run(...eventParams);
    s.commit.run();
    return { kind: "activated", activatedAt: now, active: seat.activeMachines, maxMachines: decided.maxMachines, licenseKey: req.license_key };
  } catch (error) {
    if (db.inTransaction) s.rollback.run();
    if (isUnique(error)) return undefined;
    throw error;
  }
}

async function postgresActivation(pool: pg.Pool, req: ActivateRequest, now: number, actor: Actor): Promise<DirectOutcome | undefined> {
  const w = writes(req, now, actor);
  // The columns are timestamps without a zone, in UTC (as the client writes them).
  const at = new Date(now).toISOString().slice(0, -1);
  const m = w.machine;
  const params = [
    m.fingerprint,
    req.license_key,
    req.plugin_id,
    at,
    w.activationId,
    m.machineName,
    m.platform,
    m.appVersion,
    w.eventId,
    actor.type,
    actor.name,
    w.detail,
  ];
  reportQuery(POSTGRES_ACTIVATE, params);
  let row: (Row & { seat: number | null }) | undefined;
  try {
    row = (await pool.query<Row & { seat: number | null }>({ name: "direct-activation", text: POSTGRES_ACTIVATE, values: params })).rows[0];
  } catch (error) {
    if (isUnique(error)) return undefined;
    throw error;
  }
  const decided = decide(row, req, now);
  if (row?.seat != null) {
    // The statement's rule and licenseStanding() are one rule written twice; the test of this file holds them together.
    if (decided === undefined || "kind" in decided) throw new Error("direct activation: a seat was taken for a license not in good standing");
    return { kind: "activated", activatedAt: now, active: row.seat, maxMachines: row.maxMachines, licenseKey: req.license_key };
  }
  if (!decided || "kind" in decided) return decided;
  return undefined; // in good standing, but no seat: the general path says why (all taken, or a race)
}

/**
 * Activates a new machine directly when it can (see above): the answer, or undefined when the general path must
 * decide (nothing has been written then).
 */
export async function activateDirectly(req: ActivateRequest, now: number, actor: Actor): Promise<DirectOutcome | undefined> {
  if (dbEngine() === "sqlite") {
    const db = directSqlite();
    return db ? sqliteActivation(db, req, now, actor) : undefined;
  }
  const pool = directPg();
  return pool ? postgresActivation(pool, req, now, actor) : undefined;
}
