import { writeAudit } from "../admin/audit.ts";
import { getDb } from "../db.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { AppError, notFound } from "../http/errors.ts";
import { licenseCache } from "../licensing/license-state.ts";
import { applyOnce } from "../payments/event-log.ts";
import { testPaymentsEnabled } from "../payments/provider.ts";
import { disputeClosed, disputeCreated } from "./stripe-events.ts";

export const TEST_DISPUTE_STEPS = ["open", "won", "lost"] as const;
export type TestDisputeStep = (typeof TEST_DISPUTE_STEPS)[number];

/**
 * The test-mode provider's disputes: in test mode no bank can open one, so the operator plays the buyer's bank from
 * the console — open a dispute on a test order, then close it as won or lost. Each step is the same effect a Stripe
 * dispute event has (license suspended, then reinstated or revoked; ledger entries; the seller's e-mail), applied once
 * as a test-provider event, and audited with the operator's address.
 */
export async function simulateTestDispute(orderId: string, step: TestDisputeStep, admin: { email: string }): Promise<{ outcome: string }> {
  if (!testPaymentsEnabled()) throw new AppError("test_mode_off", 409, "Test disputes exist only while test mode takes payments.");
  const db = getDb();
  const order = await db.order.findUnique({
    where: { id: orderId },
    select: { id: true, provider: true, status: true, amountCents: true, taxCents: true, currency: true, disputeStatus: true },
  });
  if (!order) throw notFound("order");
  if (order.provider !== "test")
    throw new AppError("not_a_test_order", 409, "Only a test-mode order can have a test dispute; a real one comes from the bank through Stripe.");
  if (order.status !== "paid") throw new AppError("order_not_paid", 409, `Only paid orders can be disputed; this one is ${order.status}.`);
  if (step === "open" && order.disputeStatus) throw new AppError("dispute_exists", 409, `This order already had a dispute (${order.disputeStatus}).`);
  if (step !== "open" && order.disputeStatus !== "open") throw new AppError("no_open_dispute", 409, "Open a test dispute on this order first.");
  const dispute = {
    id: `dp_test_${order.id}`,
    amount: order.amountCents + (order.taxCents ?? 0),
    currency: order.currency,
    reason: "general" as const,
    status: step === "open" ? ("needs_response" as const) : step,
  };
  const type = step === "open" ? "charge.dispute.created" : "charge.dispute.closed";
  const r = await applyOnce({ id: `${dispute.id}:${step}`, provider: "test", type, orderId }, async (tx) => {
    const effect = step === "open" ? await disputeCreated(tx, orderId, dispute) : await disputeClosed(tx, orderId, dispute);
    await writeAudit(tx, admin, { action: "order.test_dispute", targetType: "order", targetId: orderId, detail: { step, dispute_id: dispute.id } });
    return effect;
  });
  if (r.duplicate) throw new AppError("dispute_step_done", 409, `This test dispute was already ${step === "open" ? "opened" : "closed"}.`);
  if (r.licenseKey) licenseCache().invalidate(r.licenseKey);
  for (const key of r.bundleKeys ?? []) licenseCache().invalidate(key);
  if (r.mail) kickOutbox();
  kickWebhooks();
  return { outcome: r.outcome };
}
