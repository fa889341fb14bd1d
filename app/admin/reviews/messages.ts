/** The review console's messages after its own redirects (?notice=…, ?error=…): known codes only, in our words. */
const NOTICES = {
  "review-hidden": "Review hidden. It is off the product page and out of its rating; the seller sees your reason.",
  "review-shown": "Review shown again, and counted in the product's rating.",
} as const;
export type ReviewNotice = keyof typeof NOTICES;

const ERRORS = {
  invalid: "Please give a reason of 3 to 500 characters on one line.",
  review_not_found: "There is no such review.",
  review_already_hidden: "That review is already hidden.",
  review_not_hidden: "That review is not hidden.",
  rate_limited: "Too many attempts in a short time. Wait a minute and try again.",
  failed: "That did not work. Please try again.",
} as const;

const own = <T extends object>(table: T, key: string): key is Extract<keyof T, string> => Object.hasOwn(table, key);

export const reviewErrorCode = (code: string): string => (own(ERRORS, code) ? code : "failed");
export const reviewNotice = (code: string): string | undefined => (own(NOTICES, code) ? NOTICES[code] : undefined);
export const reviewError = (code: string): string | undefined => (own(ERRORS, code) ? ERRORS[code] : undefined);
