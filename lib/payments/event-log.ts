import type { Db } from "../db.ts";
import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** What the record of an applied provider event says about it. */
export interface ProviderEventRecord {
  /** The provider's event id; stored as "<provider>:<id>", so each event is applied at most once, on every instance. */
  id: string;
  provider: "test" | "stripe";
  type: string;
  orderId?: string | null;
  /** The connected account the event concerns (Stripe Connect), if any. */
  accountId?: string | null;
}

/**
 * Thrown by an effect when the event arrived before what it depends on (a refund of an order whose payment has not
 * been confirmed yet): nothing is recorded and the provider is answered 409, so it delivers the event again later.
 */
export class EventNotReady extends AppError {
  constructor(detail: string) {
    super("event_not_ready", 409, detail);
  }
}

const isUniqueViolation = (e: unknown) => (e as { code?: string } | null)?.code === "P2002";

/**
 * Applies a provider event exactly once: its record and its effect commit in one transaction, so a retry, a
 * concurrent duplicate or the same delivery reaching another instance finds the record and changes nothing. The
 * effect returns one line for the operator's console (the record's `outcome`).
 */
export async function applyOnce<T extends { outcome: string }>(
  record: ProviderEventRecord,
  effect: (tx: Tx) => Promise<T>,
): Promise<({ duplicate: false } & T) | { duplicate: true }> {
  try {
    return await getDb().$transaction(
      async (tx) => {
        const id = `${record.provider}:${record.id}`;
        await tx.paymentEvent.create({
          data: { id, provider: record.provider, type: record.type, orderId: record.orderId ?? null, accountId: record.accountId ?? null },
        });
        const result = await effect(tx);
        await tx.paymentEvent.update({ where: { id }, data: { outcome: result.outcome.slice(0, 500) } });
        return { duplicate: false as const, ...result };
      },
      { maxWait: 10_000, timeout: 20_000 },
    );
  } catch (error) {
    if (isUniqueViolation(error)) return { duplicate: true };
    throw error;
  }
}
