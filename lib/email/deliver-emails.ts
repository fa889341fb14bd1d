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

/** How often the background loop looks for due messages. */
const OUTBOX_POLL_MS = 2_000;
const KICK_DEBOUNCE_MS = 50;
/** A run that used its whole batch goes again at once, up to this many times before waiting for the next tick. */
const MAX_FOLLOW_UPS = 10;

interface OutboxLoop {
  timer?: NodeJS.Timeout;
  kickTimer?: NodeJS.Timeout;
  /** The run in progress; runs never overlap. */
  running?: Promise<void>;
  /** A kick arrived during a run: run again when it ends. */
  again: boolean;
  /** The run function of the module copy that started the loop (server.ts's), used by every copy's kickOutbox. */
  run?: () => Promise<void>;
  lastError?: { message: string; at: number };
}

// server.ts and Next's bundled route handlers each load their own copy of this module; they share one loop through
// globalThis, as lib/db.ts shares one client.
const KEY = Symbol.for("indie-license-market.outbox");
const g = globalThis as unknown as Record<symbol, OutboxLoop | undefined>;
const loop = (): OutboxLoop => (g[KEY] ??= { again: false });

function runOutbox(): Promise<void> {
  const s = loop();
  if (s.running) {
    s.again = true;
    return s.running;
  }
  s.running = (async () => {
    try {
      let followUps = 0;
      do {
        s.again = false;
        const { sent, failed } = await deliverPendingEmails({ limit: DEFAULT_BATCH });
        if (sent + failed >= DEFAULT_BATCH && followUps++ < MAX_FOLLOW_UPS) s.again = true;
      } while (s.again);
    } catch (error) {
      logLoopError(s, error);
    } finally {
      s.running = undefined;
    }
  })();
  return s.running;
}

/** Logs a failed run, but the same error (a database that is down) at most once a minute, not every 2 s. */
function logLoopError(s: OutboxLoop, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  const now = Date.now();
  if (s.lastError?.message === message && now - s.lastError.at < 60_000) return;
  s.lastError = { message, at: now };
  console.error("e-mail outbox: delivery run failed:", error);
}

/**
 * Starts delivering in the background: every 2 s, and at once after kickOutbox(). Idempotent; the loop never keeps
 * the process alive. Returns a function that stops it.
 */
export function startOutbox(): () => void {
  const s = loop();
  if (!s.timer) {
    s.run = runOutbox;
    s.timer = setInterval(() => void runOutbox(), OUTBOX_POLL_MS);
    s.timer.unref();
    void runOutbox(); // whatever was queued before a restart goes out now
  }
  return stopOutbox;
}

function stopOutbox(): void {
  const s = loop();
  if (s.timer) clearInterval(s.timer);
  if (s.kickTimer) clearTimeout(s.kickTimer);
  s.timer = undefined;
  s.kickTimer = undefined;
  s.run = undefined;
}

/**
 * Asks the background loop to deliver now rather than on its next tick; call it after the transaction that queued
 * a message committed. Kicks within 50 ms make one run. Does nothing where no loop was started (tests, scripts):
 * there deliverPendingEmails() is called directly.
 */
export function kickOutbox(): void {
  const s = loop();
  if (!s.run || s.kickTimer) return;
  s.kickTimer = setTimeout(() => {
    s.kickTimer = undefined;
    void s.run?.();
  }, KICK_DEBOUNCE_MS);
  s.kickTimer.unref();
}
