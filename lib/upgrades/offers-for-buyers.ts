import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";
import { resolveUpgrade, upgradeQuote } from "./price-upgrade.ts";
import type { UpgradeQuote } from "./schemas.ts";

/**
 * The upgrades each of a buyer's licenses may buy now, priced for it (My licenses shows them): every active offer
 * from the license's product whose refusals (resolveUpgrade) all pass. A license with none is left out.
 */
export async function upgradesForBuyer(email: string, now = new Date()): Promise<Map<string, UpgradeQuote[]>> {
  const db = getDb();
  const buyerEmail = email.toLowerCase();
  const licenses = await db.license.findMany({
    where: { buyerEmail, isActive: true, trial: false },
    select: { id: true, productId: true },
    take: 500,
  });
  const out = new Map<string, UpgradeQuote[]>();
  if (licenses.length === 0) return out;
  const offers = await db.upgradeOffer.findMany({
    where: { active: true, fromProductId: { in: [...new Set(licenses.map((l) => l.productId))] } },
    select: { id: true, fromProductId: true },
    orderBy: { createdAt: "asc" },
  });
  for (const license of licenses) {
    for (const offer of offers.filter((o) => o.fromProductId === license.productId)) {
      try {
        const quote = upgradeQuote(await resolveUpgrade({ licenseId: license.id, buyerEmail }, { offerId: offer.id }, now));
        out.set(license.id, [...(out.get(license.id) ?? []), quote]);
      } catch (error) {
        // Not buyable for this license (already upgraded, the target unlisted, under the minimum): not shown.
        if (!(error instanceof AppError)) throw error;
      }
    }
  }
  return out;
}

/** A listed product's upgrade paths: the active offers into it, with the product each one upgrades from (its page shows them). */
export async function upgradesInto(productId: string) {
  const offers = await getDb().upgradeOffer.findMany({
    where: { toProductId: productId, active: true, fromProduct: { status: "active" } },
    select: { id: true, pricing: true, priceCents: true, retireSource: true, fromProduct: { select: { id: true, name: true } } },
    orderBy: { createdAt: "asc" },
  });
  return offers.map((o) => ({
    offerId: o.id,
    fromProductId: o.fromProduct.id,
    fromProductName: o.fromProduct.name,
    pricing: o.pricing === "fixed" ? ("fixed" as const) : ("difference" as const),
    priceCents: o.pricing === "fixed" ? o.priceCents : null,
    retireSource: o.retireSource,
  }));
}
