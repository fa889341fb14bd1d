import type { upgradesInto } from "@/lib/upgrades/offers-for-buyers";
import { formatPrice } from "@/lib/pricing";
import { card, buttonSecondary, inputBase } from "@/components/ui/styles";

/** The upgrade form's refusals, sent back by /upgrade/start as ?upgrade_error=<code>: only these codes show words. */
const UPGRADE_ERRORS: Record<string, string> = {
  invalid_key: "Enter your license key as XXXX-XXXX-XXXX-XXXX.",
  license_not_found: "No license of the product you upgrade from has this key.",
  license_not_upgradable: "This license cannot be upgraded: it is revoked, refunded, disputed, already upgraded, expired or a trial.",
  license_already_upgraded: "This license was already upgraded.",
  upgrade_not_offered: "This upgrade is not offered for that license.",
  amount_below_minimum: "This upgrade would cost less than the smallest card payment; contact the seller.",
  rate_limited: "Too many attempts in a short time. Wait a minute and try again.",
  failed: "That did not work. Please try again.",
};

export const upgradeErrorMessage = (code: string): string | null => (Object.hasOwn(UPGRADE_ERRORS, code) ? (UPGRADE_ERRORS[code] ?? null) : null);

/**
 * "Upgrade from A" on the product page of B: for buyers of A, who prove it with their key; the checkout shows the
 * price for their license (the difference, or the set price, for its seats) before they pay. Signed-in buyers see the
 * same upgrades, priced, on My licenses.
 */
export function ProductUpgradePaths({
  productId,
  productName,
  currency,
  paths,
  error,
}: {
  productId: string;
  productName: string;
  currency: string;
  paths: Awaited<ReturnType<typeof upgradesInto>>;
  error: string | null;
}) {
  if (paths.length === 0) return null;
  return (
    <section id="upgrade" aria-labelledby="upgrade-heading" className={`${card} mt-6 scroll-mt-6 p-6`} data-testid="upgrade-paths">
      <h2 id="upgrade-heading" className="text-lg font-semibold text-slate-900">
        Upgrade to {productName}
      </h2>
      {error ? (
        <div id="upgrade_error" role="alert" className="mt-3 rounded-lg border border-red-200 bg-red-50 px-3.5 py-3 text-sm leading-6 text-red-800">
          {error}
        </div>
      ) : null}
      <ul className="mt-3 space-y-5">
        {paths.map((p) => {
          const keyId = `upgrade-key-${p.offerId}`;
          return (
            <li key={p.offerId}>
              <form method="post" action="/upgrade/start" className="space-y-3">
                <input type="hidden" name="offer_id" value={p.offerId} />
                <input type="hidden" name="product_id" value={productId} />
                <p className="text-sm leading-6 text-slate-700">
                  <strong className="text-slate-900">Upgrade from {p.fromProductName}</strong>:{" "}
                  {p.pricing === "fixed" ? `${formatPrice(p.priceCents ?? 0, currency)} a seat` : "pay the difference, per seat"}.{" "}
                  {p.retireSource
                    ? `Your ${p.fromProductName} license is retired once you have paid.`
                    : `You keep your ${p.fromProductName} license.`}
                </p>
                <div>
                  <label htmlFor={keyId} className="block text-sm font-medium text-slate-800">
                    Your {p.fromProductName} license key
                  </label>
                  <input
                    id={keyId}
                    name="license_key"
                    required
                    autoComplete="off"
                    spellCheck={false}
                    placeholder="XXXX-XXXX-XXXX-XXXX"
                    maxLength={19}
                    aria-describedby={error ? "upgrade_error" : undefined}
                    className={`${inputBase} mt-1.5 font-mono`}
                  />
                </div>
                <button type="submit" className={`${buttonSecondary} w-full`}>
                  See the price and upgrade
                </button>
              </form>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
