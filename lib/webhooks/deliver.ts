import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { getDb } from "../db.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { webhookDisabledEmail } from "../email/templates.ts";
import { outboxLoop } from "../jobs/outbox-loop.ts";
import { isLocalTrialWebhook } from "../acp/platforms.ts";
import { postToTarget } from "../seller-webhooks/target.ts";
import { absoluteUrl } from "../urls.ts";

/**
 * The webhook outbox's sender. Rows of WebhookDelivery are written in the transaction of the fact they report
 * (lib/acp/order-events.ts) and POSTed from here: claimed with `lockedUntil` so that several instances on one
 * database never send a row at the same time, signed at send time with the target's current secret, retried with
 * backoff, and marked "failed" after the last attempt.
 */

/** How long a claimed row stays reserved for its sender; a sender that dies mid-send frees it after this. */
const CLAIM_MS = 60_000;
/** How long one POST may take, headers and body, before it counts as a failed attempt. */
const REQUEST_TIMEOUT_MS = 10_000;
/**
 * Waits after the 1st … 7th failed attempt. The 8th failed attempt marks the row "failed": 8 attempts over about
 * 20½ hours (10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h).
 */
const RETRY_DELAYS_MS = [10_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000] as const;
const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const DEFAULT_BATCH = 20;
const MAX_ERROR_LENGTH = 500;
/**
 * A seller's endpoint is disabled after this many deliveries in a row failed for good (each after all 8 attempts, so
 * at the earliest about 20 hours after the first of them failed), and the seller is e-mailed.
 */
export const AUTO_DISABLE_AFTER = 5;

export interface DeliverWebhooksOptions {
  /** Most rows to attempt in this run (default 20). */
  limit?: number;
  /** The time to act at (tests move it forward); the clock when not given. */
  now?: Date;
}

/** The `Merchant-Signature` header of the ACP webhook spec: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "t.body")>`. */
function merchantSignature(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return `t=${t},v1=${v1}`;
}

/**
 * Rows of one subject are sent in the order they were written: by convention a dedupeKey reads
 * `<source>:<subject>:<rest>` (lib/acp/order-events.ts: `acp:<orderId>:order_update:…`), and a row is held back while
 * an older row of the same target and subject is still pending — a platform never hears of a refund before it heard
 * of the order.
 */
function subjectPrefix(dedupeKey: string | null): string | null {
  const match = dedupeKey === null ? null : /^[^:]+:[^:]+:/.exec(dedupeKey);
  return match ? match[0] : null;
}

/**
 * Sends the webhook deliveries that are due. Each row is claimed by a conditional update that succeeds for exactly
 * one sender (in this process or on another instance sharing the database); a 2xx answer marks it "sent", anything
 * else (another status, a redirect, a timeout, a refused connection) is an attempt that failed.
 */
