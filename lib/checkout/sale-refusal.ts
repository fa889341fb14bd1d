/** Why a product may not be sold now; each code also names the refund of a payment that arrives for it anyway. */
export type SaleRefusal =
  | "product_removed"
  | "seller_suspended"
  | "product_unlisted"
  /** An upgrade's payment found its source license already upgraded by another paid order, or no longer in force. */
  | "upgrade_source_unavailable";

/**
 * The one rule for "may this product be sold now", or why not: only a listed ("active") product of a seller who is
 * not suspended. Checked when a checkout opens or is priced (buyableProduct: the Buy form, the checkout API, ACP)
 * and again when its payment arrives (fulfilOrder), so a checkout opened before a suspension or a removal never
 * turns into a license.
 */
export function saleRefusal(product: { status: string; developer: { suspendedAt: Date | null } }): SaleRefusal | null {
  if (product.status === "removed") return "product_removed";
  if (product.status === "suspended" || product.developer.suspendedAt !== null) return "seller_suspended";
  if (product.status !== "active") return "product_unlisted";
  return null;
}
