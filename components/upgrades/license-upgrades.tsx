import type { UpgradeQuote } from "@/lib/upgrades/schemas";
import { formatPrice } from "@/lib/pricing";
import { IdempotencyField } from "@/components/forms/idempotency-field";
import { buttonPrimary, buttonSecondary, focusRing } from "@/components/ui/styles";

/**
 * The upgrades one license on My licenses may buy: "Upgrade to B — price" opens a confirmation that repeats the amount,
 * the seats and what happens to this license, and its button names the amount again. The form posts the amount the
 * buyer saw, so a price that moved meanwhile is refused rather than charged.
 */
export function LicenseUpgrades({
  licenseId,
  productName,
  upgrades,
  action,
}: {
  licenseId: string;
  productName: string;
  upgrades: UpgradeQuote[] | undefined;
  action: (form: FormData) => Promise<void>;
}) {
  if (!upgrades?.length) return null;
  const headingId = `license-${licenseId}-upgrades`;
  return (
    <section
      aria-labelledby={headingId}
      data-testid="license-upgrades"
      className="mt-3 rounded-2xl border border-slate-200 bg-white px-5 py-4 sm:px-6"
    >
      <h3 id={headingId} className="text-base font-semibold text-slate-900">
        Upgrades
      </h3>
      <ul className="mt-2 space-y-2">
        {upgrades.map((u) => {
          const amount = formatPrice(u.amount_cents, u.currency);
          return (
            <li key={u.offer_id}>
              <details className="group">
                <summary className={`${buttonSecondary} ${focusRing} cursor-pointer list-none py-2`}>
                  Upgrade to {u.to_product_name} — {amount}
                </summary>
                <form action={action} className="mt-3 space-y-3 rounded-xl border border-slate-200 bg-slate-50 p-4">
                  <input type="hidden" name="license_id" value={licenseId} />
                  <input type="hidden" name="offer_id" value={u.offer_id} />
                  <input type="hidden" name="expected_amount_cents" value={String(u.amount_cents)} />
                  <IdempotencyField value={crypto.randomUUID()} />
                  <p className="text-sm leading-6 text-slate-700">
                    You pay <strong className="text-slate-900">{amount}</strong> (before any tax) for {u.to_product_name}, {u.seats}{" "}
                    {u.seats === 1 ? "seat" : "seats"}, up to {u.max_machines} {u.max_machines === 1 ? "machine" : "machines"}.{" "}
                    {u.retire_source
                      ? `Once paid, this ${productName} license stops working and its machines are released; activate ${u.to_product_name} with its new key.`
                      : `You keep this ${productName} license as well.`}
                  </p>
                  <button type="submit" className={buttonPrimary}>
                    Pay {amount} and upgrade
                  </button>
                </form>
              </details>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
