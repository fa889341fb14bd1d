import { dbEngine, type Db } from "../db.ts";
import type { RatingSummary } from "./schemas.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** Only what the public sees counts: reviews the operator hid are in no figure. */
export const VISIBLE = { hiddenAt: null } as const;

/** Revocations that mean the money went back: a review from such a license is no verified purchase any more. */
const UNPAID_REVOCATIONS = ["refunded", "dispute_lost"] as const;

/** Whether a review's license still stands for a purchase (lib/reviews/views.ts words it "Verified purchase"). */
export const isVerifiedPurchase = (license: { revocation: string | null }): boolean =>
  license.revocation === null || !(UNPAID_REVOCATIONS as readonly string[]).includes(license.revocation);

/** What the rating figures count: visible reviews whose purchase stands (a refunded buyer's review leaves the average). */
const COUNTED = {
  ...VISIBLE,
  license: { OR: [{ revocation: null }, { revocation: { notIn: [...UNPAID_REVOCATIONS] } }] },
};

/**
 * Serialises every change to one product's reviews: the first statement of each review transaction. On PostgreSQL the
 * product's row lock makes racing transactions wait, so each one counts the reviews committed before it and its own;
 * SQLite runs one write transaction at a time. Without it, two reviews committed at the same moment could each store
 * an aggregate that misses the other.
 */
export async function lockProduct(tx: Tx, productId: string): Promise<void> {
  if (dbEngine() === "postgresql") await tx.$queryRaw`SELECT 1 FROM "Product" WHERE "id" = ${productId} FOR UPDATE`;
}

/** The count of counted reviews (visible, purchase standing) per number of stars. */
export async function ratingDistribution(db: Tx | Db, productId: string): Promise<RatingSummary["distribution"]> {
  const groups = await db.review.groupBy({ by: ["rating"], where: { productId, ...COUNTED }, _count: { _all: true } });
  const out = { "5": 0, "4": 0, "3": 0, "2": 0, "1": 0 };
  for (const g of groups) {
    const key = String(g.rating);
    if (key in out) out[key as keyof typeof out] = g._count._all;
  }
  return out;
}

/** Average and count from a distribution; the average unrounded (it is rounded where it is shown). */
export function summarise(distribution: RatingSummary["distribution"]): { average: number; count: number } {
  let count = 0;
  let sum = 0;
  for (const [stars, n] of Object.entries(distribution)) {
    count += n;
    sum += Number(stars) * n;
  }
  return { average: count ? sum / count : 0, count };
}

/**
 * Recomputes Product.ratingCount/ratingAverage from the Review rows, never by adding to the stored figures: call it in
 * the transaction that changed a review, after lockProduct. Returns the stored figures.
 */
export async function recomputeRating(tx: Tx, productId: string): Promise<{ average: number; count: number }> {
  const figures = summarise(await ratingDistribution(tx, productId));
  await tx.product.update({ where: { id: productId }, data: { ratingCount: figures.count, ratingAverage: figures.average } });
  return figures;
}
