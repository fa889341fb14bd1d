import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { clearReadCache } from "../cache/read-cache.ts";
import { lockProduct, recomputeRating } from "./aggregate.ts";
import { roundAverage } from "./rating.ts";
import { reviewRefusal } from "./eligibility.ts";
import { DEFAULT_AUTHOR_NAME } from "./limits.ts";
import type { PublicReview, ReviewContent } from "./schemas.ts";
import { reviewSelect, toPublicReview } from "./views.ts";

/** Whose review: the key's holder (the API: holding the key proves the purchase), or a signed-in buyer's own license. */
export type Reviewer = { key: string } | { licenseId: string; buyerEmail: string };

export interface SubmittedReview {
  review: PublicReview;
  created: boolean;
  productRating: { average: number; count: number };
}

const licenseSelect = {
  id: true,
  productId: true,
  isActive: true,
  trial: true,
  source: true,
  revocation: true,
  expiresAt: true,
  product: { select: { status: true } },
} as const;

const licenseWhere = (who: Reviewer) => ("key" in who ? { key: who.key } : { id: who.licenseId, buyerEmail: who.buyerEmail.toLowerCase() });

/**
 * Writes the license's review, or changes it: one review per license (Review.licenseId is unique), so sending again
 * edits it and sets editedAt (only when something changed). Only a license bought here and valid now may write or
 * change one (lib/reviews/eligibility.ts). A review written while the license was valid stays, and keeps counting,
 * when the license is later refunded or revoked: otherwise a seller could erase a critic's review by refunding or
 * revoking their license; the holder just cannot change it any more, and the operator can hide it.
 *
 * The product's rating is recomputed from the rows in the same transaction, under the product's lock, so racing
 * reviews never leave a wrong aggregate.
 */
export async function submitReview(who: Reviewer, content: ReviewContent, opts: { productId?: string } = {}): Promise<SubmittedReview> {
  const db = getDb();
  const license = await db.license.findFirst({ where: licenseWhere(who), select: licenseSelect });
  if (!license) throw notFound("license", "key" in who ? "No license has that key." : "You have no such license.");
  if (opts.productId !== undefined && license.productId !== opts.productId)
    throw new AppError("license_wrong_product", 403, "This license is for another product; review the product it was bought for.");
  if (license.product.status !== "active") throw notFound("product", "This product is not listed, so it cannot be reviewed.");
  const refusal = reviewRefusal(license);
  if (refusal) throw refusal;

  const name = content.author_name?.trim() || undefined;
  const result = await db.$transaction(async (tx) => {
    await lockProduct(tx, license.productId);
    // Read again under the lock: a refund or revocation since the first read wins.
    const now = await tx.license.findUniqueOrThrow({ where: { id: license.id }, select: licenseSelect });
    const late = reviewRefusal(now);
    if (late) throw late;
    const existing = await tx.review.findUnique({ where: { licenseId: license.id }, select: reviewSelect });
    let row;
    if (existing) {
      const authorName = name ?? existing.authorName;
      const changed =
        existing.rating !== content.rating ||
        existing.title !== content.title ||
        existing.body !== content.body ||
        existing.authorName !== authorName;
      row = changed
        ? await tx.review.update({
            where: { id: existing.id },
            data: { rating: content.rating, title: content.title, body: content.body, authorName, editedAt: new Date() },
            select: reviewSelect,
          })
        : existing;
    } else {
      row = await tx.review.create({
        data: {
          licenseId: license.id,
          productId: license.productId,
          rating: content.rating,
          title: content.title,
          body: content.body,
          authorName: name ?? DEFAULT_AUTHOR_NAME,
        },
        select: reviewSelect,
      });
    }
    const figures = await recomputeRating(tx, license.productId);
    return { review: toPublicReview(row), created: !existing, productRating: { average: roundAverage(figures.average), count: figures.count } };
  });
  clearReadCache();
  return result;
}
