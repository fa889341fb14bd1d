import { buyErrorMessage } from "@/lib/checkout/buy-errors";

/**
 * What a checkout link's page says when the link cannot sell, or when its Buy form was refused (the start route sends
 * the buyer back with ?buy_error=<code>). Only known codes have words, so a crafted URL cannot put text on the page.
 */
const LINK_REFUSALS: Record<string, { heading: string; body: string }> = {
  checkout_link_not_found: {
    heading: "This checkout link does not work",
    body: "It may be mistyped, or its seller has turned it off. The product may still be for sale in the store.",
  },
  checkout_link_expired: {
    heading: "This checkout link has expired",
    body: "The offer it made has ended. The product may still be for sale in the store at its usual price.",
  },
  checkout_link_used_up: {
    heading: "This checkout link has been used up",
    body: "It sold as many times as its seller allowed. The product may still be for sale in the store.",
  },
  product_not_found: {
    heading: "This product is not for sale right now",
    body: "Its seller has not listed it, or it was removed from the store.",
  },
  coupon_not_found: {
    heading: "This offer's discount has ended",
    body: "The discount code this link applied can no longer be used. The product may still be for sale in the store.",
  },
};

/** The words for a link that cannot sell, by the refusal's code; null for any other code (then the generic words). */
export function linkRefusal(code: string): { heading: string; body: string } | null {
  return Object.hasOwn(LINK_REFUSALS, code) ? (LINK_REFUSALS[code] ?? null) : null;
}

/** The Buy form's refusal on a link's page: the link's own words, else the product page's (lib/checkout/buy-errors.ts). */
export function linkBuyError(code: string | undefined): string | null {
  if (!code) return null;
  const own = linkRefusal(code);
  return own ? `${own.heading}. ${own.body}` : buyErrorMessage(code);
}
