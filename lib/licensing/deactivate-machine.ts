import { getDb } from "../db.ts";
import { detailOf } from "./evaluate.ts";
import { licenseCache } from "./license-state.ts";
import type { DeactivateRequest, DeactivationResult } from "./schemas.ts";

/**
 * Releases a machine and frees its seat at once. Works on revoked and expired licenses too, so a buyer can always
 * tidy up; releasing a machine that is not activated changes nothing.
 */
export async function deactivateMachine(req: DeactivateRequest): Promise<DeactivationResult> {
  const db = getDb();
  const license = await db.license.findUnique({ where: { key: req.license_key }, select: { id: true, key: true } });
  if (!license) return { deactivated: false, code: "NOT_FOUND", detail: detailOf("NOT_FOUND"), active_machines: null };
  const active = await db.$transaction(async (tx) => {
    const removed = await tx.activation.deleteMany({ where: { licenseId: license.id, fingerprint: req.machine_fingerprint } });
    if (removed.count === 0) return null;
    const after = await tx.license.update({
      where: { id: license.id },
      data: { activeMachines: { decrement: removed.count } },
      select: { activeMachines: true },
    });
    return after.activeMachines;
  });
  licenseCache().invalidate(license.key);
  if (active === null) {
    const count = await db.activation.count({ where: { licenseId: license.id } });
    return { deactivated: false, code: "NOT_ACTIVATED", detail: detailOf("NOT_ACTIVATED"), active_machines: count };
  }
  return { deactivated: true, code: "DEACTIVATED", detail: detailOf("DEACTIVATED"), active_machines: active };
}
