import { createHash } from "node:crypto";
import Stripe from "stripe";
import { AppError } from "../http/errors.ts";
import { stripeClient } from "../payments/stripe-client.ts";
import type { PaymentRequest, PreparedPayment } from "./payment-types.ts";

/** Stripe Shared Payment Tokens as agents are granted them. */
const SPT = /^spt_[A-Za-z0-9_]{6,250}$/;

const refuse = (code: string, status: number, detail: string) =>
  new AppError(code, status, detail, { errors: [{ in: "body", name: "payment_data", message: detail }] });
const unavailable = () =>
  new AppError("payment_provider_unavailable", 502, "The payment provider could not be reached; nothing was charged. Try again shortly.");

/**
 * The PaymentIntent's metadata: the caller's fields within Stripe's limits (50 keys, 40-character keys, 500-character
 * values), so they never fail a payment, and ours. `order_id` is never passed on (see prepareStripePayment).
 */
function stripeMetadata(extra: Record<string, string>, ours: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const fields = Object.entries(extra).filter(([k]) => k !== "order_id" && k.length <= 40);
  for (const [k, v] of fields.slice(0, 50 - Object.keys(ours).length)) out[k] = v.slice(0, 500);
  return { ...out, ...ours };
}

/**
 * Pays with a Stripe Shared Payment Token: creates and confirms a PaymentIntent in one call, the token as
 * `payment_method_data[shared_payment_granted_token]` (Stripe's agentic commerce API; the SDK's types do not know the
 * field yet, so the parameters are passed through as they are). A connected seller's sale is a destination charge as
 * in hosted Checkout (lib/payments/stripe-provider.ts): `transfer_data.destination`, `application_fee_amount`,
 * `on_behalf_of`. The idempotency key is the order's and the token's, so the SDK's retries never charge twice.
 *
 * The metadata names the order as `acp_order_id`, never `order_id` (dropped if the caller's metadata has it): the
 * refund and dispute handlers find a paid ACP order by the PaymentIntent id the order stores, and a PaymentIntent
 * refunded by `abort` (its order closed unpaid) is then simply not this marketplace's business, instead of an event
 * waiting forever (409) for an order that will never be paid.
 * Webhooks about the PaymentIntent (payment_intent.*, charge.succeeded) are recorded and ignored: the order was
 * fulfilled when complete answered, never a second time.
 */
export async function prepareStripePayment(req: PaymentRequest): Promise<PreparedPayment> {
  const token = req.payment.token;
  if (!SPT.test(token)) throw refuse("payment_token_invalid", 400, "With Stripe, the payment token must be a Stripe Shared Payment Token (spt_…).");
  const dest = req.destination;
  const params = {
    amount: req.amountCents,
    currency: req.currency.toLowerCase(),
    confirm: true,
    payment_method_types: ["card"],
    payment_method_data: { shared_payment_granted_token: token },
    receipt_email: req.buyerEmail,
    metadata: stripeMetadata(req.metadata, { acp_order_id: req.orderId, acp_checkout_session_id: req.checkoutSessionId }),
    ...(dest
      ? { application_fee_amount: dest.applicationFeeCents, transfer_data: { destination: dest.accountId }, on_behalf_of: dest.accountId }
      : {}),
  };
  const idempotencyKey = `acp-pay-${req.orderId}-${createHash("sha256").update(token).digest("hex").slice(0, 16)}`;
  let intent: Stripe.PaymentIntent;
  try {
    intent = await stripeClient().paymentIntents.create(params as unknown as Stripe.PaymentIntentCreateParams, { idempotencyKey });
  } catch (error) {
    throw refusalOf(error, req.orderId);
  }
  const prepared: PreparedPayment = {
    provider: "stripe",
    providerPaymentId: intent.id,
    // Stripe has the money already; the order stores the PaymentIntent id (refunds, disputes).
    commit: () => Promise.resolve(),
    abort: (reason) => refundIntent(intent.id, dest !== null, reason),
  };
  if (intent.status === "succeeded") {
    if (intent.amount !== req.amountCents || intent.currency.toLowerCase() !== req.currency.toLowerCase()) {
      await prepared.abort(`Stripe charged ${intent.amount} ${intent.currency}, expected ${req.amountCents} ${req.currency}`);
      throw unavailable();
    }
    return prepared;
  }
  // Anything but succeeded takes no money we keep: cancel what can be cancelled and say why.
  await cancelIntent(intent.id);
  if (intent.status === "requires_action") {
    throw refuse(
      "payment_requires_action",
      402,
      "The card needs the buyer's authentication (3-D Secure), which an agent payment cannot do; nothing was charged. Ask the buyer for another payment method.",
    );
  }
  throw refuse("payment_declined", 402, `The payment was not completed (Stripe status ${intent.status}); nothing was charged.`);
}

function refusalOf(error: unknown, orderId: string): AppError {
  if (error instanceof Stripe.errors.StripeCardError) {
    // Typed as always present, but Stripe omits decline_code for some declines.
    const declineCode: string | undefined = (error as { decline_code?: string }).decline_code;
    const why = declineCode ?? error.code ?? "declined";
    return refuse("payment_declined", 402, `The payment was declined (${why}): ${error.message}`);
  }
  // A parameter Stripe does not take is our integration's fault (an account or API version without Shared Payment
  // Tokens, say), not the agent's: logged for the operator, and the agent told to try later.
  const ours = error instanceof Stripe.errors.StripeError && (error.code === "parameter_unknown" || error.code === "parameter_missing");
  if (error instanceof Stripe.errors.StripeInvalidRequestError && !ours && error.statusCode !== undefined && error.statusCode < 500) {
    // An unknown, expired, revoked or used-up token, or one whose limits (amount, currency) this payment exceeds.
    return refuse("payment_token_invalid", 400, `Stripe refused the Shared Payment Token: ${error.message}`);
  }
  console.error(`ACP order ${orderId}: Stripe PaymentIntent with a Shared Payment Token failed`, error);
  return unavailable();
}

async function cancelIntent(id: string): Promise<void> {
  try {
    await stripeClient().paymentIntents.cancel(id);
  } catch (error) {
    console.error(`Stripe: could not cancel PaymentIntent ${id}`, error);
  }
}

/** Best effort: the fulfilment failed after Stripe took the money, so it goes back (with the seller's transfer and our fee). */
async function refundIntent(id: string, destination: boolean, reason: string): Promise<void> {
  try {
    await stripeClient().refunds.create(
      {
        payment_intent: id,
        ...(destination ? { reverse_transfer: true, refund_application_fee: true } : {}),
        metadata: { acp_abort: reason.slice(0, 500) },
      },
      { idempotencyKey: `acp-abort-${id}` },
    );
    console.error(`Stripe: PaymentIntent ${id} refunded because the ACP order could not be fulfilled: ${reason}`);
  } catch (error) {
    console.error(
      `Stripe: PaymentIntent ${id} could NOT be refunded after a failed ACP fulfilment (${reason}); refund it in the Stripe dashboard`,
      error,
    );
  }
}
