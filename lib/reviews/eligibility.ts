import { AppError } from "../http/errors.ts";
import { licenseIsActive } from "../receipts/issue-receipt.ts";

/** The license columns that decide whether its holder may write or change a review. */
export interface ReviewerLicense {
  isActive: boolean;
  trial: boolean;
  source: string;
  revocation: string | null;
  expiresAt: Date | null;
}

/**
 * Why this license may not review, or null when it may. Only a license bought in this store and valid now counts as a
 * verified purchase:
 * - trials are refused: nothing was bought;
 * - complimentary licenses are refused: the seller issues them (press, giveaways, friends), so they would let a seller
 *   rate their own product through licenses they handed out;
 * - refunded, revoked, disputed and expired licenses are refused: the holder cannot write or change a review while
 *   the license is not in force (a review written before stays; see lib/reviews/submit-review.ts).
 */
export function reviewRefusal(license: ReviewerLicense, now = Date.now()): AppError | null {
  if (license.trial || license.source === "trial")
    return new AppError("trial_license", 403, "A trial license cannot review this product: reviews come from purchases only.");
  if (license.source !== "purchase")
    return new AppError(
      "not_purchased",
      403,
      "This license was given, not bought: only licenses bought in this store can review, so that every review is a verified purchase.",
    );
  if (!license.isActive) {
    switch (license.revocation) {
      case "refunded":
        return new AppError("license_refunded", 403, "This license was refunded, so it can no longer write or change a review.");
      case "disputed":
      case "dispute_lost":
        return new AppError("license_disputed", 403, "The payment of this license is disputed, so it cannot write or change a review.");
      default:
        return new AppError("license_revoked", 403, "This license is revoked, so it cannot write or change a review.");
    }
  }
  if (!licenseIsActive(license, now)) return new AppError("license_expired", 403, "This license has expired, so it cannot write or change a review.");
  return null;
}
