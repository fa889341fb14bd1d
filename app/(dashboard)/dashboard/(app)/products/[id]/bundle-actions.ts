"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, idOf, runOperation } from "@/lib/transports/action";
import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { BUNDLE_NOTICES } from "@/components/dashboard/bundle-notices";

/**
 * The product page's Bundle section, saved: the ticked products (in the order the form lists them) and the prorate
 * box, through setBundleItems. The outcome comes back as a code the section words (components/dashboard/bundle-notices.ts); a refusal
 * about one item names it by its id, which the section looks up among the seller's own products.
 */
export async function setBundleItemsAction(rawProductId: unknown, form: unknown): Promise<void> {
  const id = idOf(rawProductId);
  const fd = formOf(form);
  const productIds = fd.getAll("product_ids").filter((v): v is string => typeof v === "string");
  const outcome = await runOperation("setBundleItems", { params: { id }, body: { product_ids: productIds, prorate: fd.get("prorate") === "on" } });
  const page = `/dashboard/products/${encodeURIComponent(id)}`;
  revalidatePath(page);
  if (outcome.ok) redirect(`${page}?bundle=saved#bundle`);
  const problem = outcome.problem;
  // An unknown item is worded in the section; the bundle itself not being the seller's is the 404 page.
  if (problem.code !== "bundle_item_not_found") sellerRefusal(problem);
  const code = problem.code in BUNDLE_NOTICES ? problem.code : "failed";
  const item = (problem.extra.members as Record<string, unknown> | undefined)?.product_id;
  redirect(`${page}?bundle=${code}${typeof item === "string" ? `&bundle_item=${encodeURIComponent(item)}` : ""}#bundle`);
}
