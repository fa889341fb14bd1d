import { isVerifiedPurchase } from "./aggregate.ts";
import type { AdminReview, PublicReview, SellerReview } from "./schemas.ts";

/** The Review columns every view reads. */
export const reviewSelect = {
  id: true,
  rating: true,
  title: true,
  body: true,
  authorName: true,
  createdAt: true,
  editedAt: true,
  sellerReply: true,
  repliedAt: true,
  // Whether the purchase still stands: a refunded license's review is shown, but not as a verified purchase.
  license: { select: { revocation: true } },
} as const;

interface ReviewRow {
  id: string;
  rating: number;
  title: string;
  body: string;
  authorName: string;
  createdAt: Date;
  editedAt: Date | null;
  sellerReply: string | null;
  repliedAt: Date | null;
  license: { revocation: string | null };
}

/** A review as anyone reads it. Nothing about the buyer but the name they chose. */
export function toPublicReview(r: ReviewRow): PublicReview {
  return {
    id: r.id,
    rating: r.rating,
    title: r.title,
    body: r.body,
    author_name: r.authorName,
    verified_purchase: isVerifiedPurchase(r.license),
    created_at: r.createdAt.toISOString(),
    edited_at: r.editedAt?.toISOString() ?? null,
    seller_reply: r.sellerReply !== null && r.repliedAt ? { body: r.sellerReply, replied_at: r.repliedAt.toISOString() } : null,
  };
}

export const sellerReviewSelect = {
  ...reviewSelect,
  hiddenAt: true,
  hiddenReason: true,
  product: { select: { id: true, name: true } },
} as const;

type SellerRow = ReviewRow & { hiddenAt: Date | null; hiddenReason: string | null; product: { id: string; name: string } };

export function toSellerReview(r: SellerRow): SellerReview {
  return {
    ...toPublicReview(r),
    product: { id: r.product.id, name: r.product.name },
    hidden: r.hiddenAt !== null,
    hidden_reason: r.hiddenAt ? r.hiddenReason : null,
  };
}

export const adminReviewSelect = {
  ...sellerReviewSelect,
  licenseId: true,
  hiddenBy: true,
  product: { select: { id: true, name: true, developer: { select: { id: true, name: true } } } },
} as const;

type AdminRow = SellerRow & {
  licenseId: string;
  hiddenBy: string | null;
  product: { id: string; name: string; developer: { id: string; name: string } };
};

export function toAdminReview(r: AdminRow): AdminReview {
  return {
    ...toSellerReview(r),
    license_id: r.licenseId,
    seller: { id: r.product.developer.id, name: r.product.developer.name },
    hidden_at: r.hiddenAt?.toISOString() ?? null,
    hidden_by: r.hiddenBy,
  };
}
