import { cache } from "react";
import { isNotFound } from "@/components/dashboard/form-state";
import { getSellerProduct } from "@/lib/selling/products";

/**
 * The seller's product for a dashboard page, or null for an unknown id or another seller's product (both the 404
 * page). Cached per request, so the page and its metadata read it once.
 */
export const findProduct = cache(async (developerId: string, id: string) => {
  try {
    return await getSellerProduct(developerId, id.slice(0, 64));
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
});
