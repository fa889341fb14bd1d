import type { CheckoutView } from "@/lib/checkout/get-checkout";

/** What the order buys, in one sentence: the buyer sees the recurring price and any free trial before paying. */
export function planWords(plan: CheckoutView["plan"]): string {
  if (plan.kind === "subscription") {
    const per = plan.interval === "year" ? "a year" : "a month";
    return plan.trialDays > 0
      ? `Subscription: free for ${plan.trialDays} days, then ${plan.periodPrice} ${per} until you cancel. Nothing is charged today.`
      : `Subscription: ${plan.periodPrice} ${per} (today's charge below), renewed automatically until you cancel on My licenses.`;
  }
  if (plan.kind === "updates_renewal") return "Another year of updates for your license; the license itself is yours for good either way.";
  return "One-time purchase, no subscription.";
}
