import { getDb } from "../db.ts";
import { LICENSE_CODES } from "../licensing/codes.ts";
import { activateForRequest, completeRequest, completedAnswer, type BindableRequest } from "./bind.ts";
import { hashDeviceCode } from "./codes.ts";
import { grantError } from "./errors.ts";
import type { TokenResult } from "./schemas.ts";

/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval, for that poll and all later ones. */
const SLOW_DOWN_STEP_SECONDS = 5;

const SELECT = {
  id: true,
  status: true,
  interval: true,
  lastPolledAt: true,
  expiresAt: true,
  approvedAt: true,
  licenseId: true,
  orderId: true,
  machineFingerprint: true,
  machineName: true,
  platform: true,
  appVersion: true,
  product: { select: { pluginId: true } },
} as const;

/**
 * A poll that came before `lastPolledAt + interval` is answered slow_down and raises the interval by 5 s. Both steps
 * are conditional updates on the values this poll read, so two polls racing each other raise it once, not twice.
 */
async function pace(req: { id: string; interval: number }, now: Date): Promise<void> {
  const db = getDb();
  const earliest = new Date(now.getTime() - req.interval * 1000);
  const paced = await db.deviceAuthorization.updateMany({
    where: { id: req.id, interval: req.interval, OR: [{ lastPolledAt: null }, { lastPolledAt: { lte: earliest } }] },
    data: { lastPolledAt: now },
  });
  if (paced.count > 0) return;
  const [raised] = await db.deviceAuthorization.updateManyAndReturn({
    where: { id: req.id, interval: req.interval },
    data: { interval: { increment: SLOW_DOWN_STEP_SECONDS }, slowDowns: { increment: 1 }, lastPolledAt: now },
    select: { interval: true },
  });
  // Raised by a racing poll instead: answer with the interval it set.
  const interval =
    raised?.interval ?? (await db.deviceAuthorization.findUniqueOrThrow({ where: { id: req.id }, select: { interval: true } })).interval;
  throw grantError("slow_down", `Polled faster than every ${req.interval} seconds: wait ${interval} seconds between polls from now on.`, {
    interval,
  });
}

/**
 * The app's poll (RFC 8628 §3.4): the license bound to its machine once the buyer approved it (with a license they
 * hold, or by paying for a new one), else an OAuth error name. A checkout opened from the verification page is
 * looked up here: once its order is paid and its license issued, that license is claimed for the request (pending
 * → approved, conditionally) and activated on the machine, so the checkout itself knows nothing of devices. The
 * activation happens once; later polls read the same answer back until the request expires.
 */
export async function pollDeviceToken(deviceCode: string, now = new Date()): Promise<TokenResult> {
  const db = getDb();
  const req = await db.deviceAuthorization.findUnique({ where: { deviceCodeHash: hashDeviceCode(deviceCode) }, select: SELECT });
  if (!req) throw grantError("invalid_grant", "No device request has this device_code. Start again with POST /api/v1/device/authorize.");
  if (req.expiresAt <= now) {
    await db.deviceAuthorization.updateMany({ where: { id: req.id, status: { in: ["pending", "approved"] } }, data: { status: "expired" } });
    throw grantError("expired_token", "The request expired before it was completed. Start again with POST /api/v1/device/authorize.");
  }
  await pace(req, now);

  if (req.status === "denied") throw grantError("access_denied", "The buyer denied this request.");
  if (req.status === "expired") throw grantError("expired_token", "The request expired before it was completed.");
  if (req.status === "completed") {
    const answer = await completedAnswer(req);
    if (answer) return answer;
    throw grantError("invalid_grant", "The license this request delivered no longer exists.");
  }

  let approved = req;
  if (req.status === "pending") {
    const bought = req.orderId ? await db.license.findUnique({ where: { orderId: req.orderId }, select: { id: true, buyerEmail: true } }) : null;
    if (!bought)
      throw grantError("authorization_pending", "The buyer has not finished yet. Poll again after the interval.", { interval: req.interval });
    const [claimed] = await db.deviceAuthorization.updateManyAndReturn({
      where: { id: req.id, status: "pending" },
      data: { status: "approved", licenseId: bought.id, buyerEmail: bought.buyerEmail, approvedAt: now },
      select: SELECT,
    });
    // Someone else moved it first (a racing poll claimed it, or the buyer denied it): answer from what it is now.
    if (!claimed) return pollAgain(deviceCode, now);
    approved = claimed;
  }
  return finish(approved, now);
}

/** The request as a racing caller left it, answered without pacing (this poll was already counted). */
async function pollAgain(deviceCode: string, now: Date): Promise<TokenResult> {
  const db = getDb();
  const req = await db.deviceAuthorization.findUniqueOrThrow({ where: { deviceCodeHash: hashDeviceCode(deviceCode) }, select: SELECT });
  if (req.status === "denied") throw grantError("access_denied", "The buyer denied this request.");
  if (req.status === "approved") return finish(req, now);
  const answer = req.status === "completed" ? await completedAnswer(req) : null;
  if (answer) return answer;
  throw grantError("authorization_pending", "The buyer has not finished yet. Poll again after the interval.", { interval: req.interval });
}

/** approved → the license activated on the machine → completed. A license that can no longer be activated ends it. */
async function finish(req: BindableRequest & { id: string; licenseId: string | null; approvedAt: Date | null }, now: Date): Promise<TokenResult> {
  const db = getDb();
  const license = req.licenseId ? await db.license.findUnique({ where: { id: req.licenseId }, select: { key: true, buyerEmail: true } }) : null;
  if (!license) throw grantError("invalid_grant", "The license chosen for this request no longer exists.");
  const result = await activateForRequest(req, license.key, { type: "buyer", name: license.buyerEmail }, now.getTime());
  if (!result.activated) {
    await db.deviceAuthorization.updateMany({ where: { id: req.id, status: "approved" }, data: { status: "denied" } });
    throw grantError("access_denied", `The license could not be activated on this machine (${result.code}): ${LICENSE_CODES[result.code]}`, {
      activation_code: result.code,
    });
  }
  await completeRequest(req.id, now);
  const answer = await completedAnswer(req);
  if (!answer) throw grantError("invalid_grant", "The license chosen for this request no longer exists.");
  return answer;
}
