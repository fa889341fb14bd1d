import type Stripe from "stripe";
import type { AppliedEvent } from "../payments/apply-payment-event.ts";
import { applyOnce } from "../payments/event-log.ts";

/** Charge, refund and dispute events, applied exactly once. (Scaffold: records the event; the refunds work fills in its effect.) */
export async function applyChargeEvent(event: Stripe.Event): Promise<AppliedEvent> {
  const r = await applyOnce({ id: event.id, provider: "stripe", type: event.type }, () => Promise.resolve({ outcome: "ignored" }));
  return { duplicate: r.duplicate, applied: false, fulfilled: false, reason: "ignored" };
}
