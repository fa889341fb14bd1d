import { kickWebhooks } from "../webhooks/deliver.ts";
import { sweepIdempotencyRecords } from "../http/idempotency.ts";
import { getDb } from "../db.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { licenseCache } from "../licensing/license-state.ts";
import { stripeClient } from "../payments/stripe-client.ts";
import { isMarketplaceRefund, refundReserved } from "./refund-order.ts";
import { settleRefund } from "./settle-refund.ts";

/** A refund still "pending" this long was abandoned: its request died with the process that made it. */
const ABANDONED_AFTER_MS = 10 * 60_000;

/**
 * Finishes refunds whose process stopped between reserving the amount and settling it (a crash, a deploy). Each one
 * holds a reservation on its order (and makes Stripe's echo of any later refund wait), so it is resolved by what the
 * provider knows, never by asking again: Stripe's refunds of the payment are listed and the one carrying our refund
 * id in its metadata settles it (ledger, license, the buyer's mail) or, refused, fails it; when Stripe has none, the
 * request never reached it, so the refund fails and its reservation is given back (the seller can refund again). A
 * test-mode refund moved no money, so it fails the same way. The marketplace's own refund of a payment it must not
 * keep (isMarketplaceRefund) has nobody to ask again, so it is asked of the provider again instead (refundReserved,
 * under the same idempotency key). Each transition is conditional on "pending", so a late settlement by the original
 * process, or a second instance's sweep, applies once.
 */
export async function resumeAbandonedRefunds(now = new Date()): Promise<{ settled: number; failed: number }> {
  const db = getDb();
  const stale = await db.refund.findMany({
    where: { status: "pending", createdAt: { lt: new Date(now.getTime() - ABANDONED_AFTER_MS) } },
    include: { order: { select: { provider: true, providerPaymentId: true } } },
    orderBy: { createdAt: "asc" },
    take: 50,
  });
  let settled = 0;
  let failed = 0;
  for (const refund of stale) {
    let found: { id: string; status: string | null } | undefined;
    if (refund.order.provider === "stripe" && refund.order.providerPaymentId) {
      // Throws when Stripe cannot be reached: the refund stays pending until a later sweep can ask.
      const list = await stripeClient().refunds.list({ payment_intent: refund.order.providerPaymentId, limit: 100 });
      found = list.data.find((r) => r.metadata?.refund_id === refund.id);
    }
    if (found && found.status !== "failed" && found.status !== "canceled") {
      const providerRefundId = found.id;
      const r = await db.$transaction((tx) => settleRefund(tx, refund.id, providerRefundId), { maxWait: 10_000, timeout: 20_000 });
      if (r.licenseKey) licenseCache().invalidate(r.licenseKey);
      for (const key of r.bundleKeys) licenseCache().invalidate(key);
      if (r.settled) {
        settled++;
        kickWebhooks(); // order.refunded (and license.revoked) to the seller's endpoints
      }
      continue;
    }
    if (isMarketplaceRefund(refund) && !found) {
      const status = await refundReserved(refund.id);
      if (status === "succeeded") settled++;
      if (status === "failed") failed++;
      continue;
    }
    const released = await db.$transaction(async (tx) => {
      const n = await tx.refund.updateMany({ where: { id: refund.id, status: "pending" }, data: { status: "failed" } });
      if (n.count > 0) await tx.order.update({ where: { id: refund.orderId }, data: { refundedCents: { decrement: refund.amountCents } } });
      return n.count;
    });
    failed += released;
  }
  if (settled > 0) kickOutbox();
  return { settled, failed };
}

const g = globalThis as typeof globalThis & { __ilmRefundSweep?: ReturnType<typeof setInterval> };

/** Runs resumeAbandonedRefunds (and forgets idempotency answers older than 24 h) every few minutes on this instance; returns the stop function. */
export function startRefundSweep(everyMs = 5 * 60_000): () => void {
  const stop = () => {
    clearInterval(g.__ilmRefundSweep);
    g.__ilmRefundSweep = undefined;
  };
  if (g.__ilmRefundSweep) return stop;
  const run = () => {
    resumeAbandonedRefunds().catch((error: unknown) => {
      console.error("refund sweep failed", error);
    });
    sweepIdempotencyRecords().catch((error: unknown) => {
      console.error("idempotency sweep failed", error);
    });
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  g.__ilmRefundSweep = timer;
  return stop;
}
