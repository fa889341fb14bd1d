import { downloadPath } from "../marketplace/get-download.ts";
import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { deactivateMachine } from "../licensing/deactivate-machine.ts";
import { licenseIsActive } from "../receipts/issue-receipt.ts";
import { orderCharges } from "../pricing.ts";
import { restoreReleasedMachine } from "../seller-api/licenses.ts";
import { absoluteUrl, paths } from "../urls.ts";

/** Every license bought with (or given to) an e-mail address, with its machines. */
export async function buyerLicenses(email: string) {
  const licenses = await getDb().license.findMany({
    // A key retired by a transfer (lib/transfers) is no license of anyone's any more: the license lives on under its new key.
    where: { buyerEmail: email.toLowerCase(), source: { not: "transferred" } },
    orderBy: { issuedAt: "desc" },
    select: {
      id: true,
      key: true,
      maxMachines: true,
      isActive: true,
      trial: true,
      issuedAt: true,
      expiresAt: true,
      product: { select: { id: true, name: true, iconUrl: true, downloadUrl: true, pluginId: true, developer: { select: { name: true } } } },
      activations: {
        select: { id: true, fingerprint: true, activatedAt: true, lastValidatedAt: true, machineName: true, platform: true, appVersion: true },
        orderBy: { activatedAt: "asc" },
      },
      order: {
        select: {
          currency: true,
          quantity: true,
          subtotalCents: true,
          discountCents: true,
          couponCode: true,
          amountCents: true,
          taxCents: true,
          refundedCents: true,
        },
      },
      // A license a bundle's order issued: the bundle, under whose name My licenses lists its licenses together.
      bundleOrder: { select: { id: true, product: { select: { id: true, name: true } } } },
    },
  });
  return licenses.map(({ order, bundleOrder, ...l }) => ({
    ...l,
    bundle: bundleOrder ? { orderId: bundleOrder.id, productId: bundleOrder.product.id, name: bundleOrder.product.name } : null,
    // What was paid, with its currency code; trials and complimentary licenses have no order.
    charges: order ? orderCharges(order) : null,
    active: licenseIsActive(l),
    product: {
      ...l.product,
      iconUrl: absoluteUrl(l.product.iconUrl),
      // Through our license-gated route, never the seller's raw URL.
      downloadUrl: absoluteUrl(downloadPath(l.product.id, l)),
      pageUrl: absoluteUrl(paths.product(l.product.id)),
    },
    receiptUrl: absoluteUrl(`/api/receipt?key=${l.key}`),
  }));
}

/**
 * A buyer releases one of their own machines (after a reinstall, say); anyone else's is "not found". Logged as
 * "released" by the buyer, undoable for a minute (lib/licensing/restore-machine.ts).
 */
export async function buyerReleaseMachine(email: string, licenseId: string, activationId: string) {
  const license = await getDb().license.findFirst({
    where: { id: licenseId, buyerEmail: email.toLowerCase() },
    select: { key: true, activations: { where: { id: activationId }, select: { fingerprint: true } } },
  });
  const activation = license?.activations[0];
  if (!license || !activation) throw notFound("activation", "You have no such machine on this license.");
  return deactivateMachine({ license_key: license.key, machine_fingerprint: activation.fingerprint }, { type: "buyer", name: email.toLowerCase() });
}

/**
 * The undo of a buyer's release: only a license of theirs (anyone else's is "not found", as for a machine), within the
 * undo window (lib/licensing/restore-machine.ts). Logged as "restored" by the buyer.
 */
export async function buyerRestoreMachine(email: string, licenseId: string, activationId: string): Promise<{ restored: boolean }> {
  const buyer = email.toLowerCase();
  const own = await getDb().license.findFirst({ where: { id: licenseId, buyerEmail: buyer }, select: { id: true } });
  if (!own) throw notFound("license", "You have no such license.");
  return restoreReleasedMachine(own.id, activationId, { type: "buyer", name: buyer });
}
