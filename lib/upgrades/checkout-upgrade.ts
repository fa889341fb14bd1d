import { createCheckout } from "../checkout/create-checkout.ts";
import { AppError } from "../http/errors.ts";
import { formatPrice } from "../pricing.ts";
import { resolveUpgrade, type UpgradeSource, type UpgradeTarget } from "./price-upgrade.ts";

/**
 * Opens the checkout of an upgrade: the same checkout every sale goes through (createCheckout: the order, the payment
 * provider's session, the seller's payout account and fee), for the target product, priced by the offer for the
 * source license's seats, and naming the offer and the source license so that fulfilment issues the new license and
 * retires (or keeps) the source in the payment's transaction. Nothing is written before every refusal has been made
 * (resolveUpgrade), and the source is untouched until the payment arrives.
 */
export async function createUpgradeCheckout(
  source: UpgradeSource,
  target: UpgradeTarget,
  buyerEmail: string | undefined,
  now = new Date(),
  expectedAmountCents?: number,
): Promise<{ url: string; session_id: string; amount_cents: number; currency: string; offer_id: string; from_license_id: string }> {
  const u = await resolveUpgrade(source, target, now);
  // The buyer confirmed an amount: a price that moved since (the offer changed, a refund of what they paid) is theirs to see again.
  if (expectedAmountCents !== undefined && expectedAmountCents !== u.amountCents) {
    throw new AppError(
      "amount_changed",
      409,
      `The upgrade now costs ${formatPrice(u.amountCents, u.product.currency)}; look at it again before paying.`,
    );
  }
  const session = await createCheckout({ product_id: u.product.id, buyer_email: buyerEmail ?? u.license.buyerEmail }, now, {
    upgrade: { offerId: u.offer.id, fromLicenseId: u.license.id, unitCents: u.unitCents, seats: u.seats },
  });
  return { ...session, amount_cents: u.amountCents, currency: u.product.currency, offer_id: u.offer.id, from_license_id: u.license.id };
}
