/* Plain constants, without imports: the browser's review form reads them too. */

/** The bounds of a review, one place for the API, the forms and their hints. */
export const REVIEW_LIMITS = {
  ratingMin: 1,
  ratingMax: 5,
  title: 120,
  body: 4000,
  authorName: 60,
  reply: 2000,
  hideReason: 500,
} as const;

/**
 * The name a review shows when the buyer gives none. Derived from nothing about the buyer (never the e-mail address,
 * nor anything else the store knows of them): the page already says every review comes from a purchase.
 */
export const DEFAULT_AUTHOR_NAME = "Verified buyer";
