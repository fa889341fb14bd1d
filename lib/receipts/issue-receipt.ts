import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { serviceDid } from "../identity/did.ts";
import { orderCharges, type OrderMoney } from "../pricing.ts";
import { absoluteUrl } from "../urls.ts";
import { RECEIPT_VERSION, type Receipt } from "./schemas.ts";
import { signReceipt } from "./sign.ts";

/** Whether a license is usable now: not revoked and not past its expiry. */
export function licenseIsActive(license: { isActive: boolean; expiresAt: Date | null }, now = Date.now()): boolean {
  return license.isActive && (license.expiresAt === null || license.expiresAt.getTime() > now);
}

/** The purchase a receipt records, in minor units of its currency, with the total shown with its code. */
function purchaseOf(order: OrderMoney & { id: string }): NonNullable<Receipt["purchase"]> {
  const charges = orderCharges(order);
  return {
    order_id: order.id,
    currency: order.currency,
    quantity: charges.quantity,
    subtotal_cents: order.subtotalCents > 0 ? order.subtotalCents : order.amountCents + order.discountCents,
    discount_cents: order.discountCents,
    coupon_code: order.couponCode,
    amount_cents: order.amountCents,
    tax_cents: order.taxCents,
    total_cents: order.amountCents + (order.taxCents ?? 0),
    total_display: charges.total,
  };
}

/** A portable, signed record of a license as it stands now. */
export async function issueReceipt(licenseKey: string, now = new Date()) {
  const license = await getDb().license.findUnique({
    where: { key: licenseKey },
    select: {
      key: true,
      buyerEmail: true,
      maxMachines: true,
      isActive: true,
      issuedAt: true,
      expiresAt: true,
      product: { select: { id: true, name: true } },
      order: {
        select: {
          id: true,
          currency: true,
          quantity: true,
          subtotalCents: true,
          discountCents: true,
          couponCode: true,
          amountCents: true,
          taxCents: true,
        },
      },
    },
  });
  if (!license) throw notFound("license", "No license matches this key.");
  const receipt: Receipt = {
    version: RECEIPT_VERSION,
    issuer: serviceDid(),
    license_key: license.key,
    product_id: license.product.id,
    product_name: license.product.name,
    buyer_email: license.buyerEmail,
    max_machines: license.maxMachines,
    is_active: licenseIsActive(license, now.getTime()),
    issued_at: license.issuedAt.toISOString(),
    expires_at: license.expiresAt?.toISOString() ?? null,
    checked_at: now.toISOString(),
    ...(license.order ? { purchase: purchaseOf(license.order) } : {}),
  };
  return {
    receipt,
    signature: await signReceipt(receipt),
    verify_url: absoluteUrl("/api/receipt"),
    verify_method: "POST" as const,
  };
}
