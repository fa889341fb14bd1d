import { buttonSecondary, inputBase } from "@/components/ui/styles";

/** What the trial route (app/trials/start) sends back, in our words; an unknown code shows nothing. */
const OUTCOMES: Record<string, { tone: "ok" | "error"; text: string }> = {
  sent: {
    tone: "ok",
    text: "If this address can start a trial, its trial key and download link are on their way by e-mail. One trial per address and product.",
  },
  invalid: { tone: "error", text: "Enter an e-mail address that can receive mail, such as you@example.com." },
  limited: { tone: "error", text: "Too many trials were started from here in the last hour. Try again later." },
  unavailable: { tone: "error", text: "This product offers no trial right now." },
};

/** The trial route's outcome, worded, under the e-mail field it is about: a status when sent, an alert otherwise. */
export function TrialOutcome({ outcome, id }: { outcome: string; id: string }) {
  const said = Object.hasOwn(OUTCOMES, outcome) ? OUTCOMES[outcome] : undefined;
  if (!said) return null;
  return (
    <p id={id} role={said.tone === "ok" ? "status" : "alert"} className={`mt-2 text-sm ${said.tone === "ok" ? "text-emerald-800" : "text-red-700"}`}>
      {said.text}
    </p>
  );
}

/** Whether the trial route's outcome code is one the page words (an unknown code shows nothing). */
export function hasTrialOutcome(outcome: string): boolean {
  return Object.hasOwn(OUTCOMES, outcome);
}

/**
 * The product page's free trial where nothing can be bought here (checkout not configured), so there is no Buy form
 * whose address it could share (the Buy form then has a "Start a free trial" button of its own instead): the trial key and its license-gated download link are e-mailed (startTrial), so the
 * seller's installer address is never on the page. A plain form (no script): it posts to app/trials/start.
 */
export function TrialForm({ productId, days, outcome, preview }: { productId: string; days: number; outcome: string; preview: boolean }) {
  const said = hasTrialOutcome(outcome);
  return (
    <form
      id="trial"
      method="post"
      action="/trials/start"
      className="mt-4 scroll-mt-24 border-t border-slate-200 pt-4"
      aria-labelledby="trial-heading"
    >
      <h3 id="trial-heading" className="text-sm font-semibold text-slate-900">
        Free trial ({days} days)
      </h3>
      <input type="hidden" name="product_id" value={productId} />
      <label htmlFor="trial_email" className="mt-2 block text-sm font-medium text-slate-900">
        E-mail for the trial key
      </label>
      <input
        id="trial_email"
        name="buyer_email"
        type="email"
        required
        autoComplete="email"
        maxLength={254}
        placeholder="you@example.com"
        aria-describedby={said ? "trial_outcome" : undefined}
        className={`${inputBase} mt-1.5`}
      />
      <TrialOutcome outcome={outcome} id="trial_outcome" />
      <button type="submit" disabled={preview} className={`${buttonSecondary} mt-3 w-full disabled:cursor-not-allowed disabled:opacity-60`}>
        E-mail me a trial key
      </button>
    </form>
  );
}
