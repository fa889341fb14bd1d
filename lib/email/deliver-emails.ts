import { outboxLoop } from "../jobs/outbox-loop.ts";
import { getDb } from "../db.ts";
import { env } from "../env.ts";
import { mailTransport, type MailTransport } from "./transport.ts";

/** How long a claimed message stays reserved for its sender; a sender that dies mid-send frees it after this. */
const CLAIM_MS = 60_000;
/** Waits after the 1st, 2nd, 3rd, 4th failed attempt; every later retry waits the last one. */
const RETRY_DELAYS_MS = [30_000, 2 * 60_000, 10 * 60_000, 60 * 60_000, 6 * 60 * 60_000] as const;
const DEFAULT_BATCH = 20;
const MAX_ERROR_LENGTH = 500;

/** The wait before the next attempt after `attempts` failed ones. */
export function retryDelayMs(attempts: number): number {
  return RETRY_DELAYS_MS[Math.min(Math.max(attempts, 1), RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[4];
}

export interface DeliverOptions {
  /** Most messages to attempt in this run (default 20). */
  limit?: number;
  /** The time to act at (tests move it forward); the clock when not given. */
  now?: Date;
  transport?: MailTransport;
}

/**
 * Sends the messages that are due. Each one is claimed first by a conditional update that succeeds for exactly one
 * sender, so concurrent runs (in this process or on other instances sharing the database) never send a message
 * twice. A failed attempt is recorded and retried with backoff; a message is never dropped.
 */
export async function deliverPendingEmails(opts: DeliverOptions = {}): Promise<{ sent: number; failed: number }> {
  const db = getDb();
  const clock = () => opts.now ?? new Date();
  const limit = Math.max(1, Math.floor(opts.limit ?? DEFAULT_BATCH));
  const transport = opts.transport ?? mailTransport();
  const from = env().MAIL_FROM;
  const due = (at: Date) => ({
    status: "pending",
    nextAttemptAt: { lte: at },
    OR: [{ lockedUntil: null }, { lockedUntil: { lt: at } }],
  });

  const start = clock();
  const candidates = await db.emailMessage.findMany({
    where: due(start),
    orderBy: [{ nextAttemptAt: "asc" }, { createdAt: "asc" }],
    take: limit,
    select: { id: true },
  });

  let sent = 0;
  let failed = 0;
  for (const { id } of candidates) {
    const at = clock();
    const lockedUntil = new Date(at.getTime() + CLAIM_MS);
    // The claim: only one sender's update matches a row that is still due and unlocked (on PostgreSQL a competing
    // update waits for ours and then re-checks the condition against the row we wrote).
    const claim = await db.emailMessage.updateMany({ where: { id, ...due(at) }, data: { lockedUntil } });
    if (claim.count !== 1) continue;
    const msg = await db.emailMessage.findUnique({ where: { id } });
    if (!msg) continue;

    let providerMessageId: string;
    try {
      ({ id: providerMessageId } = await transport.send({
        from,
        to: msg.to,
        subject: msg.subject,
        html: msg.html,
        text: msg.text,
        idempotencyKey: msg.id,
      }));
    } catch (error) {
      failed++;
      const attempts = msg.attempts + 1;
      const failedAt = clock();
      // Still "pending": the message waits for its next attempt. `status` in the condition: should our claim have
      // expired and another sender delivered it meanwhile, its "sent" stands.
      await db.emailMessage.updateMany({
        where: { id, status: "pending" },
        data: {
          attempts,
          lastError: describe(error, transport.name),
          nextAttemptAt: new Date(failedAt.getTime() + retryDelayMs(attempts)),
          lockedUntil: null,
        },
      });
      continue;
    }
    sent++;
    // If this write fails, the claim runs out and the message is sent again with the same idempotency key, which
    // Resend answers with the first result instead of a second e-mail.
    await db.emailMessage.updateMany({
      where: { id },
      data: { status: "sent", sentAt: clock(), providerMessageId, lockedUntil: null, lastError: null },
    });
  }
  return { sent, failed };
}

function describe(error: unknown, transport: string): string {
  let text: string;
  if (error instanceof Error) text = error.message || error.name;
  else if (typeof error === "object" && error !== null) text = safeJson(error);
  else text = String(error);
  const line = `${transport}: ${text}`.replace(/\s+/g, " ").trim();
  return line.length > MAX_ERROR_LENGTH ? `${line.slice(0, MAX_ERROR_LENGTH - 1)}…` : line;
}

function safeJson(value: object): string {
  try {
    const json = JSON.stringify(value) as string | undefined; // undefined when a toJSON returns undefined
    return json ?? Object.prototype.toString.call(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/* ------------------------------------------------------------------------------------------------------------ */

const loop = outboxLoop({ key: "outbox", label: "e-mail outbox", batch: DEFAULT_BATCH, deliver: deliverPendingEmails });

/**
 * Starts delivering in the background: every 2 s, and at once after kickOutbox(). Idempotent; the loop never keeps
 * the process alive. Returns a function that stops it.
 */
export const startOutbox = (): (() => void) => loop.start();

/**
 * Asks the background loop to deliver now rather than on its next tick; call it after the transaction that queued
 * a message committed. Kicks within 50 ms make one run. Does nothing where no loop was started (tests, scripts):
 * there deliverPendingEmails() is called directly.
 */
export const kickOutbox = (): void => loop.kick();
