import { getDb } from "../db.ts";
import { reviewRefusal } from "./eligibility.ts";
import { reviewSelect } from "./views.ts";

/** What My licenses shows about reviewing with one license. */
export interface BuyerReviewState {
  /** May write or change its review now. */
  canReview: boolean;
  /** Why not, in the buyer's words, when there is a review it can no longer change; null otherwise. */
  locked: string | null;
  review: {
    rating: number;
    title: string;
    body: string;
    authorName: string;
    createdAt: Date;
    editedAt: Date | null;
    sellerReply: string | null;
    hidden: boolean;
    hiddenReason: string | null;
  } | null;
}

/**
 * For each of a buyer's licenses: whether it may review (a license bought here, valid now, of a listed product) and
 * its review, in one query. Licenses that never could review (trials, complimentary) get no state: the page stays
 * quiet about reviews there.
 */
export async function buyerReviewStates(email: string, now = Date.now()): Promise<Map<string, BuyerReviewState>> {
  const rows = await getDb().license.findMany({
    where: { buyerEmail: email.toLowerCase() },
    select: {
      id: true,
      isActive: true,
      trial: true,
      source: true,
      revocation: true,
      expiresAt: true,
      product: { select: { status: true } },
      review: { select: { ...reviewSelect, hiddenAt: true, hiddenReason: true } },
    },
  });
  const out = new Map<string, BuyerReviewState>();
  for (const l of rows) {
    const refusal = reviewRefusal(l, now);
    const listed = l.product.status === "active";
    const r = l.review;
    if (!r && (refusal || !listed)) continue;
    out.set(l.id, {
      canReview: !refusal && listed,
      locked: refusal && r ? refusal.detail : !listed && r ? "This product is no longer listed, so its review cannot be changed." : null,
      review: r
        ? {
            rating: r.rating,
            title: r.title,
            body: r.body,
            authorName: r.authorName,
            createdAt: r.createdAt,
            editedAt: r.editedAt,
            sellerReply: r.sellerReply,
            hidden: r.hiddenAt !== null,
            hiddenReason: r.hiddenReason,
          }
        : null,
    });
  }
  return out;
}
