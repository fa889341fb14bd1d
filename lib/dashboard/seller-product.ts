import { z } from "zod";
import { getDb } from "../db.ts";
import { PRODUCT_STATUSES } from "../marketplace/constants.ts";
import { productInputSchema } from "../marketplace/schemas.ts";
import { stringList } from "../marketplace/serialize.ts";

/** A product as its seller sees it over the API: the form's fields plus what the store adds. Internal columns stay in. */
export const sellerProductSchema = productInputSchema.safeExtend({
  id: z.string(),
  status: z.enum(PRODUCT_STATUSES),
  currency: z.string(),
  sales_count: z.int(),
  license_file_ttl_days: z.int(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type SellerProduct = z.infer<typeof sellerProductSchema>;

interface ProductRow {
  id: string;
  pluginId: string;
  name: string;
  tagline: string;
  description: string;
  priceCents: number;
  currency: string;
  category: string;
  maxMachines: number;
  seatModel: string;
  trialAvailable: boolean;
  trialDays: number;
  platforms: unknown;
  compatibility: unknown;
  inputs: unknown;
  outputs: unknown;
  images: unknown;
  minVersion: string | null;
  downloadUrl: string;
  iconUrl: string;
  status: string;
  salesCount: number;
  licenseFileTtlDays: number;
  createdAt: Date;
  updatedAt: Date;
}

export function toSellerProduct(p: ProductRow): SellerProduct {
  return {
    id: p.id,
    plugin_id: p.pluginId,
    name: p.name,
    tagline: p.tagline,
    description: p.description,
    price_cents: p.priceCents,
    currency: p.currency,
    category: p.category as SellerProduct["category"],
    max_machines: p.maxMachines,
    seat_model: p.seatModel as SellerProduct["seat_model"],
    trial_available: p.trialAvailable,
    trial_days: p.trialDays,
    platforms: stringList(p.platforms) as SellerProduct["platforms"],
    compatibility: stringList(p.compatibility),
    inputs: stringList(p.inputs),
    outputs: stringList(p.outputs),
    images: stringList(p.images),
    min_version: p.minVersion,
    download_url: p.downloadUrl,
    icon_url: p.iconUrl,
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
