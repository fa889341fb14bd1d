import { z } from "zod";
import { getDb } from "../db.ts";
import { OPERATOR_PRODUCT_STATUSES, PRODUCT_STATUSES } from "../marketplace/constants.ts";
import { productInputSchema } from "../marketplace/schemas.ts";
import { DOWNLOAD_URL_MAX, downloadUrlProblem } from "./download-url.ts";
import { productToInput } from "./products.ts";

/**
 * A product as a seller writes it, in the dashboard form and over the API: the marketplace's product schema with the
 * download URL held to the rule the download route applies again before it redirects (https, no credentials).
 */
export const sellerProductInputSchema = productInputSchema.safeExtend({
  download_url: z
    .string()
    .trim()
    .max(DOWNLOAD_URL_MAX)
    .superRefine((value, ctx) => {
      const problem = value === "" ? null : downloadUrlProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .default("")
    .describe("Where buyers download the software (https); empty or left out when it ships its files through Releases"),
});

/** A new product: the same fields, and whether to publish it at once (default: it starts as a draft). */
export const sellerProductCreateSchema = sellerProductInputSchema.safeExtend({
  publish: z
    .boolean()
    .default(false)
    .describe(
      "true: publish the product in the same call, under the same checks as publishSellerProduct (409 `product_not_ready`); false or left out: it is created as a draft",
    ),
});

/** A product as its seller sees it over the API: the form's fields plus what the store adds. Internal columns stay in. */
export const sellerProductSchema = productInputSchema.safeExtend({
  id: z.string(),
  status: z.enum([...PRODUCT_STATUSES, ...OPERATOR_PRODUCT_STATUSES]),
  sales_count: z.int(),
  license_file_ttl_days: z.int(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type SellerProduct = z.infer<typeof sellerProductSchema>;

type ProductRow = Parameters<typeof productToInput>[0];

export function toSellerProduct(p: ProductRow): SellerProduct {
  return {
    ...productToInput(p),
    id: p.id,
    status: p.status as SellerProduct["status"],
    sales_count: p.salesCount,
    license_file_ttl_days: p.licenseFileTtlDays,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** All of a seller's products, newest first, in the API's shape. */
export async function listSellerProductsForApi(developerId: string): Promise<SellerProduct[]> {
  const rows = await getDb().product.findMany({ where: { developerId }, orderBy: { createdAt: "desc" } });
  return rows.map(toSellerProduct);
}
