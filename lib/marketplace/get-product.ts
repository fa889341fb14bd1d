import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { latestReleases } from "../releases/read.ts";
import { bundleContents } from "../bundles/read-bundles.ts";
import { toProductDetails } from "./serialize.ts";
import type { ProductDetails } from "./schemas.ts";
import { productSelect } from "./serialize.ts";

/** A listed product with its developer. Unlisted and unknown products are both "not found" to the public. */
export async function getProduct(id: string): Promise<ProductDetails> {
  const db = getDb();
  const row = await db.product.findFirst({
    where: { id, status: "active" },
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
