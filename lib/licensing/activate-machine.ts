import { getDb } from "../db.ts";
import type { LicenseFacts } from "../seller-webhooks/payloads.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { activateDirectly } from "./direct-activation.ts";
import { detailOf, licenseStanding } from "./evaluate.ts";
import { licenseChanged, machineDetail } from "./license-change.ts";
import { APP_ACTOR, type Actor } from "./license-events.ts";
import { licenseCache, loadLicenseForMachine, type LicenseState, type LoadedLicense, type MachineState } from "./license-state.ts";
import { recordValidation } from "./validation-log.ts";
import type { ActivateRequest, ActivationResult } from "./schemas.ts";
import type { LicenseCode } from "./codes.ts";

function result(
  req: ActivateRequest,
  code: LicenseCode,
  state: Pick<LicenseState, "maxMachines"> | null,
  activatedAt: number | null,
  active: number | null,
): ActivationResult {
  const open = state !== null && code !== "NOT_FOUND" && code !== "PRODUCT_MISMATCH";
  return {
    activated: code === "ACTIVATED" || code === "ALREADY_ACTIVATED",
    machine_fingerprint: req.machine_fingerprint,
    activated_at: activatedAt === null ? null : new Date(activatedAt).toISOString(),
    code,
    detail: detailOf(code),
    max_machines: open ? state.maxMachines : null,
    active_machines: open ? active : null,
  };
}

const isUniqueViolation = (e: unknown) => (e as { code?: string } | null)?.code === "P2002";

/** The license as webhooks and events describe it, from the state activation loaded (no extra query). */
function factsOf(l: LoadedLicense, activeMachines: number): LicenseFacts {
  return {
    id: l.id,
    key: l.key,
    productId: l.productId,
    buyerEmail: l.buyerEmail,
    isActive: l.isActive,
    revocation: l.revocation ?? null,
    maxMachines: l.maxMachines,
    activeMachines,
    source: l.source,
    orderId: l.orderId,
    issuedAt: l.issuedAt,
    expiresAt: l.expiresAt,
    product: { pluginId: l.pluginId, developerId: l.developerId },
  };
}

/** What the app reports about the machine, as stored on the activation (absent fields: not reported). */
function reported(req: ActivateRequest) {
  return {
    ...(req.machine_name !== undefined ? { machineName: req.machine_name } : {}),
    ...(req.platform !== undefined ? { platform: req.platform } : {}),
    ...(req.app_version !== undefined ? { appVersion: req.app_version } : {}),
  };
}

/**
 * A machine activated before comes back: its reported details are kept up to date, written only when one changed
 * (a new app version, say); otherwise "last seen" goes through the buffered validation log like a validation.
 */
async function refreshMachine(req: ActivateRequest, machine: MachineState, now: number): Promise<void> {
  const details = reported(req);
  const changed = Object.fromEntries(Object.entries(details).filter(([k, v]) => machine[k as keyof typeof details] !== v));
  if (Object.keys(changed).length === 0) {
    recordValidation(machine.id, now);
    return;
  }
  // updateMany: a machine released in the meantime is simply not there any more.
  await getDb().activation.updateMany({ where: { id: machine.id }, data: { ...changed, lastValidatedAt: new Date(now) } });
}

/**
 * Binds a license to a machine fingerprint for the license's own product. Re-activating a machine is idempotent
 * and takes no seat. The seat is taken by one conditional update (`active < max`) in the same transaction as the
 * activation row, so concurrent requests can never exceed max_machines; the unique (license, fingerprint) pair
 * makes a race of the same machine resolve to one activation.
 */
export async function activateMachine(req: ActivateRequest, now = Date.now(), actor: Actor = APP_ACTOR): Promise<ActivationResult> {
  const db = getDb();
  const cache = licenseCache();
  // The common case as the database's own statements (direct-activation.ts); anything else continues here.
  const direct = await activateDirectly(req, now, actor);
  if (direct?.kind === "activated") {
    cache.invalidate(direct.licenseKey);
    return result(req, "ACTIVATED", direct, direct.activatedAt, direct.active);
  }
  if (direct) return result(req, direct.code, direct.state, null, direct.state?.machineCount ?? null);
  const state = await loadLicenseForMachine(req.license_key, req.machine_fingerprint);
  const standing = licenseStanding(state, req.plugin_id, now);
  if (standing !== "VALID" || !state) return result(req, standing, state, null, state?.machineCount ?? null);
  const license = state;
  const existing = license.machines.get(req.machine_fingerprint);
  if (existing) {
    await refreshMachine(req, existing, now);
    return result(req, "ALREADY_ACTIVATED", license, existing.activatedAt, license.machineCount);
  }
  const details = reported(req);

  try {
    const outcome = await db.$transaction(async (tx) => {
      const [seat] = await tx.license.updateManyAndReturn({
        where: { id: license.id, isActive: true, activeMachines: { lt: tx.license.fields.maxMachines } },
        data: { activeMachines: { increment: 1 } },
        select: { activeMachines: true },
      });
      if (!seat) return null;
      const at = new Date(now);
      const activation = await tx.activation.create({
        data: { licenseId: license.id, fingerprint: req.machine_fingerprint, activatedAt: at, lastValidatedAt: at, ...details },
        select: { id: true, activatedAt: true },
      });
      // The log and the seller's webhook in this transaction: a race lost (no seat, or the same machine twice)
      // records nothing.
      const machine = { fingerprint: req.machine_fingerprint, ...details };
      const queued = await licenseChanged(tx, factsOf(license, seat.activeMachines), "activated", actor, {
        detail: machineDetail({ ...machine, id: activation.id }),
        webhook: "license.activated",
        machine,
        at,
      });
      return { activatedAt: activation.activatedAt.getTime(), active: seat.activeMachines, queued };
    });
    cache.invalidate(license.key);
    if (outcome?.queued) kickWebhooks();
    if (outcome) return result(req, "ACTIVATED", license, outcome.activatedAt, outcome.active);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // The same machine was activated by a concurrent request: that activation stands, and this one is a repeat.
  }
  cache.invalidate(license.key);
  const fresh = await loadLicenseForMachine(req.license_key, req.machine_fingerprint);
  const now2 = Date.now();
  const again = licenseStanding(fresh, req.plugin_id, now2);
  if (again !== "VALID" || !fresh) return result(req, again, fresh, null, fresh?.machineCount ?? null);
  const mine = fresh.machines.get(req.machine_fingerprint);
  if (mine) return result(req, "ALREADY_ACTIVATED", fresh, mine.activatedAt, fresh.machineCount);
  return result(req, "TOO_MANY_MACHINES", fresh, null, fresh.machineCount);
}
