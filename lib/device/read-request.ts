import { getDb } from "../db.ts";
import { formatUserCode } from "./codes.ts";
import { requestCompleted, requestDenied, requestExpired, userCodeNotFound } from "./errors.ts";
import type { DeviceRequestView } from "./schemas.ts";

const SELECT = {
  id: true,
  userCode: true,
  status: true,
  productId: true,
  machineFingerprint: true,
  machineName: true,
  platform: true,
  appVersion: true,
  orderId: true,
  licenseId: true,
  expiresAt: true,
  product: { select: { id: true, name: true, pluginId: true, developer: { select: { name: true } } } },
} as const;

async function byUserCode(userCode: string) {
  const found = await getDb().deviceAuthorization.findUnique({ where: { userCode }, select: SELECT });
  if (!found) throw userCodeNotFound();
  return found;
}
export type DeviceRequestRow = Awaited<ReturnType<typeof byUserCode>>;

/** A request past its expiry reads as expired, whether or not a poll has recorded it yet. */
function statusAt(row: { status: string; expiresAt: Date }, now: Date): DeviceRequestView["status"] {
  if ((row.status === "pending" || row.status === "approved") && row.expiresAt <= now) return "expired";
  return row.status as DeviceRequestView["status"];
}

/** What the verification page shows of a request: the product and the machine the app reported. */
export async function lookupDeviceRequest(userCode: string, now = new Date()): Promise<DeviceRequestView> {
  const row = await byUserCode(userCode);
  return {
    user_code: formatUserCode(row.userCode),
    status: statusAt(row, now),
    expires_at: row.expiresAt.toISOString(),
    product: { id: row.product.id, name: row.product.name, plugin_id: row.product.pluginId, seller: row.product.developer.name },
    machine: { name: row.machineName, platform: row.platform, app_version: row.appVersion },
    checkout_started: row.orderId !== null,
  };
}

/** A request the buyer may still act on (pending), or the refusal that says why not. */
export async function pendingRequest(userCode: string, now = new Date()): Promise<DeviceRequestRow> {
  const row = await byUserCode(userCode);
  refuseUnlessPending(row, now);
  return row;
}

export function refuseUnlessPending(row: { status: string; expiresAt: Date }, now: Date): void {
  const status = statusAt(row, now);
  if (status === "expired") throw requestExpired();
  if (status === "denied") throw requestDenied();
  // An approved request is being activated with the license the buyer picked: as good as complete.
  if (status === "completed" || status === "approved") throw requestCompleted();
}

/** The signed-in buyer's licenses of a product that could take one more machine, for the page's list. */
export async function licensesWithFreeSeats(productId: string, buyerEmail: string) {
  const licenses = await getDb().license.findMany({
    where: { productId, buyerEmail: buyerEmail.toLowerCase(), isActive: true },
    select: { id: true, key: true, maxMachines: true, activeMachines: true, expiresAt: true, issuedAt: true },
    orderBy: { issuedAt: "desc" },
  });
  const now = Date.now();
  return licenses.filter((l) => l.activeMachines < l.maxMachines && (l.expiresAt === null || l.expiresAt.getTime() > now));
}

/** The device request a paid order was opened for, if any: the checkout's success page says the app finishes by itself. */
export async function deviceRequestForOrder(orderId: string) {
  return getDb().deviceAuthorization.findFirst({
    where: { orderId },
    select: { machineName: true, status: true },
  });
}
