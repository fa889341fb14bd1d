import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";
import { paymentMode } from "../payments/provider.ts";
import { VAULT_TOKEN, type StoredCard } from "./delegate-payment.ts";
import type { PaymentRequest, PreparedPayment } from "./payment-types.ts";
import { prepareStripePayment } from "./stripe-spt.ts";

export type { PaymentRequest, PreparedPayment } from "./payment-types.ts";

const refuse = (code: string, status: number, detail: string) =>
  new AppError(code, status, detail, { errors: [{ in: "body", name: "payment_data", message: detail }] });

/**
 * Checks a payment credential against the checkout being completed and, for Stripe, takes the money; the caller then
 * fulfils the order in one transaction with `commit`, or calls `abort` if that fails. The credential must be for this
 * deployment's provider:
 * - test mode: a vault token from delegate_payment, the caller's own, unused, unexpired, made for this checkout
 *   session, allowing at least this amount in this currency; a declined test card is 402 `payment_declined`.
 * - Stripe: a Shared Payment Token (`spt_…`) an agent was granted; a PaymentIntent is confirmed with it now
 *   (lib/acp/stripe-spt.ts).
 * Refusals (all change nothing): 400 `payment_provider_mismatch`, 400 `payment_token_invalid` (unknown, malformed or
 * another caller's), 422 `payment_token_expired`, 409 `payment_token_used`, 422 `payment_token_wrong_session`,
 * 422 `payment_token_over_allowance` (amount or currency), 402 `payment_declined`, 402 `payment_requires_action`,
 * 502 `payment_provider_unavailable`.
 */
export async function preparePayment(req: PaymentRequest, now = new Date()): Promise<PreparedPayment> {
  const mode = paymentMode();
  if (mode.provider === null)
    throw new AppError("checkout_not_configured", 503, "Checkout is not configured on this deployment: no payment provider is set up.");
  const provider = req.payment.provider.toLowerCase();
  if (provider !== mode.provider) {
    throw refuse(
      "payment_provider_mismatch",
      400,
      mode.provider === "stripe"
        ? "This deployment takes payments with Stripe: pay with a Stripe Shared Payment Token (spt_…), provider stripe."
        : "This deployment is in test mode: pay with a vault token (vt_…) from delegate_payment, provider test.",
    );
  }
  if (mode.provider === "stripe") return prepareStripePayment(req);
  return prepareTestPayment(req, now);
}

async function prepareTestPayment(req: PaymentRequest, now: Date): Promise<PreparedPayment> {
  const token = req.payment.token;
  if (!VAULT_TOKEN.test(token)) throw refuse("payment_token_invalid", 400, "The payment token is not a vault token (vt_…) from delegate_payment.");
  const row = await getDb().delegatedPayment.findUnique({ where: { id: token } });
  // Another caller's token is indistinguishable from an unknown one.
  if (!row || row.platformId !== req.platformId) throw refuse("payment_token_invalid", 400, "No vault token of yours has that id.");
  if (row.usedAt) throw refuse("payment_token_used", 409, "This vault token has already paid for an order; a token pays once.");
  if (row.expiresAt.getTime() <= now.getTime())
    throw refuse("payment_token_expired", 422, "This vault token's allowance has expired; make a new one.");
  if (row.checkoutSessionId !== req.checkoutSessionId) {
    throw refuse("payment_token_wrong_session", 422, "This vault token was made for another checkout session.");
  }
  if (row.currency.toLowerCase() !== req.currency.toLowerCase()) {
    throw refuse("payment_token_over_allowance", 422, `This vault token allows payments in ${row.currency}, not ${req.currency.toLowerCase()}.`);
  }
  if (req.amountCents > row.maxAmountCents) {
    throw refuse(
      "payment_token_over_allowance",
      422,
      `The total (${req.amountCents}) is more than this vault token allows (${row.maxAmountCents} minor units of ${row.currency}).`,
    );
  }
  const card = row.card as unknown as StoredCard;
  if (card.outcome === "declined") {
    throw refuse(
      "payment_declined",
      402,
      `The payment was declined: ${card.decline_reason ?? "the card was declined"} (test card ending ${card.last4}).`,
    );
  }
  return {
    provider: "test",
    providerPaymentId: `test_pay_${row.id}`,
    commit: async (tx, orderId) => {
      const { count } = await tx.delegatedPayment.updateMany({ where: { id: row.id, usedAt: null }, data: { usedAt: new Date(), orderId } });
      if (count === 0) throw refuse("payment_token_used", 409, "This vault token has already paid for an order; a token pays once.");
    },
    // Test mode moves no money, and the token is only spent by a commit that rolled back: nothing to undo.
    abort: () => Promise.resolve(),
  };
}