export async function deliverPendingWebhooks(opts: DeliverWebhooksOptions = {}): Promise<{ sent: number; failed: number }> {
  const db = getDb();
  const clock = () => opts.now ?? new Date();
  const limit = Math.max(1, Math.floor(opts.limit ?? DEFAULT_BATCH));
  const due = (at: Date) => ({
    status: "pending",
    nextAttemptAt: { lte: at },
    OR: [{ lockedUntil: null }, { lockedUntil: { lt: at } }],
  });

  const candidates = await db.webhookDelivery.findMany({
    where: due(clock()),
    orderBy: [{ nextAttemptAt: "asc" }, { createdAt: "asc" }, { id: "asc" }],
    take: limit,
    select: { id: true },
  });

  let sent = 0;
  let failed = 0;
  for (const { id } of candidates) {
    const at = clock();
    const claim = await db.webhookDelivery.updateMany({ where: { id, ...due(at) }, data: { lockedUntil: new Date(at.getTime() + CLAIM_MS) } });
    if (claim.count !== 1) continue;
    const row = await db.webhookDelivery.findUnique({ where: { id } });
    if (!row) continue;

    const prefix = subjectPrefix(row.dedupeKey);
    if (prefix !== null) {
      const earlier = await db.webhookDelivery.findFirst({
        where: {
          targetId: row.targetId,
          status: "pending",
          dedupeKey: { startsWith: prefix },
          OR: [{ createdAt: { lt: row.createdAt } }, { createdAt: row.createdAt, id: { lt: row.id } }],
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { nextAttemptAt: true },
      });
      if (earlier) {
        // Not an attempt: wait for the earlier row's next try, then look again.
        const after = Math.max(earlier.nextAttemptAt.getTime(), at.getTime()) + 1_000;
        await db.webhookDelivery.updateMany({ where: { id, status: "pending" }, data: { nextAttemptAt: new Date(after), lockedUntil: null } });
        continue;
      }
    }

    const attempts = row.attempts + 1;
    const target = row.kind === "seller" ? await sellerTarget(row) : await platformTarget(row);
    if (!target.ok) {
      failed++;
      await db.webhookDelivery.updateMany({
        where: { id, status: "pending" },
        data: { status: "failed", lastError: `not sent: ${target.reason}`, lockedUntil: null },
      });
      continue;
    }

    const outcome = await target.send();
    const last = !outcome.ok && attempts >= MAX_ATTEMPTS;
    // `status` in the condition: a row another sender already settled after our claim ran out keeps its result.
    const settled = await db.$transaction(async (tx) => {
      const done = await tx.webhookDelivery.updateMany({
        where: { id, status: "pending" },
        data: outcome.ok
          ? {
              status: "sent",
              sentAt: clock(),
              attempts,
              url: target.url,
              lastStatus: outcome.status,
              lastError: null,
              lastDurationMs: outcome.durationMs,
              lockedUntil: null,
            }
          : {
              status: last ? "failed" : "pending",
              attempts,
              url: target.url,
              lastStatus: outcome.status,
              lastError: clip(outcome.error),
              lastDurationMs: outcome.durationMs,
              nextAttemptAt: last ? row.nextAttemptAt : new Date(clock().getTime() + retryDelay(attempts)),
              lockedUntil: null,
            },
      });
      if (done.count !== 1) return false;
      await tx.webhookAttempt.create({
        data: {
          deliveryId: id,
          attempt: attempts,
          at,
          status: outcome.status,
          durationMs: outcome.durationMs,
          error: outcome.ok ? null : clip(outcome.error),
        },
      });
      if (row.kind === "seller") await settleStreak(tx, row.targetId, outcome.ok ? "sent" : last ? "failed" : "retrying", clock());
      return true;
    });
    if (outcome.ok) sent++;
    else failed++;
    if (settled && !outcome.ok && last && row.kind === "seller") kickOutbox();
  }
  return { sent, failed };
}

type Target = { ok: true; url: string; send: () => Promise<Outcome> } | { ok: false; reason: string };
type Outcome = { ok: true; status: number; durationMs: number } | { ok: false; status: number | null; error: string; durationMs: number };

/** An agent platform's webhook (ACP order events), signed with Merchant-Signature. */
async function platformTarget(row: { id: string; targetId: string; payload: string }): Promise<Target> {
  const platform = await getDb().agentPlatform.findUnique({
    where: { id: row.targetId },
    select: { webhookUrl: true, webhookSecret: true, revokedAt: true },
  });
  if (!platform) return { ok: false, reason: "the agent platform no longer exists" };
  if (platform.revokedAt) return { ok: false, reason: "the agent platform was revoked" };
  const url = platform.webhookUrl;
  if (!url) return { ok: false, reason: "the agent platform has no webhook URL any more" };
  return { ok: true, url, send: () => post(url, platform.webhookSecret, row.id, row.payload, new Date()) };
}

/**
 * A seller's endpoint (Standard Webhooks): signed with the endpoint's current secret by the standardwebhooks
 * library, `webhook-id` = the row id (the same on every retry and redelivery), posted through target.ts (the target
 * checked again and the connection pinned to the checked address). A deleted or disabled endpoint settles the row as
 * "failed", not sent: events that happen while an endpoint is disabled are not queued at all, and the seller can
 * redeliver from the log after enabling it again.
 */
async function sellerTarget(row: { id: string; targetId: string; payload: string }): Promise<Target> {
  const endpoint = await getDb().sellerWebhookEndpoint.findUnique({
    where: { id: row.targetId },
    select: { url: true, secret: true, enabled: true },
  });
  if (!endpoint) return { ok: false, reason: "the endpoint was deleted" };
  if (!endpoint.enabled) return { ok: false, reason: "the endpoint is disabled" };
  return {
    ok: true,
    url: endpoint.url,
    send: () => {
      // Signed at the wall clock's time even when a test moves `now`: receivers check it against their own clock.
      const at = new Date();
      return postToTarget(
        endpoint.url,
        {
          "Content-Type": "application/json",
          "User-Agent": "indie-license-market-webhooks/1",
          "webhook-id": row.id,
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
          "webhook-signature": new Webhook(endpoint.secret).sign(row.id, at, row.payload),
        },
        row.payload,
        REQUEST_TIMEOUT_MS,
      );
    },
  };
}

type Tx = Parameters<Parameters<ReturnType<typeof getDb>["$transaction"]>[0]>[0];

/**
 * The endpoint's failure streak: a delivery that went through resets it; one that failed for good (its last attempt
 * used) adds one, and the AUTO_DISABLE_AFTER-th in a row disables the endpoint and e-mails the seller (once: the
 * conditional update on `enabled` decides, whichever instance gets there).
 */
async function settleStreak(tx: Tx, endpointId: string, result: "sent" | "failed" | "retrying", now: Date): Promise<void> {
  if (result === "retrying") return;
  if (result === "sent") {
    await tx.sellerWebhookEndpoint.updateMany({ where: { id: endpointId, failureStreak: { gt: 0 } }, data: { failureStreak: 0 } });
    return;
  }
  await tx.sellerWebhookEndpoint.updateMany({ where: { id: endpointId }, data: { failureStreak: { increment: 1 } } });
  const reason = `Disabled automatically: ${AUTO_DISABLE_AFTER} deliveries in a row failed after every retry.`;
  const disabled = await tx.sellerWebhookEndpoint.updateMany({
    where: { id: endpointId, enabled: true, failureStreak: { gte: AUTO_DISABLE_AFTER } },
    data: { enabled: false, disabledAt: now, disabledReason: reason },
  });
  if (disabled.count !== 1) return;
  const endpoint = await tx.sellerWebhookEndpoint.findUnique({
    where: { id: endpointId },
    select: { url: true, developer: { select: { email: true, name: true } } },
  });
  if (!endpoint) return;
  const mail = webhookDisabledEmail({
    sellerName: endpoint.developer.name,
    url: endpoint.url,
    failures: AUTO_DISABLE_AFTER,
    dashboardUrl: absoluteUrl("/dashboard/webhooks"),
  });
  await enqueueEmail(tx, {
    to: endpoint.developer.email,
    ...mail,
    kind: "webhook-disabled",
    dedupeKey: `webhook-disabled:${endpointId}:${now.toISOString()}`,
  });
}

const retryDelay = (attempts: number) => RETRY_DELAYS_MS[Math.min(Math.max(attempts, 1), RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[6];

/**
 * One signed POST. Redirects are not followed (the signature is for the registered URL, and a redirect elsewhere is
 * a misconfiguration the operator should see). `Request-Id` is the delivery's id, the same on every retry, so a
 * receiver can tell a retry from a new event.
 */
async function post(url: string, secret: string, deliveryId: string, body: string, at: Date): Promise<Outcome> {
  const started = performance.now();
  const took = () => Math.max(0, Math.round(performance.now() - started));
  const headers = {
    "Content-Type": "application/json",
    "Merchant-Signature": merchantSignature(secret, body, at),
    "Request-Id": deliveryId,
    Timestamp: at.toISOString(),
    "User-Agent": "indie-license-market-webhooks/1",
  };
  // A platform may set its own URL: every target but a local trial receiver is under the seller webhooks' rules,
  // checked again now and connected to at the address checked (WEBHOOK_ALLOW_PRIVATE as for sellers).
  if (!isLocalTrialWebhook(url)) {
    const outcome = await postToTarget(url, headers, body, REQUEST_TIMEOUT_MS);
    return outcome.ok ? outcome : { ...outcome, error: clip(outcome.error) };
  }
  try {
    const res = await fetch(url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      headers,
      body,
    });
    // The answer's body is not needed; reading a little of it names the error in the console.
    const text = await res.text().catch(() => "");
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, durationMs: took() };
    return { ok: false, status: res.status, error: clip(`HTTP ${res.status}${text ? `: ${text}` : ""}`), durationMs: took() };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
    const message =
      error instanceof Error ? (error.name === "TimeoutError" ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s` : error.message) : String(error);
    return { ok: false, status: null, error: clip(`${message}${cause}`), durationMs: took() };
  }
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_ERROR_LENGTH ? `${line.slice(0, MAX_ERROR_LENGTH - 1)}…` : line;
}

/* ------------------------------------------------------------------------------------------------------------ */

const loop = outboxLoop({ key: "webhooks", label: "webhook outbox", batch: DEFAULT_BATCH, deliver: deliverPendingWebhooks });

/**
 * Starts delivering in the background: every 2 s, and soon after kickWebhooks(). Idempotent; the loop never keeps the
 * process alive. Returns a function that stops it.
 */
export const startWebhookOutbox = (): (() => void) => loop.start();

/**
 * Asks the background loop to deliver now rather than on its next tick; call it after the transaction that queued a
 * delivery committed. Does nothing where no loop was started (tests call deliverPendingWebhooks() directly).
 */
export const kickWebhooks = (): void => loop.kick();
