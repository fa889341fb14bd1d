import { getDb } from "../db.ts";
import { env } from "../env.ts";

/**
 * "Last validated" timestamps, written behind the request: the app needs its answer, not our bookkeeping. Pending
 * timestamps are flushed in one transaction every few seconds and on shutdown; losing a few seconds of them in a
 * crash costs nothing that matters.
 */
interface Log {
  pending: Map<string, number>;
  timer?: NodeJS.Timeout;
}

const KEY = Symbol.for("indie-license-market.validation-log");
const g = globalThis as unknown as Record<symbol, Log | undefined>;
const log = (): Log => (g[KEY] ??= { pending: new Map() });

export function recordValidation(activationId: string, at: number): void {
  const l = log();
  l.pending.set(activationId, at);
  if (!l.timer) {
    l.timer = setTimeout(
      () => void flushValidations().catch((e: unknown) => console.error("flushing validation times failed:", e)),
      env().VALIDATION_FLUSH_MS,
    );
    l.timer.unref();
  }
}

export async function flushValidations(): Promise<number> {
  const l = log();
  if (l.timer) clearTimeout(l.timer);
  l.timer = undefined;
  if (l.pending.size === 0) return 0;
  const batch = [...l.pending];
  l.pending.clear();
  const db = getDb();
  // updateMany: an activation released in the meantime is simply not there any more.
  await db.$transaction(batch.map(([id, at]) => db.activation.updateMany({ where: { id }, data: { lastValidatedAt: new Date(at) } })));
  return batch.length;
}
