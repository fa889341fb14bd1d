import type { SubscriptionView } from "@/lib/subscriptions/manage";
import { formatPrice } from "@/lib/pricing";
import { buttonSecondary } from "@/components/ui/styles";
import { formatDate } from "./format";

type FormAction = (formData: FormData) => Promise<void>;

const STATUS_WORDS: Record<SubscriptionView["status"], string> = {
  trialing: "Free trial",
  active: "Active",
  past_due: "Payment failed",
  canceling: "Canceled",
  ended: "Ended",
};

/**
 * The subscription a license follows, on My licenses: the plan, where it stands, the next charge, and what the buyer
 * can do about it: cancel at the period's end, resume before then, and (test mode) change the card. Plain forms:
 * they work without JavaScript, and each posts to a server action that runs the buyer's operation.
 */
export function SubscriptionPanel({
  subscription: s,
  cancel,
  resume,
  setCard,
}: {
  subscription: SubscriptionView;
  cancel: FormAction;
  resume: FormAction;
  setCard: FormAction;
}) {
  const base = `subscription-${s.id}`;
  const seat = formatPrice(s.unit_amount_cents * s.quantity, s.currency);
  const end = formatDate(new Date(s.current_period_end));
  return (
    <section aria-labelledby={`${base}-heading`} data-testid="subscription" className="rounded-xl border border-slate-200 bg-slate-50 p-4 text-sm">
      <h3 id={`${base}-heading`} className="font-semibold text-slate-900">
        Subscription: {STATUS_WORDS[s.status]}
      </h3>
      <p className="mt-1 text-slate-700">
        {seat} {s.interval === "year" ? "a year" : "a month"}
        {s.quantity > 1 ? ` for ${s.quantity} seats` : ""}
        {s.coupon_code ? ` (coupon ${s.coupon_code})` : ""}.
      </p>
      <p className="mt-1 text-slate-700" data-testid="subscription-next">
        {s.status === "active" || s.status === "trialing"
          ? `Renews on ${end} for ${formatPrice(s.next_charge?.amount_cents ?? 0, s.currency)}.`
          : s.status === "past_due"
            ? `The renewal of ${formatPrice(s.next_charge?.amount_cents ?? 0, s.currency)} was declined. The license works until ${
                s.license_valid_until ? formatDate(new Date(s.license_valid_until)) : end
              }; change the card to pay it.`
            : s.status === "canceling"
              ? `Nothing more will be charged. The license works until ${end}.`
              : `Ended${s.ended_at ? ` on ${formatDate(new Date(s.ended_at))}` : ""}.`}
      </p>
      <div className="mt-3 flex flex-wrap gap-3">
        {s.status === "active" || s.status === "trialing" || s.status === "past_due" ? (
          <form action={cancel}>
            <input type="hidden" name="subscription_id" value={s.id} />
            <button type="submit" className={`${buttonSecondary} py-2`}>
              Cancel subscription
            </button>
          </form>
        ) : null}
        {s.status === "canceling" ? (
          <form action={resume}>
            <input type="hidden" name="subscription_id" value={s.id} />
            <button type="submit" className={`${buttonSecondary} py-2`}>
              Keep subscription
            </button>
          </form>
        ) : null}
        {s.test_card && s.status !== "ended" ? (
          <form action={setCard} className="flex flex-wrap items-center gap-2">
            <input type="hidden" name="subscription_id" value={s.id} />
            <input type="hidden" name="card" value={s.test_card === "fails" ? "succeeds" : "fails"} />
            <span className="text-slate-600">Test card: {s.test_card === "fails" ? "declines" : "pays"}.</span>
            <button type="submit" className={`${buttonSecondary} py-2`}>
              {s.test_card === "fails" ? "Use a card that pays" : "Use a card that declines"}
            </button>
          </form>
        ) : null}
      </div>
    </section>
  );
}
