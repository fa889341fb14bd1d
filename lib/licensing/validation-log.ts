import { Prisma } from "../generated/sqlite/client.ts";
import { dbEngine, getDb } from "../db.ts";
import { env } from "../env.ts";

/**
 * "Last validated" timestamps and failed validations of known licenses, written behind the request: the app needs
 * its answer, not our bookkeeping. Pending timestamps are flushed in one transaction every few seconds and on
 * shutdown; failures are counted per license, code and hour (UTC) and added to that hour's one "validation_failed"
 * row of the license's event log. Losing a few seconds of either in a crash costs nothing that matters.
 */
interface Failure {
  licenseId: string;
  code: string;
  hour: number;
  count: number;
  lastAt: number;
}

interface Log {
  pending: Map<string, number>;
  failures: Map<string, Failure>;
  timer?: NodeJS.Timeout;
}

const HOUR_MS = 3_600_000;
/** A flood of failures across many licenses is written at once rather than held in memory. */
const MAX_PENDING_FAILURES = 10_000;
/** Machines per UPDATE statement when flushing (two bound values each). */
const FLUSH_CHUNK = 500;

const KEY = Symbol.for("indie-license-market.validation-log");
const g = globalThis as unknown as Record<symbol, Log | undefined>;
const log = (): Log => {
  const l = (g[KEY] ??= { pending: new Map(), failures: new Map() });
  // A log created by an older copy of this module (a dev server's reload) had no failures yet.
  (l as Partial<Log>).failures ??= new Map();
  return l;
};

function schedule(l: Log, ms: number): void {
  if (l.timer) return;
  l.timer = setTimeout(() => void flushValidations().catch((e: unknown) => console.error("flushing validation times failed:", e)), ms);
  l.timer.unref();
}

export function recordValidation(activationId: string, at: number): void {
  const l = log();
  l.pending.set(activationId, at);
  schedule(l, env().VALIDATION_FLUSH_MS);
}

/** A failed validation of a known license: one Map update on the hot path, counted into its hour at the next flush. */
export function recordValidationFailure(licenseId: string, code: string, at: number): void {
  const l = log();
  const hour = at - (at % HOUR_MS);
  const key = `${licenseId} ${code} ${String(hour)}`;
  const seen = l.failures.get(key);
  if (seen) {
    seen.count++;
    if (at > seen.lastAt) seen.lastAt = at;
  } else l.failures.set(key, { licenseId, code, hour, count: 1, lastAt: at });
  if (l.failures.size >= MAX_PENDING_FAILURES && l.timer) {
    clearTimeout(l.timer);
    l.timer = undefined;
    schedule(l, 0);
  } else schedule(l, env().VALIDATION_FLUSH_MS);
}

const errorCode = (e: unknown) => (e as { code?: string } | null)?.code;

/**
 * Adds a batch of failures to their hour's row: created by the first flush of the hour (of any instance), then
 * incremented. An upsert on the unique (license, type, code, hour); two instances creating the same row at once
 * make one of them fail on the unique index, and its retry finds the row and increments it.
 */
async function flushFailure(f: Failure): Promise<void> {
  const db = getDb();
  const hour = new Date(f.hour);
  const lastAt = new Date(f.lastAt);
  for (let attempt = 1; ; attempt++) {
    try {
      await db.licenseEvent.upsert({
        where: { licenseId_type_code_hour: { licenseId: f.licenseId, type: "validation_failed", code: f.code, hour } },
        create: {
          licenseId: f.licenseId,
          type: "validation_failed",
          actorType: "app",
          actor: null,
          detail: {},
          code: f.code,
          hour,
          count: f.count,
          createdAt: lastAt,
          lastAt,
        },
        update: { count: { increment: f.count }, lastAt },
      });
      return;
    } catch (error) {
      // The license was deleted meanwhile: nothing to count against.
      if (errorCode(error) === "P2003" || errorCode(error) === "P2025") return;
      if (errorCode(error) !== "P2002" || attempt >= 3) throw error;
    }
  }
}

export async function flushValidations(): Promise<number> {
  const l = log();
  if (l.timer) clearTimeout(l.timer);
  l.timer = undefined;
  const failures = [...l.failures.values()];
  l.failures.clear();
  const batch = [...l.pending];
  l.pending.clear();
  if (batch.length > 0) {
    const db = getDb();
    // One UPDATE … FROM (VALUES …) per chunk, in one transaction: a flush after a busy interval carries thousands of
    // machines, and one statement costs what one row did through the client. An activation released in the meantime
    // is simply not there any more (the join finds nothing to update).
    const postgres = dbEngine() === "postgresql";
    const statements = [];
    for (let i = 0; i < batch.length; i += FLUSH_CHUNK) {
      const rows = batch.slice(i, i + FLUSH_CHUNK).map(([id, at]) => Prisma.sql`(${id}, ${new Date(at)})`);
      statements.push(
        postgres
          ? db.$executeRaw`UPDATE "Activation" AS a SET "lastValidatedAt" = v.at::timestamp(3) FROM (VALUES ${Prisma.join(rows)}) AS v(id, at) WHERE a."id" = v.id`
          : db.$executeRaw`UPDATE "Activation" SET "lastValidatedAt" = v.column2 FROM (VALUES ${Prisma.join(rows)}) AS v WHERE "Activation"."id" = v.column1`,
      );
    }
    await db.$transaction(statements);
  }
  for (const f of failures) await flushFailure(f);
  return batch.length + failures.length;
}
