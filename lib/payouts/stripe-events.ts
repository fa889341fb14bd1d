import type Stripe from "stripe";
import type { AppliedEvent } from "../payments/apply-payment-event.ts";
import { applyOnce } from "../payments/event-log.ts";

/** Connect account events (account.updated): the payout account's status, applied exactly once. (Scaffold: records the event; the payouts work fills in its effect.) */
export async function applyAccountEvent(event: Stripe.Event): Promise<AppliedEvent> {
  const r = await applyOnce({ id: event.id, provider: "stripe", type: event.type }, () => Promise.resolve({ outcome: "ignored" }));
  return { duplicate: r.duplicate, applied: false, fulfilled: false, reason: "ignored" };
}
