import type { Db } from "../db.ts";
import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { lockProduct, recomputeRating } from "../reviews/aggregate.ts";
import { LICENSE_FACTS } from "../seller-webhooks/payloads.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { licenseChanged } from "./license-change.ts";
import type { Actor } from "./license-events.ts";
import { licenseCache } from "./license-state.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** A seller acting without a name (the default of callers that predate the event log). */
const SELLER_ACTOR: Actor = { type: "seller", name: null };
/** The payment provider's own doing (a dispute, a refund made in its dashboard). */
const PAYMENT_ACTOR: Actor = { type: "payment", name: null };

/**
 * Why a license is not active (License.revocation); "upgraded": retired by an upgrade (lib/upgrades), which its refund
 * undoes; "transferred": the old key a transfer retired (lib/transfers), the license living on under its new key.
 */
export type Revocation = "seller" | "refunded" | "disputed" | "dispute_lost" | "upgraded" | "transferred";

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
export async function setLicenseStatus(input: { licenseId: string; active: boolean; reason?: string; actor?: Actor }) {
  const db = getDb();
  const actor = input.actor ?? SELLER_ACTOR;
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
  // A license an upgrade retired comes back only by refunding the upgrade (lib/upgrades), never by hand.
  if (input.active && found.revocation === "upgraded") {
    throw new AppError("license_upgraded", 409, "This license was retired by an upgrade; it works again only if the upgrade is refunded.");
  }
  // A key a transfer retired stays retired: reinstated, two people would hold the one license. Revoking it again
  // would only overwrite why it ended. The license itself is the record with the new key.
  if (found.revocation === "transferred") {
    throw new AppError(
      "license_transferred",
      409,
      "This key was retired when its license moved to another holder; the license continues under its new key, which you can revoke or reinstate.",
    );
  }
  const select = { id: true, key: true, isActive: true, revokedAt: true, revokedReason: true, revocation: true } as const;
  const reason = input.reason ?? null;
  const { updated, queued } = await db.$transaction(async (tx) => {
    // The change is conditional on the license's state, so of two racing revocations (or reinstatements) one changes
    // it and is logged and announced; the other only restates the reason, as a repeated request always did.
    const changed = await tx.license.updateMany({
      where: input.active
        ? { id: input.licenseId, isActive: false, OR: [{ revocation: null }, { revocation: "seller" }] }
        : { id: input.licenseId, isActive: true },
      data: input.active
        ? { isActive: true, revokedAt: null, revokedReason: null, revocation: null }
        : { isActive: false, revokedAt: new Date(), revokedReason: reason, revocation: "seller" },
    });
    // Revoking one the payment side already ended keeps its cause (a later reinstatement by the payment side must
    // still see it was not the seller's decision), and only records the seller's reason.
    if (changed.count === 0 && !input.active) await tx.license.update({ where: { id: input.licenseId }, data: { revokedReason: reason } });
    let queued = 0;
    if (changed.count > 0) {
      const facts = await tx.license.findUniqueOrThrow({ where: { id: input.licenseId }, select: LICENSE_FACTS });
      queued = await licenseChanged(tx, facts, input.active ? "reinstated" : "revoked", actor, {
        detail: input.active ? {} : { reason },
        webhook: input.active ? "license.reinstated" : "license.revoked",
        extra: input.active ? {} : { reason },
      });
    }
    return { updated: await tx.license.findUniqueOrThrow({ where: { id: input.licenseId }, select }), queued };
  });
  licenseCache().invalidate(found.key);
  if (queued) kickWebhooks();
  return updated;
}

/** What each payment-side change is in the license's log. */
const PAYMENT_EVENT = { refunded: "refunded", disputed: "disputed", dispute_lost: "dispute_lost" } as const;

/**
 * The payment side's change to an order's license, inside the caller's transaction: `to` (a revocation, or null to
 * reinstate) applies only while the license's current revocation is one of `from` (null meaning active), so a
 * dispute won never reinstates a refunded or seller-revoked license. A change is logged with `actor` (the payment
 * provider, or whoever asked for the refund) and announced to the seller (license.revoked / license.reinstated);
 * the caller kicks the webhook outbox after its commit. Returns the key when something changed; the caller
 * invalidates the license cache after its transaction commits.
 */
