import { CopyButton } from "@/components/ui/copy-button";
import { plural } from "@/components/store/labels";

/** The key itself, large and easy to select, with a Copy button. */
export function LicenseKeyCard({
  licenseKey,
  maxMachines,
  buyerEmail,
  emailStatus,
}: {
  licenseKey: string;
  maxMachines: number;
  buyerEmail: string;
  emailStatus: "queued" | "sent" | null;
}) {
  return (
    <section aria-labelledby="key-heading" className="rounded-xl border border-slate-200 bg-slate-50 p-4 sm:p-6">
      <h2 id="key-heading" className="text-base font-semibold text-slate-900">
        Your license key
      </h2>
      <div className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-center">
        <p
          id="license-key"
          data-testid="license-key"
          className="min-w-0 flex-1 rounded-lg border border-slate-300 bg-white px-3 py-3 text-center font-mono text-lg font-semibold tracking-wide wrap-anywhere text-slate-900 select-all sm:px-4 sm:text-left sm:text-2xl sm:tracking-wider"
        >
          {licenseKey}
        </p>
        <CopyButton text={licenseKey} label="license key" selectTargetId="license-key" className="py-3" />
      </div>
      <p className="mt-3 text-sm leading-6 text-slate-700">
        Activates on up to {plural(maxMachines, "computer")}. We also e-mailed this key to{" "}
        <span className="font-medium wrap-anywhere text-slate-900">{buyerEmail}</span>
        {emailStatus === "sent" ? " — the e-mail has been sent." : " — the e-mail is on its way."}
      </p>
    </section>
  );
}
