import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { latestReleases } from "../releases/read.ts";
import { bundleContents } from "../bundles/read-bundles.ts";
import { toProductDetails } from "./serialize.ts";
import type { ProductDetails } from "./schemas.ts";
import { productSelect } from "./serialize.ts";

/** The statuses the owner's preview shows: the seller's own (a listing the operator holds is not previewed). */
const PREVIEWABLE = ["draft", "active", "unlisted"];

/**
 * A listed product with its developer. Unlisted and unknown products are both "not found" to the public. With
 * `ownerId` (the owner's preview), the seller's own product whether listed, unlisted or a draft; anyone else's is
 * "not found" as well.
 */
export async function getProduct(id: string, options: { ownerId?: string } = {}): Promise<ProductDetails> {
  const db = getDb();
  const row = await db.product.findFirst({
    where: options.ownerId ? { id, developerId: options.ownerId, status: { in: PREVIEWABLE } } : { id, status: "active" },
    select: {
      ...productSelect,
      systemRequirements: true,
      demoLinks: true,
      updatePolicy: true,
      updateDays: true,
      developer: { select: { id: true, name: true, website: true, bio: true, refundPolicy: true, supportEmail: true, supportUrl: true } },
    },
  });
  if (!row) throw notFound("product", `No listed product has the id "${id}".`);
  const [count, latest, bundles] = await Promise.all([
    db.product.count({ where: { developerId: row.developer.id, status: "active" } }),
    latestReleases([row.id]),
    bundleContents([row]),
  ]);
  return toProductDetails({ ...row, latestVersion: latest.get(row.id) ?? null, bundleItems: bundles.get(row.id) }, count);
}
