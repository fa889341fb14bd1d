/**
 * The console's messages after its own redirects (?notice=…, ?error=…): known codes only, in our words, so a crafted
 * link cannot make a console page say anything we did not write.
 */
const NOTICES: Record<string, string> = {
  "seller-suspended": "Seller suspended. Their listings are hidden and they cannot publish; their licenses keep working.",
  "seller-reinstated": "Seller reinstated. The listings their suspension hid are listed again.",
  "product-removed": "Listing removed. The seller sees your reason and cannot relist it.",
  "product-restored": "Listing restored.",
  "product-featured": "Listing featured. It leads the home page's Featured row.",
  "product-unfeatured": "Listing no longer featured.",
  refunded: "Refund made. The buyer is told by e-mail; a full refund revokes the license.",
  "test-dispute": "Test dispute updated: the license and the ledger follow, as with a real chargeback.",
  "subscription-advanced": "The subscription's clock moved: what fell due in those days is done, and the license follows.",
  "subscription-card": "The subscription's test card is changed; a declined renewal was charged again if the card now pays.",
  "subscription-canceled": "Subscription canceled: it ends at the end of its paid period.",
};
const ERRORS: Record<string, string> = {
  invalid: "Please check the form: a reason of 3 to 500 characters on one line, and an amount like 12.50.",
  seller_already_suspended: "That seller is already suspended.",
  seller_not_suspended: "That seller is not suspended.",
  seller_not_found: "There is no such seller.",
  product_not_found: "There is no such product.",
  order_not_found: "There is no such order.",
  product_already_removed: "That listing is already removed.",
  product_not_removed: "Only a removed listing can be restored.",
  product_not_listed: "Only a listed product can be featured.",
  product_already_featured: "That listing is already featured.",
  product_not_featured: "That listing is not featured.",
  listing_changed: "That listing changed in the meantime; try again.",
  refund_exceeds_remaining: "That is more than remains to be refunded on this order.",
  refund_unconfirmed: "Nothing was refunded: tick the confirmation to refund.",
  // A refund amount the parser refused (lib/money/parse-money.ts); the line under the field gave the details as it was typed.
  amount_not_a_number: "Enter the amount as digits in the order's currency, such as 12.50 or 12,50, or leave it empty for all that remains.",
  amount_ambiguous:
    "That amount could be read two ways (1,234: a thousand and more, or one and a bit). Write 1234 or 1234.00, or use at most two decimals.",
  amount_too_many_decimals: "That amount has more decimals than the order's currency has.",
  amount_negative: "Enter the amount without a minus sign.",
  order_not_paid: "Only paid orders can be refunded or disputed.",
  dispute_exists: "This order already had a dispute.",
  no_open_dispute: "Open a test dispute on this order first.",
  dispute_step_done: "That step of the test dispute was already taken.",
  test_mode_off: "Test disputes exist only while test mode takes payments.",
  order_disputed: "This payment is under dispute (or the dispute was lost); it cannot be refunded.",
  refund_not_possible: "The payment provider has not reported this payment yet; try again in a minute.",
  payment_provider_unavailable: "The payment provider could not be reached; nothing was refunded. Try again shortly.",
  rate_limited: "Too many attempts in a short time. Wait a minute and try again.",
  // The same form sent twice (a double click): the first is still at work, or was sent with other values.
  idempotency_in_flight: "That form was already sent and is still being processed; reload the page in a moment to see the outcome.",
  idempotency_conflict: "That form was already sent with other values; reload the page and fill it in again.",
  subscription_ended: "That subscription has ended.",
  subscription_already_canceled: "That subscription is already canceled.",
  subscription_not_found: "There is no such subscription.",
  not_test_mode: "That subscription is billed through Stripe: its card and its clock are Stripe's.",
  failed: "That did not work. Please try again.",
};

const known = (map: Record<string, string>, code: string) => (Object.hasOwn(map, code) ? map[code] : undefined);
export const adminNotice = (code: string): string | undefined => known(NOTICES, code);
export const adminError = (code: string): string | undefined => known(ERRORS, code);
/** The code a redirect carries: a known one, else "failed". */
export const errorCode = (code: string): string => (Object.hasOwn(ERRORS, code) ? code : "failed");
