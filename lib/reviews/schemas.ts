import { z } from "zod";
import { CONTROL_CHARACTER_MESSAGE as CONTROL, multiLineText, singleLineText } from "../http/input.ts";
import { licenseKeySchema } from "../licensing/schemas.ts";
import { MAX_PAGE, productIdSchema } from "../marketplace/schemas.ts";
import { DEFAULT_AUTHOR_NAME, REVIEW_LIMITS } from "./limits.ts";

/** Orders of a product's public reviews. */
const REVIEW_SORTS = ["newest", "highest", "lowest"] as const;
export type ReviewSort = (typeof REVIEW_SORTS)[number];
/** Reviews a page: the product page shows the first page, the API allows a little more. */
export const REVIEW_PAGE = { default: 10, max: 50 } as const;

/** One line, inner runs of white space kept as typed but the ends trimmed. */
const line = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`).refine(singleLineText, CONTROL);

/** Paragraphs: line breaks are kept (as \n), nothing else that is not text. */
const paragraphs = (max: number) =>
  z
    .string()
    .refine(multiLineText, CONTROL)
    .transform((s) => s.replace(/\r\n?/g, "\n").trim())
    .pipe(z.string().max(max, `must be at most ${max} characters`));

const ratingSchema = z
  .int("must be a whole number from 1 to 5")
  .min(REVIEW_LIMITS.ratingMin, "must be from 1 to 5")
  .max(REVIEW_LIMITS.ratingMax, "must be from 1 to 5")
  .describe("Stars, a whole number from 1 (poor) to 5 (excellent)");

/** What a buyer writes: the stars, and optionally a title, a text and the name to show. */
export const reviewContentSchema = z.object({
  rating: ratingSchema,
  title: line(REVIEW_LIMITS.title).default("").describe(`A headline, up to ${REVIEW_LIMITS.title} characters (optional)`),
  body: paragraphs(REVIEW_LIMITS.body).default("").describe(`The review, up to ${REVIEW_LIMITS.body} characters; line breaks are kept (optional)`),
  author_name: line(REVIEW_LIMITS.authorName)
    .transform((s) => s.replace(/\s+/g, " "))
    .optional()
    .describe(`The name shown with the review, up to ${REVIEW_LIMITS.authorName} characters; "${DEFAULT_AUTHOR_NAME}" when left out`),
});
export type ReviewContent = z.infer<typeof reviewContentSchema>;

export const submitReviewBodySchema = reviewContentSchema.extend({
  license_key: licenseKeySchema.describe("A license key of this product: holding it proves the purchase"),
});

export const productReviewsQuerySchema = z.object({
  sort: z.enum(REVIEW_SORTS).default("newest").describe("newest (the default), highest or lowest rating first"),
  page: z.coerce.number().int().min(1).max(MAX_PAGE).default(1),
  limit: z.coerce.number().int().min(1).max(REVIEW_PAGE.max).default(REVIEW_PAGE.default),
});
export type ProductReviewsQuery = z.infer<typeof productReviewsQuerySchema>;

export const productReviewsParamsSchema = z.object({ id: productIdSchema });

/** Review ids are generated (cuid); anything else is refused before a lookup. */
const reviewIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "must be a review id")
  .describe("The review's id");
export const reviewParamsSchema = z.object({ id: reviewIdSchema });

export const replyBodySchema = z.object({
  reply: paragraphs(REVIEW_LIMITS.reply)
    .pipe(z.string().min(1, "write a reply"))
    .describe(`Your public answer, up to ${REVIEW_LIMITS.reply} characters. A review takes one reply, which cannot be changed afterwards`),
});

export const sellerReviewsQuerySchema = z.object({
  product_id: productIdSchema.optional().describe("Only this product's reviews"),
  unreplied: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .describe("true: only reviews you have not answered yet"),
  page: z.coerce.number().int().min(1).max(MAX_PAGE).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export type SellerReviewsQuery = z.infer<typeof sellerReviewsQuerySchema>;

export const adminReviewsQuerySchema = z.object({
  q: line(200).optional().describe("Part of the product's name or id, the review's title or text, or the author's name"),
  status: z.enum(["visible", "hidden"]).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe("At most this many rows, newest first (1-200, default 50)"),
});
export type AdminReviewsQuery = z.infer<typeof adminReviewsQuerySchema>;

export const hideBodySchema = z.object({
  reason: line(REVIEW_LIMITS.hideReason)
    .pipe(z.string().min(3, "give a reason of at least 3 characters"))
    .describe("Why the review is hidden; the seller sees it"),
});
export const unhideBodySchema = z.object({
  note: line(REVIEW_LIMITS.hideReason).optional().describe("A note for the audit log"),
});

// ---- What the API answers ----

const dateTime = z.iso.datetime();

const sellerReplySchema = z.object({ body: z.string(), replied_at: dateTime }).nullable().describe("The seller's public answer, or null");

/** A review as anyone reads it: never the buyer's e-mail, key or license. */
const publicReviewSchema = z.object({
  id: z.string(),
  rating: z.int().min(1).max(5),
  title: z.string(),
  body: z.string(),
  author_name: z.string(),
  verified_purchase: z
    .boolean()
    .describe(
      "Only holders of a bought license can review; false once that purchase was refunded (or lost in a dispute): such a review is not in the rating",
    ),
  created_at: dateTime,
  edited_at: dateTime.nullable().describe("When the buyer last changed it; null if never"),
  seller_reply: sellerReplySchema,
});
export type PublicReview = z.infer<typeof publicReviewSchema>;

/** Average (one decimal), count and the 5→1 distribution of a product's visible reviews. */
const ratingSummarySchema = z.object({
  average: z.number().describe("Mean of the visible reviews' stars, rounded to one decimal; 0 when there are none"),
  count: z.int().describe("How many visible reviews"),
  distribution: z
    .object({ "5": z.int(), "4": z.int(), "3": z.int(), "2": z.int(), "1": z.int() })
    .describe("How many visible reviews gave each number of stars"),
});
export type RatingSummary = z.infer<typeof ratingSummarySchema>;

export const productReviewsResponseSchema = z.object({
  product_id: z.string(),
  rating: ratingSummarySchema,
  reviews: z.array(publicReviewSchema),
  total: z.int(),
  page: z.int(),
  limit: z.int(),
  pages: z.int(),
  next_page: z.int().nullable().describe("The page after this one; null on the last page"),
});

export const submitReviewResponseSchema = z.object({
  review: publicReviewSchema,
  created: z.boolean().describe("true when this license had no review yet; false when its review was changed"),
  product_rating: z.object({ average: z.number(), count: z.int() }),
});

/** A review of one of the seller's products, as the seller reads it (no buyer details either). */
export const sellerReviewSchema = publicReviewSchema.extend({
  product: z.object({ id: z.string(), name: z.string() }),
  hidden: z.boolean().describe("Hidden from the public by the operator"),
  hidden_reason: z.string().nullable(),
});
export type SellerReview = z.infer<typeof sellerReviewSchema>;

export const sellerReviewsResponseSchema = z.object({
  reviews: z.array(sellerReviewSchema),
  total: z.int(),
  page: z.int(),
  limit: z.int(),
  pages: z.int(),
  next_page: z.int().nullable(),
});

export const adminReviewSchema = sellerReviewSchema.extend({
  license_id: z.string(),
  seller: z.object({ id: z.string(), name: z.string() }),
  hidden_at: dateTime.nullable(),
  hidden_by: z.string().nullable(),
});
export type AdminReview = z.infer<typeof adminReviewSchema>;
