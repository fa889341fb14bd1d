import type { Admin } from "../admin/access.ts";
import { writeAudit } from "../admin/audit.ts";
import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { clearReadCache } from "../cache/read-cache.ts";
import { lockProduct, recomputeRating } from "./aggregate.ts";
import type { AdminReview, SellerReview } from "./schemas.ts";
import { adminReviewSelect, sellerReviewSelect, toAdminReview, toSellerReview } from "./views.ts";

/**
 * The seller's public answer to a review of one of their products. Once: a second reply is 409 `reply_exists`, also
 * when two are sent at the same moment (one conditional update), and a reply cannot be changed afterwards — the
 * buyer and other readers see what was answered, and a seller cannot rewrite an exchange after the buyer reacted.
 * Another seller's review is "not found". A review the operator hid takes no reply.
 */
export async function replyToReview(developerId: string, reviewId: string, reply: string): Promise<SellerReview> {
  const db = getDb();
  const review = await db.review.findFirst({ where: { id: reviewId, product: { developerId } }, select: { hiddenAt: true, sellerReply: true } });
  if (!review) throw notFound("review");
  if (review.sellerReply !== null) throw replyExists();
  if (review.hiddenAt) throw new AppError("review_hidden", 409, "The operator hid this review, so it takes no reply.");
  const { count } = await db.review.updateMany({ where: { id: reviewId, sellerReply: null }, data: { sellerReply: reply, repliedAt: new Date() } });
  if (count !== 1) throw replyExists();
  clearReadCache();
  return toSellerReview(await db.review.findUniqueOrThrow({ where: { id: reviewId }, select: sellerReviewSelect }));
}

const replyExists = () =>
  new AppError("reply_exists", 409, "You have already replied to this review; a review takes one reply, which cannot be changed.");

/**
 * The operator hides a review from the public with a reason (the seller sees it), or shows it again. A hidden review
 * is in no list anyone but the seller and the operator reads, and in no rating: the product's figures are recomputed
 * in the same transaction, under the product's lock, with the audit entry.
 */
export async function hideReview(admin: Admin, reviewId: string, reason: string): Promise<AdminReview> {
  return moderate(admin, reviewId, { hide: true, reason });
}

export async function unhideReview(admin: Admin, reviewId: string, note?: string): Promise<AdminReview> {
  return moderate(admin, reviewId, { hide: false, ...(note ? { note } : {}) });
}

async function moderate(
  admin: Admin,
  reviewId: string,
  change: { hide: true; reason: string } | { hide: false; note?: string },
): Promise<AdminReview> {
  const db = getDb();
  const found = await db.review.findUnique({ where: { id: reviewId }, select: { productId: true } });
  if (!found) throw notFound("review");
  await db.$transaction(async (tx) => {
    await lockProduct(tx, found.productId);
    const { count } = change.hide
      ? await tx.review.updateMany({
          where: { id: reviewId, hiddenAt: null },
          data: { hiddenAt: new Date(), hiddenReason: change.reason, hiddenBy: admin.email },
        })
      : await tx.review.updateMany({
          where: { id: reviewId, hiddenAt: { not: null } },
          data: { hiddenAt: null, hiddenReason: null, hiddenBy: null },
        });
    if (count !== 1)
      throw change.hide
        ? new AppError("review_already_hidden", 409, "This review is already hidden.")
        : new AppError("review_not_hidden", 409, "This review is not hidden.");
    await writeAudit(tx, admin, {
      action: change.hide ? "review.hide" : "review.unhide",
      targetType: "review",
      targetId: reviewId,
      detail: change.hide
        ? { reason: change.reason, product: found.productId }
        : { product: found.productId, ...(change.note ? { note: change.note } : {}) },
    });
    await recomputeRating(tx, found.productId);
  });
  clearReadCache();
  return toAdminReview(await db.review.findUniqueOrThrow({ where: { id: reviewId }, select: adminReviewSelect }));
}
