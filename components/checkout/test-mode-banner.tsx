import { InfoIcon } from "./icons";

/** Says, before anything else on the page, that this checkout moves no money. */
export function TestModeBanner() {
  return (
    <div
      role="note"
      aria-labelledby="test-mode-title"
      className="flex gap-3 rounded-xl border border-amber-300 bg-amber-50 px-4 py-3.5 text-amber-950 sm:px-5"
    >
      <InfoIcon className="mt-0.5 size-5 shrink-0 text-amber-700" />
      <div className="min-w-0 text-sm leading-6">
        <p id="test-mode-title" className="font-semibold">
          Test mode — no real payment is taken
        </p>
        <p className="text-amber-900">
          This store has no payment provider connected. Pressing Pay completes the order straight away and issues a working license key.
        </p>
      </div>
    </div>
  );
}
