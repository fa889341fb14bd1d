import { getDb } from "../db.ts";

/** An included product as the store shows it. */
export interface BundleContent {
  id: string;
  name: string;
  maxMachines: number;
}

/**
 * The included products of the bundles among these products, in their order, for the store's listings and pages:
 * one query for a whole page, and none when the page holds no bundle.
 */
export async function bundleContents(products: ReadonlyArray<{ id: string; isBundle: boolean }>): Promise<Map<string, BundleContent[]>> {
  const ids = products.filter((p) => p.isBundle).map((p) => p.id);
  const out = new Map<string, BundleContent[]>();
  if (ids.length === 0) return out;
  const rows = await getDb().bundleItem.findMany({
    where: { bundleId: { in: ids } },
    orderBy: [{ bundleId: "asc" }, { position: "asc" }, { id: "asc" }],
    select: { bundleId: true, product: { select: { id: true, name: true, maxMachines: true } } },
  });
  for (const r of rows) {
    const list = out.get(r.bundleId) ?? [];
    list.push(r.product);
    out.set(r.bundleId, list);
  }
  return out;
}
