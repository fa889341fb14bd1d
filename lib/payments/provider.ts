import { env, type Env } from "../env.ts";
import { AppError } from "../http/errors.ts";
import { isLoopbackHost } from "../http/host.ts";
import { stripeProvider } from "./stripe-provider.ts";
import { testProvider } from "./test-provider.ts";
import type { PaymentProvider } from "./types.ts";

export type { PaymentProvider } from "./types.ts";

/**
 * Who takes payments on this deployment, decided once from the settings:
 * - `PAYMENTS=stripe`: Stripe; without STRIPE_SECRET_KEY nothing can be sold (checkout is refused, not faked).
 * - `PAYMENTS=test`: the built-in test mode (a Pay button, no money), even in production: the operator asked for it.
 * - unset: Stripe when STRIPE_SECRET_KEY is set; else test mode outside production; in production, nothing.
 * A deployment never falls back to handing out licenses for free just because a key is missing.
 */
export type PaymentMode =
  | { provider: "stripe" }
  | { provider: "test"; explicit: boolean; /** Chosen because BASE_URL is this machine (a production build started locally). */ local?: boolean }
  | { provider: null; reason: string };

export function paymentMode(e: Env = env()): PaymentMode {
  if (e.PAYMENTS === "stripe") {
    return e.STRIPE_SECRET_KEY ? { provider: "stripe" } : { provider: null, reason: "PAYMENTS=stripe but STRIPE_SECRET_KEY is not set" };
  }
  if (e.PAYMENTS === "test") return { provider: "test", explicit: true };
  if (e.STRIPE_SECRET_KEY) return { provider: "stripe" };
  if (e.NODE_ENV !== "production") return { provider: "test", explicit: false };
  // A first local start (`npm start`: production, BASE_URL on this machine) sells in test mode, with its banner: no
  // one else can reach it, so nothing sells for real. A public BASE_URL needs Stripe or an explicit PAYMENTS=test.
  if (isLoopbackHost(new URL(e.BASE_URL).host)) return { provider: "test", explicit: false, local: true };
  return {
    provider: null,
    reason: "no STRIPE_SECRET_KEY, BASE_URL is not this machine, and test mode was not chosen with PAYMENTS=test",
  };
}

/** Whether buyers can pay at all here (the storefront shows a Buy button only then). */
export function checkoutConfigured(e: Env = env()): boolean {
  return paymentMode(e).provider !== null;
}

/** Whether the built-in test mode is the current provider: the test-mode Pay button works only then. */
export function testPaymentsEnabled(e: Env = env()): boolean {
  return paymentMode(e).provider === "test";
}

/** The refusal every checkout entry point (REST, MCP, the Buy form) gives when no provider is configured. */
function checkoutNotConfigured(): AppError {
  return new AppError(
    "checkout_not_configured",
    503,
    "Checkout is not configured on this deployment: no payment provider is set up, so licenses cannot be bought here yet.",
  );
}

/** The provider new checkouts go to; throws checkout_not_configured (503) when there is none. */
export function paymentProvider(): PaymentProvider {
  const mode = paymentMode();
  if (mode.provider === "stripe") return stripeProvider();
  if (mode.provider === "test") return testProvider;
  throw checkoutNotConfigured();
}

/** One line for the startup log: which provider takes payments, and why. */
export function paymentModeSummary(e: Env = env()): string {
  const mode = paymentMode(e);
  if (mode.provider === "stripe") {
    return e.STRIPE_WEBHOOK_SECRET
      ? "payments: Stripe"
      : "payments: Stripe, but STRIPE_WEBHOOK_SECRET is not set: paid orders cannot be confirmed, so no license will be issued";
  }
  if (mode.provider === "test") {
    const why = mode.explicit
      ? "PAYMENTS=test"
      : mode.local
        ? `no STRIPE_SECRET_KEY, BASE_URL ${e.BASE_URL} is this machine`
        : `no STRIPE_SECRET_KEY, NODE_ENV=${e.NODE_ENV}`;
    const ignored = mode.explicit && e.STRIPE_SECRET_KEY ? "; STRIPE_SECRET_KEY is ignored" : "";
    return `payments: TEST MODE (${why}${ignored}): a Pay button, no money is taken, every buyer gets a license`;
  }
  return `payments: NOT CONFIGURED (${mode.reason}): checkout is refused; set STRIPE_SECRET_KEY, or PAYMENTS=test for a demo`;
}
