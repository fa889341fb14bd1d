import { getDb } from "../db.ts";
import { LICENSE_FACTS } from "../seller-webhooks/payloads.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { detailOf } from "./evaluate.ts";
import { licenseChanged, machineDetail } from "./license-change.ts";
import { APP_ACTOR, type Actor } from "./license-events.ts";
import { licenseCache } from "./license-state.ts";
import type { DeactivateRequest, DeactivationResult } from "./schemas.ts";

/**
 * Releases a machine and frees its seat at once. Works on revoked and expired licenses too, so a buyer can always
 * tidy up; releasing a machine that is not activated changes nothing. The app releasing its own machine is logged
 * as "deactivated"; the buyer (My licenses) or the seller releasing one as "released", which can be undone for a
 * short while (restore-machine.ts): the event keeps what is needed to put the machine back as it was.
 */
export async function deactivateMachine(req: DeactivateRequest, actor: Actor = APP_ACTOR): Promise<DeactivationResult> {
  const db = getDb();
  const license = await db.license.findUnique({ where: { key: req.license_key }, select: LICENSE_FACTS });
  if (!license) return { deactivated: false, code: "NOT_FOUND", detail: detailOf("NOT_FOUND"), active_machines: null };
  const done = await db.$transaction(async (tx) => {
    const machine = await tx.activation.findUnique({
      where: { licenseId_fingerprint: { licenseId: license.id, fingerprint: req.machine_fingerprint } },
    });
    if (!machine) return null;
    // By id and counted: of two racing releases of one machine, only the one that deleted it frees the seat.
    const removed = await tx.activation.deleteMany({ where: { id: machine.id } });
    if (removed.count === 0) return null;
    const after = await tx.license.update({
      where: { id: license.id },
      data: { activeMachines: { decrement: removed.count } },
      select: { activeMachines: true },
    });
    const queued = await licenseChanged(
      tx,
      { ...license, activeMachines: after.activeMachines },
      actor.type === "app" ? "deactivated" : "released",
      actor,
      {
        detail: machineDetail(machine),
        webhook: "license.deactivated",
        machine,
      },
    );
    return { active: after.activeMachines, queued };
  });
  licenseCache().invalidate(license.key);
  if (done === null) {
    const count = await db.activation.count({ where: { licenseId: license.id } });
    return { deactivated: false, code: "NOT_ACTIVATED", detail: detailOf("NOT_ACTIVATED"), active_machines: count };
  }
  if (done.queued) kickWebhooks();
  return { deactivated: true, code: "DEACTIVATED", detail: detailOf("DEACTIVATED"), active_machines: done.active };
}
