import type { SubscriptionView } from "@/lib/subscriptions/manage";
import type { PlanChangeQuote } from "@/lib/subscriptions/change-plan";
import type { InvoiceLine } from "@/lib/receipts/invoices";
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
 * can do about it: cancel at the period's end, resume before then, change seats or interval (previewed with the
 * prorated amount, then confirmed at that amount), change the card (Stripe's customer portal, which also has the
 * invoices; test mode's test card). Plain forms: they work without JavaScript, and each posts to a server action
 * that runs the buyer's operation.
 */
export function SubscriptionPanel({
  subscription: s,
  cancel,
  resume,
  setCard,
  previewPlan,
  changePlan,
  openPortal,
  pending,
  invoices,
}: {
  subscription: SubscriptionView;
  cancel: FormAction;
  resume: FormAction;
  setCard: FormAction;
  previewPlan: FormAction;
  changePlan: FormAction;
  openPortal: FormAction;
  /** A plan change the buyer previewed, to confirm at its amount. */
  pending: PlanChangeQuote | null;
  /** Its paid charges, newest first, each with a PDF invoice. */
  invoices: InvoiceLine[];
}) {
  const running = s.status === "active" || s.status === "trialing";
  const changeable = running && (s.change_options.seats || s.change_options.intervals.length > 1);
  const base = `subscription-${s.id}`;
  const seat = formatPrice(s.unit_amount_cents * s.quantity, s.currency);
  const end = formatDate(new Date(s.current_period_end));
  return (
    <section
      id={base}
      aria-labelledby={`${base}-heading`}
      data-testid="subscription"
      className="rounded-xl border border-slate-200 bg-slate-50 p-4 text-sm"
    >
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
        {s.provider === "stripe" && s.status !== "ended" ? (
          <form action={openPortal}>
            <input type="hidden" name="subscription_id" value={s.id} />
            <button type="submit" className={`${buttonSecondary} py-2`}>
              Card and invoices (Stripe)
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
      {changeable && pending ? (
        <div
          className="mt-4 rounded-lg border border-indigo-200 bg-white p-3"
          data-testid="plan-confirm"
          role="group"
          aria-label="Confirm the plan change"
        >
          <p className="text-slate-800">
            Change to {pending.quantity} {pending.quantity === 1 ? "seat" : "seats"}, {pending.interval}ly at{" "}
            {formatPrice(pending.unit_amount_cents * pending.quantity, pending.currency)} a {pending.interval}:{" "}
            <strong className="font-semibold">{pending.amount_display}</strong>
            {pending.credit_cents > 0 ? ` (the unused time, ${formatPrice(pending.credit_cents, pending.currency)}, counted)` : ""}. Next charge{" "}
            {formatPrice(pending.next_charge_cents, pending.currency)} on {formatDate(new Date(pending.period_end))}.
          </p>
          <div className="mt-2 flex flex-wrap gap-3">
            <form action={changePlan}>
              <input type="hidden" name="subscription_id" value={s.id} />
              <input type="hidden" name="interval" value={pending.interval} />
              <input type="hidden" name="quantity" value={pending.quantity} />
              <input type="hidden" name="expected_amount_cents" value={pending.amount_cents} />
              <button type="submit" className={`${buttonSecondary} py-2`}>
                Confirm change
              </button>
            </form>
            <a href="/licenses" className={`${buttonSecondary} py-2`}>
              Keep the current plan
            </a>
          </div>
        </div>
      ) : changeable ? (
        <form action={previewPlan} className="mt-4 flex flex-wrap items-end gap-3" aria-label="Change the plan">
          <input type="hidden" name="subscription_id" value={s.id} />
          {s.change_options.intervals.length > 1 ? (
            <label className="flex flex-col gap-1 text-slate-700">
              Billing
              <select name="interval" defaultValue={s.interval} className="rounded-md border border-slate-300 bg-white px-2 py-1.5">
                {s.change_options.intervals.map((i) => (
                  <option key={i} value={i}>
                    {i === "month" ? "Monthly" : "Yearly"}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          {s.change_options.seats ? (
            <label className="flex flex-col gap-1 text-slate-700">
              Seats
              <input
                type="number"
                name="quantity"
                min={1}
                max={100}
                defaultValue={s.quantity}
                className="w-24 rounded-md border border-slate-300 bg-white px-2 py-1.5"
              />
            </label>
          ) : null}
          <button type="submit" className={`${buttonSecondary} py-2`}>
            Preview change
          </button>
        </form>
      ) : null}
      {invoices.length > 0 ? (
        <details className="mt-4" data-testid="subscription-invoices">
          <summary className="cursor-pointer font-medium text-slate-800">Invoices ({invoices.length})</summary>
          <ul className="mt-2 divide-y divide-slate-200">
            {invoices.map((i) => (
              <li key={i.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
                <span className="min-w-0 text-slate-700">
                  {formatDate(i.paidAt)} · {i.description} · {formatPrice(i.totalCents, i.currency)}
                  {i.refundedCents > 0 ? ` (${formatPrice(i.refundedCents, i.currency)} refunded)` : ""}
                </span>
                <a href={`/licenses/invoices/${i.id}`} download className="font-medium text-indigo-700 underline underline-offset-2">
                  PDF<span className="sr-only"> invoice of {formatDate(i.paidAt)}</span>
                </a>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}
