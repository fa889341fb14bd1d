import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { applyPaymentEvent } from "../payments/apply-payment-event.ts";
import { testPaymentsEnabled } from "../payments/provider.ts";
import { closeOrderNow } from "./close-order.ts";
import { effectiveStatus } from "./get-checkout.ts";

async function testOrder(sessionId: string) {
  const order = await getDb().order.findUnique({ where: { id: sessionId } });
  if (!order) throw notFound("checkout_session", "No checkout session has this id.");
  if (order.provider !== "test") throw new AppError("not_test_mode", 409, "This session is paid through Stripe, not the test-mode page.");
  return order;
}

/** Refused when test mode is no longer this deployment's provider (Stripe was set up since, or nothing is). */
function testModeOff(): AppError {
  return new AppError(
    "test_mode_off",
    409,
    "Test-mode payments are turned off on this deployment, so this test checkout cannot be paid. Start a new checkout from the product page.",
  );
}

/**
 * The test-mode Pay button: reports a successful payment as a payment event, through the same path a Stripe
 * webhook takes. Pressing it twice pays once. It works only while test mode is the current provider: a test-mode
 * order left open from before Stripe was configured (or from a deployment that has since stopped offering test
 * mode) is not a free license.
 */
export async function payTestCheckout(sessionId: string, now = new Date()) {
  const order = await testOrder(sessionId);
  if (!testPaymentsEnabled()) throw testModeOff();
  const status = effectiveStatus(order, now.getTime());
  if (status === "expired" || status === "cancelled" || status === "failed") {
    throw new AppError(`checkout_${status}`, 409, `This checkout session is ${status}; start a new one from the product page.`);
  }
  return applyPaymentEvent(
    {
      id: `pay:${order.id}`,
      provider: "test",
      type: "test.payment_succeeded",
      kind: "paid",
      orderId: order.id,
      amountCents: order.amountCents,
      currency: order.currency,
      paymentStatus: "paid",
    },
    now,
  );
}

/** The test-mode cancel link: an open session becomes cancelled (its coupon redemption given back); a paid one stays paid. */
export async function cancelTestCheckout(sessionId: string) {
  const order = await testOrder(sessionId);
  await closeOrderNow(order.id, "cancelled");
}
