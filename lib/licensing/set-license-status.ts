import type { Db } from "../db.ts";
import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { licenseCache } from "./license-state.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** Why a license is not active (License.revocation). */
export type Revocation = "seller" | "refunded" | "disputed" | "dispute_lost";

/** Revocations that follow the money (a refund or a card dispute): only the payment side may lift them. */
const PAYMENT_REVOCATIONS: readonly Revocation[] = ["refunded", "disputed", "dispute_lost"];

/**
 * Revokes or reinstates a license. A revoked license fails every later validation and activation, and receipt
 * checks report it inactive; its machines stay listed so the seller can see where it was used.
 *
 * A license revoked because the buyer got the money back (refunded, dispute lost) or suspended by an open dispute
 * cannot be reinstated here: that would hand out a paid license for free without anyone deciding to. A seller who
 * wants the buyer to keep using it sends a complimentary license instead.
 */
export async function setLicenseStatus(input: { licenseId: string; active: boolean; reason?: string }) {
  const db = getDb();
  const found = await db.license.findUnique({ where: { id: input.licenseId }, select: { key: true, revocation: true } });
  if (!found) throw notFound("license");
  const paymentRevoked = found.revocation !== null && (PAYMENT_REVOCATIONS as readonly string[]).includes(found.revocation);
  if (input.active && paymentRevoked) {
    throw new AppError(
      "license_revoked_by_payment",
      409,
      found.revocation === "disputed"
        ? "This license is suspended while a payment dispute is open; it is reinstated if the dispute is won."
        : "This license ended because the payment went back to the buyer (a refund or a lost dispute); send a complimentary license instead.",
    );
  }
  const select = { id: true, key: true, isActive: true, revokedAt: true, revokedReason: true, revocation: true } as const;
  // Revoking one the payment side already ended keeps its cause (a later reinstatement by the payment side must
  // still see it was not the seller's decision), and only records the seller's reason.
  const updated = await db.license.update({
    where: { id: input.licenseId },
    data: input.active
      ? { isActive: true, revokedAt: null, revokedReason: null, revocation: null }
      : paymentRevoked
        ? { revokedReason: input.reason ?? null }
        : { isActive: false, revokedAt: new Date(), revokedReason: input.reason ?? null, revocation: "seller" },
    select,
  });
  licenseCache().invalidate(found.key);
  return updated;
}

/**
 * The payment side's change to an order's license, inside the caller's transaction: `to` (a revocation, or null to
 * reinstate) applies only while the license's current revocation is one of `from` (null meaning active), so a
 * dispute won never reinstates a refunded or seller-revoked license. Returns the key when something changed; the
 * caller invalidates the license cache after its transaction commits.
 */
export async function changeOrderLicense(
  tx: Tx,
  orderId: string,
  to: Exclude<Revocation, "seller"> | null,
  from: ReadonlyArray<Revocation | null>,
  reason: string | null,
  now = new Date(),
): Promise<string | null> {
  const license = await tx.license.findUnique({ where: { orderId }, select: { id: true, key: true, revocation: true } });
  if (!license || !from.includes((license.revocation as Revocation | null) ?? null)) return null;
  const named = from.filter((r): r is Revocation => r !== null);
  const n = await tx.license.updateMany({
    where: {
      id: license.id,
      OR: [...(from.includes(null) ? [{ revocation: null }] : []), ...(named.length ? [{ revocation: { in: [...named] } }] : [])],
    },
    data:
      to === null
        ? { isActive: true, revokedAt: null, revokedReason: null, revocation: null }
        : { isActive: false, revokedAt: now, revokedReason: reason, revocation: to },
  });
  return n.count > 0 ? license.key : null;
}
