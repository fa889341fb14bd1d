import { z } from "zod";
import { CACHE } from "../http/headers.ts";
import { RULES } from "../http/rate-limit.ts";
import { productIdSchema } from "../marketplace/schemas.ts";
import { listAdminReviews, listProductReviews, listSellerReviews } from "../reviews/list-reviews.ts";
import { hideReview, replyToReview, unhideReview } from "../reviews/respond.ts";
import {
  adminReviewSchema,
  adminReviewsQuerySchema,
  hideBodySchema,
  productReviewsParamsSchema,
  productReviewsQuerySchema,
  replyBodySchema,
  reviewParamsSchema,
  sellerReviewSchema,
  sellerReviewsQuerySchema,
  sellerReviewsResponseSchema,
  productReviewsResponseSchema,
  submitReviewBodySchema,
  submitReviewResponseSchema,
  unhideBodySchema,
  type PublicReview,
} from "../reviews/schemas.ts";
import { submitReview } from "../reviews/submit-review.ts";
import { operation } from "./define.ts";

const stars = (n: number) => `${"★".repeat(n)}${"☆".repeat(5 - n)}`;
const reviewLine = (r: PublicReview) =>
  [
    `${stars(r.rating)} ${r.title || "(no title)"} — ${r.author_name}, verified purchase, ${r.created_at.slice(0, 10)}${r.edited_at ? " (edited)" : ""} (id ${r.id})`,
    ...(r.body ? [`  ${r.body.replace(/\n+/g, " ")}`] : []),
    ...(r.seller_reply ? [`  Seller's reply: ${r.seller_reply.body.replace(/\n+/g, " ")}`] : []),
  ].join("\n");

