import { AppError, notFound } from "../http/errors.ts";
import { closeOrderNow } from "../checkout/close-order.ts";
import { createCheckout } from "../checkout/create-checkout.ts";
import { getDb } from "../db.ts";
import { LICENSE_CODES } from "../licensing/codes.ts";
import { activateForRequest, completeRequest } from "./bind.ts";
import { formatUserCode } from "./codes.ts";
import { pendingRequest, refuseUnlessPending } from "./read-request.ts";

/** Why a conditional update found nothing to change: the request as it is now, refused in its own words. */
async function refuseAsItIsNow(id: string, now: Date): Promise<never> {
  const row = await getDb().deviceAuthorization.findUniqueOrThrow({ where: { id }, select: { status: true, expiresAt: true } });
  refuseUnlessPending(row, now);
  // Still pending: it changed and changed back under us; the buyer can simply try again.
  throw new AppError("device_request_busy", 409, "This request changed while you were approving it. Please try again.");
}

/**
 * The signed-in buyer approves the app's request with a license they hold of the request's product: the request is
 * claimed (pending → approved, conditionally, so a second approval or a denial at the same moment cannot both win),
 * the license is activated on the machine exactly as /activate does, and the request completes. A license that
 * cannot take the machine (no free seat, revoked, expired) gives the request back (approved → pending) and answers
 * 409 with the licensing code, so the buyer can release a machine or pick another license.
 */
export async function approveWithLicense(
  input: { user_code: string; license_id: string },
  buyerEmail: string,
  now = new Date(),
): Promise<{ user_code: string; license_key: string; activated: true; code: string }> {
  const db = getDb();
  const req = await pendingRequest(input.user_code, now);
  const email = buyerEmail.toLowerCase();
  // Another buyer's license, or one of another product, is not found, whichever it is.
  const license = await db.license.findFirst({
    where: { id: input.license_id, buyerEmail: email, productId: req.productId },
    select: { id: true, key: true },
  });
  if (!license) throw notFound("license", "You hold no license of this product with that id.");

  const claimed = await db.deviceAuthorization.updateMany({
    where: { id: req.id, status: "pending", expiresAt: { gt: now } },
    data: { status: "approved", licenseId: license.id, buyerEmail: email, approvedAt: now },
  });
  if (claimed.count === 0) await refuseAsItIsNow(req.id, now);

  const result = await activateForRequest(req, license.key, { type: "buyer", name: email }, now.getTime());
  if (!result.activated) {
    await db.deviceAuthorization.updateMany({
      where: { id: req.id, status: "approved", licenseId: license.id },
      data: { status: "pending", licenseId: null, buyerEmail: null, approvedAt: null },
    });
    throw new AppError("activation_refused", 409, `This license cannot be activated on the machine (${result.code}): ${LICENSE_CODES[result.code]}`, {
      members: { activation_code: result.code },
    });
  }
  await completeRequest(req.id, now);
  return { user_code: formatUserCode(req.userCode), license_key: license.key, activated: true, code: result.code };
}

/**
 * The buyer pays for a new license for the app: the product's usual checkout (createCheckout: price, coupon rules,
 * provider, payout) for the e-mail given, and its order recorded on the request. The checkout knows nothing of the
 * device; when the app next polls after the order is paid, the poll finds the order's license and binds it. A request
 * that stopped being pending meanwhile closes the fresh checkout again, so nothing is left open for it.
 */
export async function startDeviceCheckout(
  input: { user_code: string; buyer_email: string },
  now = new Date(),
): Promise<{ url: string; session_id: string; user_code: string }> {
  const req = await pendingRequest(input.user_code, now);
  const session = await createCheckout({ product_id: req.productId, buyer_email: input.buyer_email });
  const recorded = await getDb().deviceAuthorization.updateMany({
    where: { id: req.id, status: "pending", expiresAt: { gt: now } },
    data: { orderId: session.session_id },
  });
  if (recorded.count === 0) {
    await closeOrderNow(session.session_id, "cancelled");
    await refuseAsItIsNow(req.id, now);
  }
  return { ...session, user_code: formatUserCode(req.userCode) };
}

/** The person at the verification page says no: the app's next poll is access_denied. Denying twice changes nothing. */
export async function denyDevice(userCode: string, now = new Date()): Promise<{ user_code: string; status: "denied" }> {
  const db = getDb();
  const row = await db.deviceAuthorization.findUnique({ where: { userCode }, select: { id: true, status: true, expiresAt: true } });
  if (row?.status === "denied") return { user_code: formatUserCode(userCode), status: "denied" };
  const req = await pendingRequest(userCode, now);
  const denied = await db.deviceAuthorization.updateMany({
    where: { id: req.id, status: "pending", expiresAt: { gt: now } },
    data: { status: "denied" },
  });
  if (denied.count === 0) await refuseAsItIsNow(req.id, now);
  return { user_code: formatUserCode(userCode), status: "denied" };
}
