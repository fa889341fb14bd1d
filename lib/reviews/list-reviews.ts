import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { cachedRead } from "../cache/read-cache.ts";
import { ratingDistribution, summarise, VISIBLE } from "./aggregate.ts";
import { roundAverage } from "./rating.ts";
import type { AdminReviewsQuery, ProductReviewsQuery, ReviewSort, SellerReviewsQuery } from "./schemas.ts";
import { adminReviewSelect, reviewSelect, sellerReviewSelect, toAdminReview, toPublicReview, toSellerReview } from "./views.ts";
import { containsText } from "../admin/search.ts";

const ORDER = {
  newest: [{ createdAt: "desc" }, { id: "asc" }],
  highest: [{ rating: "desc" }, { createdAt: "desc" }, { id: "asc" }],
  lowest: [{ rating: "asc" }, { createdAt: "desc" }, { id: "asc" }],
} as const satisfies Record<ReviewSort, unknown>;

const pagesOf = (total: number, limit: number) => Math.max(1, Math.ceil(total / limit));

/**
 * A listed product's visible reviews, a page at a time, with the summary (average, count, 5→1 distribution) counted
 * from the same rows. Unknown and unlisted products are 404, as on the product's own endpoint.
 */
export function listProductReviews(productId: string, query: ProductReviewsQuery) {
  return cachedRead(`reviews:${productId}:${query.sort}:${query.page}:${query.limit}`, () => readProductReviews(productId, query));
}

async function readProductReviews(productId: string, query: ProductReviewsQuery) {
  const db = getDb();
  const product = await db.product.findFirst({ where: { id: productId, status: "active" }, select: { id: true } });
  if (!product) throw notFound("product", `No listed product has the id "${productId}".`);
  const where = { productId, ...VISIBLE };
  const [distribution, rows] = await Promise.all([
    ratingDistribution(db, productId),
    db.review.findMany({
      where,
      orderBy: [...ORDER[query.sort]],
      skip: (query.page - 1) * query.limit,
      take: query.limit,
      select: reviewSelect,
    }),
  ]);
  const { average, count } = summarise(distribution);
  const pages = pagesOf(count, query.limit);
  return {
    product_id: productId,
    rating: { average: roundAverage(average), count, distribution },
    reviews: rows.map(toPublicReview),
    total: count,
    page: query.page,
    limit: query.limit,
    pages,
    next_page: query.page < pages ? query.page + 1 : null,
  };
}

/** Reviews of the seller's own products, newest first, hidden ones included (marked, with the operator's reason). */
export async function listSellerReviews(developerId: string, query: SellerReviewsQuery) {
  const db = getDb();
  const where = {
    product: { developerId },
    ...(query.product_id ? { productId: query.product_id } : {}),
    ...(query.unreplied === true ? { repliedAt: null } : query.unreplied === false ? { repliedAt: { not: null } } : {}),
  };
  const [total, rows] = await Promise.all([
    db.review.count({ where }),
    db.review.findMany({
      where,
      orderBy: [...ORDER.newest],
      skip: (query.page - 1) * query.limit,
      take: query.limit,
      select: sellerReviewSelect,
    }),
  ]);
  const pages = pagesOf(total, query.limit);
  return {
    reviews: rows.map(toSellerReview),
    total,
    page: query.page,
    limit: query.limit,
    pages,
    next_page: query.page < pages ? query.page + 1 : null,
  };
}

/** Every review, newest first, for the operator: by words of the product, the review or its author, and by status. */
export async function listAdminReviews(query: AdminReviewsQuery) {
  const q = query.q?.trim();
  const rows = await getDb().review.findMany({
    where: {
      ...(query.status === "hidden" ? { hiddenAt: { not: null } } : query.status === "visible" ? VISIBLE : {}),
      ...(q
        ? {
            OR: [
              { id: q },
              { productId: q },
              { product: { name: containsText(q) } },
              { title: containsText(q) },
              { body: containsText(q) },
              { authorName: containsText(q) },
            ],
          }
        : {}),
    },
    orderBy: [...ORDER.newest],
    take: query.limit,
    select: adminReviewSelect,
  });
  return rows.map(toAdminReview);
}