/** Reviews: public reads, a license holder's review, the seller's replies and the operator's hiding. */
export const REVIEWS = [
  operation({
    id: "listProductReviews",
    summary: "A product's reviews",
    description:
      "The visible reviews of a listed product, a page at a time (`limit` ≤ 50), newest first or by rating, each with its seller reply; and the product's rating: average (one decimal), count and how many reviews gave each number of stars. Every review comes from a bought license; `verified_purchase` is false once that purchase was refunded (or lost in a dispute), and such a review is not in the rating. No buyer's e-mail or key is ever shown.",
    tag: "Reviews",
    auth: "public",
    http: { method: "GET", path: "/api/marketplace/product/{id}/reviews", cache: CACHE.short },
    input: { params: productReviewsParamsSchema, query: productReviewsQuerySchema },
    output: productReviewsResponseSchema,
    errors: [404],
    handler: (i) => listProductReviews(i.id, { sort: i.sort, page: i.page, limit: i.limit }),
    tools: [
      {
        name: "list_product_reviews",
        title: "Read a product's reviews",
        layer: 2,
        description:
          "Verified-purchase reviews of one product with its average rating, review count and star distribution; sort newest (default), highest or lowest; page through with `page` until `next_page` is null.",
        args: z.object({
          product_id: productIdSchema.describe("Product id from browse_marketplace"),
          sort: productReviewsQuerySchema.shape.sort.optional(),
          page: productReviewsQuerySchema.shape.page.optional(),
          limit: productReviewsQuerySchema.shape.limit.optional(),
        }),
        toInput: (a) => ({ id: a.product_id as string, ...productReviewsQuerySchema.parse({ sort: a.sort, page: a.page, limit: a.limit }) }),
        text: (o) =>
          o.rating.count
            ? [
                `${String(o.rating.average)} out of 5 from ${String(o.rating.count)} review(s); page ${String(o.page)} of ${String(o.pages)}.`,
                ...o.reviews.map(reviewLine),
                o.next_page !== null ? `More: call again with page: ${String(o.next_page)}.` : "This is the last page.",
              ].join("\n")
            : "No reviews yet.",
      },
    ],
  }),
  operation({
    id: "submitReview",
    summary: "Review a product you bought",
    description:
      'Rate a product 1–5 stars with an optional title, text and display name, proving the purchase with the license key. One review per license: sending again changes it (and marks it edited). Only a license bought in this store and valid now may review: trial (403 `trial_license`), complimentary (403 `not_purchased`), refunded (403 `license_refunded`), revoked (403 `license_revoked`), disputed (403 `license_disputed`) and expired (403 `license_expired`) licenses are refused, and a key of another product is 403 `license_wrong_product`. The name shown defaults to "Verified buyer"; the e-mail address is never shown. Rate-limited per client address and per key.',
    tag: "Reviews",
    auth: "public",
    http: { method: "POST", path: "/api/marketplace/product/{id}/reviews" },
    input: { params: productReviewsParamsSchema, body: submitReviewBodySchema },
    output: submitReviewResponseSchema,
    limits: (b, c) => [
      [RULES.activation, c.client],
      [RULES.key, b.license_key],
    ],
    errors: [403, 404, 429],
    handler: async (i) => {
      const { license_key, id, ...content } = i;
      const r = await submitReview({ key: license_key }, content, { productId: id });
      return { review: r.review, created: r.created, product_rating: r.productRating };
    },
    tools: [
      {
        name: "review_product",
        title: "Review a product you bought",
        layer: 2,
        description:
          'Write (or change) the review of a product bought with a license key you hold: rating 1–5 and optionally a title (≤ 120 characters), text (≤ 4,000) and the name to show (≤ 60; default "Verified buyer"; never use the buyer\'s e-mail). One review per license; calling again edits it. Trial, complimentary, refunded, revoked, disputed and expired licenses cannot review. Ask the person before posting in their name.',
        args: z.object({
          product_id: productIdSchema.describe("The product the license is for"),
          license_key: submitReviewBodySchema.shape.license_key,
          rating: submitReviewBodySchema.shape.rating,
          title: submitReviewBodySchema.shape.title.optional(),
          body: submitReviewBodySchema.shape.body.optional(),
          author_name: submitReviewBodySchema.shape.author_name,
        }),
        toInput: (a) => {
          const { product_id, ...body } = a;
          return { id: product_id as string, ...submitReviewBodySchema.parse(body) };
        },
        text: (o) =>
          `${o.created ? "Review posted" : "Review updated"}: ${reviewLine(o.review)}\nThe product is now rated ${String(o.product_rating.average)} out of 5 from ${String(o.product_rating.count)} review(s).`,
      },
    ],
  }),
  operation({
    id: "listSellerReviews",
    summary: "Reviews of your products",
    description:
      "Reviews of your products, newest first, with your replies; reviews the operator hid are included, marked `hidden` with the reason. `product_id` narrows to one product, `unreplied=true` to those you have not answered.",
    tag: "Reviews",
    auth: "seller",
    sellerScope: "products",
    http: { method: "GET", path: "/api/v1/reviews" },
    input: { query: sellerReviewsQuerySchema },
    output: sellerReviewsResponseSchema,
    errors: [401, 403],
    handler: (q, c) => listSellerReviews(c.seller.developer.id, q),
    tools: [
      {
        name: "seller_list_reviews",
        title: "Read reviews of your products",
        layer: 6,
        description:
          'Reviews buyers wrote about your products, newest first, with your replies (`unreplied: "true"` lists only those you have not answered). Use a review\'s id with seller_reply_to_review.',
        text: (o) =>
          o.reviews.length
            ? [
                `${String(o.total)} review(s); page ${String(o.page)} of ${String(o.pages)}:`,
                ...o.reviews.map((r) => `${r.product.name}${r.hidden ? " [hidden by the operator]" : ""}: ${reviewLine(r)}`),
              ].join("\n")
            : "No reviews match.",
      },
    ],
  }),
  operation({
    id: "replyToReview",
    summary: "Reply to a review",
    description:
      "Your public answer under a review of one of your products. Once per review, and final: a second reply is 409 `reply_exists`. A review the operator hid takes no reply (409 `review_hidden`); another seller's review is 404.",
    tag: "Reviews",
    auth: "seller",
    sellerScope: "products",
    http: { method: "POST", path: "/api/v1/reviews/{id}/reply" },
    input: { params: reviewParamsSchema, body: replyBodySchema },
    output: z.object({ review: sellerReviewSchema }),
    errors: [401, 403, 404, 409],
    handler: async (i, c) => ({ review: await replyToReview(c.seller.developer.id, i.id, i.reply) }),
    tools: [
      {
        name: "seller_reply_to_review",
        title: "Reply to a review",
        layer: 6,
        description:
          "Post your public answer under a review of your product (≤ 2,000 characters). One reply per review, and it cannot be changed afterwards: write it carefully.",
        text: (o) => `Reply posted under the review ${o.review.id} of ${o.review.product.name}.`,
      },
    ],
  }),
  operation({
    id: "listAdminReviews",
    summary: "Reviews of every product",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/reviews" },
    input: { query: adminReviewsQuerySchema },
    output: z.object({ reviews: z.array(adminReviewSchema) }),
    errors: [404],
    handler: async (q) => ({ reviews: await listAdminReviews(q) }),
  }),
  operation({
    id: "hideReview",
    summary: "Hide a review",
    description: "Takes the review off the product page and out of its rating, with a reason the seller sees. Recorded in the audit log.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/reviews/{id}/hide" },
    input: { params: reviewParamsSchema, body: hideBodySchema },
    output: z.object({ review: adminReviewSchema }),
    errors: [403, 404, 409],
    handler: async (i, c) => ({ review: await hideReview(c.admin, i.id, i.reason) }),
  }),
  operation({
    id: "unhideReview",
    summary: "Show a hidden review again",
    description: "Puts the review back on the product page and into its rating. Recorded in the audit log.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/reviews/{id}/unhide" },
    input: { params: reviewParamsSchema, body: unhideBodySchema },
    output: z.object({ review: adminReviewSchema }),
    errors: [403, 404, 409],
    handler: async (i, c) => ({ review: await unhideReview(c.admin, i.id, i.note) }),
  }),
];