/**
 * The license an order's refund or dispute acts on: the one it bought; for a charge of a subscription, the
 * subscription's license, but only while that charge pays its current period (refunding an older month leaves a
 * license that later months paid for alone).
 */
async function orderLicense(tx: Tx, orderId: string) {
  const order = await tx.order.findUnique({
    where: { id: orderId },
    select: { subscriptionId: true, periodEnd: true, subscription: { select: { licenseId: true, currentPeriodEnd: true } } },
  });
  if (order?.subscription) {
    const current = order.periodEnd !== null && order.periodEnd.getTime() === order.subscription.currentPeriodEnd.getTime();
    if (!current || !order.subscription.licenseId) return null;
    return tx.license.findUnique({ where: { id: order.subscription.licenseId }, select: { id: true, key: true, revocation: true } });
  }
  return tx.license.findUnique({ where: { orderId }, select: { id: true, key: true, revocation: true } });
}

export async function changeOrderLicense(
  tx: Tx,
  orderId: string,
  to: Exclude<Revocation, "seller" | "upgraded" | "transferred"> | null,
  from: ReadonlyArray<Revocation | null>,
  reason: string | null,
  now = new Date(),
  actor: Actor = PAYMENT_ACTOR,
): Promise<string | null> {
  const license = await orderLicense(tx, orderId);
  if (!license) return null;
  return (await paymentChange(tx, license, { order_id: orderId }, to, from, reason, now, actor)) ? license.key : null;
}

/**
 * One license's payment-side change (changeOrderLicense, changeBundleLicenses): conditional on its revocation being
 * one of `from`, then logged (with `about`: the order it follows) and announced. Whether it changed.
 */
async function paymentChange(
  tx: Tx,
  license: { id: string; revocation: string | null },
  about: Record<string, string>,
  to: Exclude<Revocation, "seller" | "upgraded" | "transferred"> | null,
  from: ReadonlyArray<Revocation | null>,
  reason: string | null,
  now: Date,
  actor: Actor,
): Promise<boolean> {
  if (!from.includes((license.revocation as Revocation | null) ?? null)) return false;
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
  if (n.count === 0) return false;
  // A review from this license enters or leaves the product's rating with its purchase (refunded, lost, won back).
  const review = await tx.review.findUnique({ where: { licenseId: license.id }, select: { productId: true } });
  if (review) {
    await lockProduct(tx, review.productId);
    await recomputeRating(tx, review.productId);
  }
  const facts = await tx.license.findUniqueOrThrow({ where: { id: license.id }, select: LICENSE_FACTS });
  await licenseChanged(tx, facts, to === null ? "dispute_won" : PAYMENT_EVENT[to], actor, {
    detail: { ...about, ...(reason ? { reason } : {}), ...(license.revocation ? { previous: license.revocation } : {}) },
    webhook: to === null ? "license.reinstated" : "license.revoked",
    extra: reason ? { reason } : {},
    at: now,
  });
  return true;
}

/**
 * The payment side's change to the licenses a bundle's order issued (one per included product, found by
 * `bundleOrderId`), as changeOrderLicense does for an order's own license: each changes only while its revocation is
 * one of `from`, is logged naming the order and announced to the seller. Returns the keys that changed, for the
 * caller to invalidate in the license cache after its commit.
 */
export async function changeBundleLicenses(
  tx: Tx,
  orderId: string,
  to: Exclude<Revocation, "seller" | "upgraded" | "transferred"> | null,
  from: ReadonlyArray<Revocation | null>,
  reason: string | null,
  now = new Date(),
  actor: Actor = PAYMENT_ACTOR,
): Promise<string[]> {
  const licenses = await tx.license.findMany({
    where: { bundleOrderId: orderId },
    select: { id: true, key: true, revocation: true },
    orderBy: { id: "asc" },
  });
  const changed: string[] = [];
  for (const license of licenses) {
    if (await paymentChange(tx, license, { bundle_order_id: orderId }, to, from, reason, now, actor)) changed.push(license.key);
  }
  return changed;
}
