import { getDb } from "../db.ts";
import { activateMachine } from "../licensing/activate-machine.ts";
import { LICENSE_CODES } from "../licensing/codes.ts";
import type { Actor } from "../licensing/license-events.ts";
import type { ActivationResult } from "../licensing/schemas.ts";
import type { TokenResult } from "./schemas.ts";

/** The part of a device request binding needs. */
export interface BindableRequest {
  id: string;
  machineFingerprint: string;
  machineName: string | null;
  platform: string | null;
  appVersion: string | null;
  product: { pluginId: string };
}

/**
 * Activates the license on the request's machine exactly as POST /activate does (the same function, so seats, the
 * event log and the seller's webhook behave the same), with what the app reported about the machine. Activating a
 * machine twice takes one seat, so a retry after a crash between this and the request's completion is harmless.
 */
export async function activateForRequest(req: BindableRequest, licenseKey: string, actor: Actor, now = Date.now()): Promise<ActivationResult> {
  return activateMachine(
    {
      license_key: licenseKey,
      machine_fingerprint: req.machineFingerprint,
      plugin_id: req.product.pluginId,
      ...(req.machineName !== null ? { machine_name: req.machineName } : {}),
      ...(req.platform !== null ? { platform: req.platform } : {}),
      ...(req.appVersion !== null ? { app_version: req.appVersion } : {}),
    },
    now,
    actor,
  );
}

/** approved → completed, once: a second caller (a racing poll, the approving page) finds nothing to change. */
export async function completeRequest(id: string, now: Date): Promise<void> {
  await getDb().deviceAuthorization.updateMany({ where: { id, status: "approved" }, data: { status: "completed", completedAt: now } });
}

/**
 * The answer of a completed request, read back from the license and the machine's activation, so every poll until
 * the request expires answers the same (a lost answer can be fetched again): ACTIVATED when this request's approval
 * took the seat, ALREADY_ACTIVATED when the machine held it before.
 */
export async function completedAnswer(req: BindableRequest & { licenseId: string | null; approvedAt: Date | null }): Promise<TokenResult | null> {
  if (!req.licenseId) return null;
  const db = getDb();
  const license = await db.license.findUnique({
    where: { id: req.licenseId },
    select: { key: true, maxMachines: true, activeMachines: true, expiresAt: true },
  });
  if (!license) return null;
  const activation = await db.activation.findUnique({
    where: { licenseId_fingerprint: { licenseId: req.licenseId, fingerprint: req.machineFingerprint } },
    select: { activatedAt: true },
  });
  const code = !activation ? "NOT_ACTIVATED" : req.approvedAt && activation.activatedAt >= req.approvedAt ? "ACTIVATED" : "ALREADY_ACTIVATED";
  return {
    license_key: license.key,
    plugin_id: req.product.pluginId,
    activated: activation !== null,
    machine_fingerprint: req.machineFingerprint,
    activated_at: activation ? activation.activatedAt.toISOString() : null,
    code,
    detail: LICENSE_CODES[code],
    max_machines: license.maxMachines,
    active_machines: license.activeMachines,
    expires_at: license.expiresAt ? license.expiresAt.toISOString() : null,
  };
}
