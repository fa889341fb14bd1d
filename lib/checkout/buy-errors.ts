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
  invalid_coupon: "A coupon code is 3 to 32 letters, digits, - or _.",
  invalid_quantity: "Choose between 1 and 100 seats.",
  // One wording for every unusable code (unknown, expired, used up, not for this product): no hint which codes exist.
  coupon_not_found: "This coupon code is not valid for this purchase. Check the spelling, or buy without it.",
  amount_below_minimum: "With this coupon the price would fall below the smallest card payment (0.50 of the currency), so it cannot be used here.",
  quantity_not_allowed: "This product is sold one license at a time, not by the seat.",
  interval_not_offered: "Choose one of the billing periods this subscription offers.",
  subscriptions_not_available: "Subscriptions cannot be bought on this deployment yet.",
  bundle_item_unavailable: "A product this bundle includes cannot be sold right now, so the bundle cannot be bought. Please try again later.",
  bundle_already_owned: "You already hold a license for every product in this bundle.",
  rate_limited: "Too many checkouts were opened or coupon codes tried from your network in the last minute. Please wait a moment and try again.",
} as const satisfies Record<string, string>;

export type BuyErrorCode = keyof typeof BUY_ERRORS;

/** The message for a code from the URL; unknown codes (and anything that is not a plain code) say nothing. */
export function buyErrorMessage(code: string | undefined): string | null {
  return code && Object.hasOwn(BUY_ERRORS, code) ? BUY_ERRORS[code as BuyErrorCode] : null;
}

/** Refusals of createCheckout that the form names by their own code. */
const OWN_CODES = new Set<string>([
  "coupon_not_found",
  "amount_below_minimum",
  "quantity_not_allowed",
  "interval_not_offered",
  "subscriptions_not_available",
  "bundle_item_unavailable",
  "bundle_already_owned",
]);

/** The code for a refusal of createCheckout. */
export function buyErrorCode(error: AppError): BuyErrorCode {
  if (OWN_CODES.has(error.code)) return error.code as BuyErrorCode;
  if (error.code === "checkout_not_configured") return "not_configured";
  if (error.status === 429) return "rate_limited";
  if (error.status === 404) return "not_buyable";
  if (error.status >= 500) return "provider_unavailable";
  return "failed";
}
