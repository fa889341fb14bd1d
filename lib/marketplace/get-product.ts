import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { toProductDetails } from "./serialize.ts";
import type { ProductDetails } from "./schemas.ts";
import { productSelect } from "./serialize.ts";

/** A listed product with its developer. Unlisted and unknown products are both "not found" to the public. */
export async function getProduct(id: string): Promise<ProductDetails> {
  const db = getDb();
  const row = await db.product.findFirst({
    where: { id, status: "active" },
    select: { ...productSelect, developer: { select: { id: true, name: true, website: true, bio: true } } },
  });
  if (!row) throw notFound("product", `No listed product has the id "${id}".`);
  const count = await db.product.count({ where: { developerId: row.developer.id, status: "active" } });
  return toProductDetails(row, count);
}
