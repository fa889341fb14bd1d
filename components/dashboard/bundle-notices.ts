/**
 * What the Bundle section says after a save, by the code the action sent back (only these codes are shown, so a
 * crafted link cannot put words on the page); `{item}` is the refused product's name, looked up among the seller's.
 */
export const BUNDLE_NOTICES: Record<string, string> = {
  saved: "Bundle saved.",
  failed: "That did not work; please try again.",
  bundle_too_small: "A bundle includes at least two products: tick two or more, or none to make this an ordinary product.",
  bundle_item_not_found: "{item} is not one of your products.",
  bundle_item_unavailable: "{item} is not listed, so it cannot be sold in a bundle.",
  bundle_nested: "A bundle cannot be inside a bundle: {item} is a bundle, or this product is included in one.",
  bundle_includes_itself: "A bundle cannot include itself.",
  bundle_currency_mismatch: "{item} is priced in another currency than this product.",
  bundle_item_not_one_time: "{item} is sold by subscription or updates plan; a bundle includes only products sold once.",
  bundle_pricing_not_supported: "Only a product sold once can be a bundle: change its pricing first.",
  rate_limited: "Too many changes at once; wait a minute and try again.",
};
