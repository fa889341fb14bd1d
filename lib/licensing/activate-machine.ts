import { getDb } from "../db.ts";
import { detailOf, licenseStanding } from "./evaluate.ts";
import { licenseCache, loadLicenseForMachine, type LicenseState } from "./license-state.ts";
import type { ActivateRequest, ActivationResult } from "./schemas.ts";
import type { LicenseCode } from "./codes.ts";

function result(
  req: ActivateRequest,
  code: LicenseCode,
  state: LicenseState | null,
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

/**
 * Binds a license to a machine fingerprint for the license's own product. Re-activating a machine is idempotent
 * and takes no seat. The seat is taken by one conditional update (`active < max`) in the same transaction as the
 * activation row, so concurrent requests can never exceed max_machines; the unique (license, fingerprint) pair
 * makes a race of the same machine resolve to one activation.
 */
export async function activateMachine(req: ActivateRequest, now = Date.now()): Promise<ActivationResult> {
  const db = getDb();
  const cache = licenseCache();
  const state = await loadLicenseForMachine(req.license_key, req.machine_fingerprint);
  const standing = licenseStanding(state, req.plugin_id, now);
  if (standing !== "VALID" || !state) return result(req, standing, state, null, state?.machineCount ?? null);
  const license = state;
  const existing = license.machines.get(req.machine_fingerprint);
  if (existing) return result(req, "ALREADY_ACTIVATED", license, existing.activatedAt, license.machineCount);

  try {
    const outcome = await db.$transaction(async (tx) => {
      const [seat] = await tx.license.updateManyAndReturn({
        where: { id: license.id, isActive: true, activeMachines: { lt: tx.license.fields.maxMachines } },
        data: { activeMachines: { increment: 1 } },
        select: { activeMachines: true },
      });
      if (!seat) return null;
      const activation = await tx.activation.create({
        data: { licenseId: license.id, fingerprint: req.machine_fingerprint, activatedAt: new Date(now) },
        select: { activatedAt: true },
      });
      const after = seat;
      return { activatedAt: activation.activatedAt.getTime(), active: after.activeMachines };
    });
    cache.invalidate(license.key);
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
