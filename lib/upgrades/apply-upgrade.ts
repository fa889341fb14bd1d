import type { Db } from "../db.ts";
import { licenseChanged } from "../licensing/license-change.ts";
import type { Actor } from "../licensing/license-events.ts";
import { LICENSE_FACTS } from "../seller-webhooks/payloads.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * Whether an upgrade's payment may stand, checked in the payment's transaction before anything is issued: two
 * checkouts of upgrades from one license can both be opened before either is paid, and only the first payment may
 * turn into a license; the second is refused (and refunded by the caller, as any refused sale). The source license's
 * row is written first, so on PostgreSQL a second payment racing this one waits for it and then sees it paid (each
 * statement of a read-committed transaction reads what committed before it); SQLite runs one writer at a time.
 */
export async function upgradeSaleRefusal(tx: Tx, order: { id: string; upgradeFromLicenseId: string }): Promise<"upgrade_source_unavailable" | null> {
  const sourceId = order.upgradeFromLicenseId;
  const locked = await tx.license.updateMany({ where: { id: sourceId }, data: { updatedAt: new Date() } });
  if (locked.count === 0) return "upgrade_source_unavailable";
  const source = await tx.license.findUniqueOrThrow({ where: { id: sourceId }, select: { isActive: true } });
  if (!source.isActive) return "upgrade_source_unavailable";
  const others = await tx.order.findMany({
    where: { upgradeFromLicenseId: sourceId, status: "paid", id: { not: order.id } },
    select: { amountCents: true, taxCents: true, refundedCents: true, license: { select: { id: true } } },
  });
  // Another paid upgrade stands (not refunded in full, and it issued its license).
  const standing = others.some((o) => o.license !== null && o.refundedCents < o.amountCents + (o.taxCents ?? 0));
  return standing ? "upgrade_source_unavailable" : null;
}

/**
 * An upgrade's order has been paid and its new license issued, in the payment's transaction: the source license is
 * retired when the offer says so (revocation "upgraded", so /validate answers UPGRADED; its machines are released,
 * their seats now belong to the new license; the seller hears license.revoked), and both licenses' logs tell it
 * (`upgraded_to` on the source naming the new license and the order, `upgraded_from` on the new one). The retirement
 * is one conditional update: a source that stopped being active meanwhile (refunded, revoked) stays as it is.
 * Returns the retired license's key, for the caller to drop from the license cache once the transaction has
 * committed, and how many webhook deliveries were queued.
 */
export async function completeUpgrade(
  tx: Tx,
  order: { id: string; upgradeOfferId: string | null; upgradeFromLicenseId: string },
  newLicenseId: string,
  paidAt: Date,
  actor: Actor,
): Promise<{ retiredKey: string | null }> {
  const sourceId = order.upgradeFromLicenseId;
  // The offer as it stands when the money arrives; an offer deleted since keeps the source (nothing says to retire it).
  const offer = order.upgradeOfferId
    ? await tx.upgradeOffer.findUnique({ where: { id: order.upgradeOfferId }, select: { retireSource: true, toProduct: { select: { name: true } } } })
    : null;
  let retired = false;
  let released = 0;
  if (offer?.retireSource) {
    const reason = `Upgraded to ${offer.toProduct.name}`;
    const n = await tx.license.updateMany({
      where: { id: sourceId, isActive: true },
      data: { isActive: false, revokedAt: paidAt, revokedReason: reason, revocation: "upgraded" },
    });
    retired = n.count > 0;
    if (retired) {
      released = (await tx.activation.deleteMany({ where: { licenseId: sourceId } })).count;
      await tx.license.update({ where: { id: sourceId }, data: { activeMachines: 0 } });
    }
  }
  const source = await tx.license.findUniqueOrThrow({ where: { id: sourceId }, select: LICENSE_FACTS });
  await licenseChanged(tx, source, "upgraded_to", actor, {
    detail: { license_id: newLicenseId, order_id: order.id, retired, machines_released: released },
    ...(retired ? { webhook: "license.revoked" as const, extra: { reason: "upgraded" } } : {}),
    at: paidAt,
  });
  const issued = await tx.license.findUniqueOrThrow({ where: { id: newLicenseId }, select: LICENSE_FACTS });
  await licenseChanged(tx, issued, "upgraded_from", actor, {
    detail: { license_id: sourceId, order_id: order.id, source_retired: retired },
    at: paidAt,
  });
  return { retiredKey: retired ? source.key : null };
}

/**
 * A full refund of an upgrade's order, in the refund's transaction, after the new license was ended as any refund
 * ends one: the source license the upgrade retired works again (its "upgraded" revocation lifted, conditionally, so a
 * second settlement changes nothing; the seller hears license.reinstated), and its log says so (`upgrade_refunded`,
 * also when the upgrade had kept it). Its machines were released at the upgrade: the apps activate again. Returns
 * whether the source was reinstated. A reinstated license needs nothing dropped from the license cache: the cache
 * only answers "valid" from memory.
 */
export async function undoUpgrade(tx: Tx, orderId: string, now: Date, actor: Actor): Promise<boolean> {
  const order = await tx.order.findUnique({ where: { id: orderId }, select: { upgradeFromLicenseId: true, license: { select: { id: true } } } });
  const sourceId = order?.upgradeFromLicenseId;
  if (!sourceId) return false;
  // Two checkouts of upgrades from one license, both paid (each opened before the other was paid): the source comes
  // back only when no other paid upgrade from it still stands.
  const others = await tx.order.findMany({
    where: { upgradeFromLicenseId: sourceId, status: "paid", id: { not: orderId } },
    select: { amountCents: true, taxCents: true, refundedCents: true },
  });
  const standing = others.some((o) => o.refundedCents < o.amountCents + (o.taxCents ?? 0));
  const n = standing
    ? { count: 0 }
    : await tx.license.updateMany({
        where: { id: sourceId, revocation: "upgraded" },
        data: { isActive: true, revokedAt: null, revokedReason: null, revocation: null },
      });
  const source = await tx.license.findUnique({ where: { id: sourceId }, select: LICENSE_FACTS });
  if (!source) return false;
  await licenseChanged(tx, source, "upgrade_refunded", actor, {
    detail: { order_id: orderId, license_id: order.license?.id ?? null, reinstated: n.count > 0 },
    ...(n.count > 0 ? { webhook: "license.reinstated" as const } : {}),
    at: now,
  });
  return n.count > 0;
}
