import type { Db } from "../db.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

export interface EnqueueEmailInput {
  to: string;
  subject: string;
  html: string;
  text: string;
  /** "license" | "sign-in" | … */
  kind: string;
  /** Names the fact the message is about (e.g. "license:<orderId>"): a second message for the same fact is not queued. */
  dedupeKey?: string;
}

/**
 * Queues a message in the outbox, inside the caller's transaction, so the message exists exactly when what caused
 * it was committed. Delivery happens later (deliverPendingEmails), with retries. Returns the outbox row id; with a
 * dedupeKey that was queued before, the id of the existing row, unchanged.
 *
 * After the transaction commits, call kickOutbox() to deliver without waiting for the next poll.
 */
export async function enqueueEmail(tx: Tx | Db, msg: EnqueueEmailInput): Promise<string> {
  const data = {
    to: msg.to.trim().toLowerCase(),
    subject: msg.subject.replace(/\s+/g, " ").trim(),
    html: msg.html,
    text: msg.text,
    kind: msg.kind,
  };
  if (!msg.dedupeKey) {
    const row = await tx.emailMessage.create({ data, select: { id: true } });
    return row.id;
  }
  // An upsert, not create + catch: on PostgreSQL a unique violation aborts the caller's whole transaction. The
  // update must not be empty: with `update: {}` Prisma reads then inserts, and a concurrent transaction queueing the
  // same key still hits the unique index; with a (no-op) assignment it issues one INSERT … ON CONFLICT DO UPDATE,
  // which waits for the other transaction and then leaves its row as it is.
  const row = await tx.emailMessage.upsert({
    where: { dedupeKey: msg.dedupeKey },
    create: { ...data, dedupeKey: msg.dedupeKey },
    update: { dedupeKey: msg.dedupeKey },
    select: { id: true },
  });
  return row.id;
}
