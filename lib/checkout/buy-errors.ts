import type { AppError } from "../http/errors.ts";

/**
 * What the product page's Buy box says after /checkout/start sends the buyer back (?buy_error=<code>). The URL
 * carries only a code; the words are ours, so a crafted link cannot make the page say anything else.
 */
const BUY_ERRORS = {
  invalid_email: "Please enter a valid e-mail address.",
  not_buyable: "This product cannot be bought: it is not listed in the store any more.",
  not_configured: "Checkout is not configured on this deployment, so licenses cannot be bought here yet.",
  provider_unavailable: "The payment provider is not answering. Please try again in a moment.",
  failed: "The checkout could not be opened. Please try again.",
} as const satisfies Record<string, string>;

export type BuyErrorCode = keyof typeof BUY_ERRORS;

/** The message for a code from the URL; unknown codes (and anything that is not a plain code) say nothing. */
export function buyErrorMessage(code: string | undefined): string | null {
  return code && Object.hasOwn(BUY_ERRORS, code) ? BUY_ERRORS[code as BuyErrorCode] : null;
}

/** The code for a refusal of createCheckout. */
export function buyErrorCode(error: AppError): BuyErrorCode {
  if (error.code === "checkout_not_configured") return "not_configured";
  if (error.status === 404) return "not_buyable";
  if (error.status >= 500) return "provider_unavailable";
  return "failed";
}
