import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { LICENSE_FACTS } from "../seller-webhooks/payloads.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { licenseChanged, machineDetail } from "./license-change.ts";
import type { Actor } from "./license-events.ts";
import { licenseCache } from "./license-state.ts";

/** How long a released machine can be put back ("Undo"). */
export const UNDO_WINDOW_MS = 60_000;

const isUniqueViolation = (e: unknown) => (e as { code?: string } | null)?.code === "P2002";
const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

export interface RestoredMachine {
  /** False when the machine was already activated again (a repeated undo): nothing changed. */
  restored: boolean;
  activationId: string;
  fingerprint: string;
  activeMachines: number;
}

/**
 * The undo of a release: within UNDO_WINDOW_MS of the machine's latest "released" (or "deactivated") event, puts it
 * back as the event recorded it (same activation id, activation time, name, platform and version) if a seat is free.
 * The seat is taken by the same conditional update as an activation, so an undo never exceeds max_machines even
 * when a new machine took the seat meanwhile (409 no_free_seat); after the window, 409 undo_expired. A revoked
 * license gets its machine back too: the release was the mistake being undone, not the revocation. Repeating an
 * undo changes nothing.
 */
export async function restoreMachine(licenseId: string, activationFingerprint: string, actor: Actor, now = Date.now()): Promise<RestoredMachine> {
  const db = getDb();
  const fingerprint = activationFingerprint.trim().toLowerCase();
  const license = await db.license.findUnique({ where: { id: licenseId }, select: LICENSE_FACTS });
  if (!license) throw notFound("license");
  const current = () => db.activation.findUnique({ where: { licenseId_fingerprint: { licenseId, fingerprint } }, select: { id: true } });
  const already = await current();
  if (already) return { restored: false, activationId: already.id, fingerprint, activeMachines: license.activeMachines };

  const recent = await db.licenseEvent.findMany({
    where: { licenseId, type: { in: ["released", "deactivated"] }, createdAt: { gte: new Date(now - UNDO_WINDOW_MS), lte: new Date(now) } },
    orderBy: { createdAt: "desc" },
    select: { id: true, detail: true },
  });
  const release = recent.find((e) => (e.detail as Record<string, unknown> | null)?.fingerprint === fingerprint);
  if (!release) {
    throw new AppError(
      "undo_expired",
      409,
      `A released machine can be restored for ${String(UNDO_WINDOW_MS / 1000)} seconds; activate it again from the app instead.`,
    );
  }
  const d = release.detail as Record<string, unknown>;
  const machine = { fingerprint, machineName: text(d.machine_name), platform: text(d.platform), appVersion: text(d.app_version) };
  const activatedAt = text(d.activated_at);

  try {
    const out = await db.$transaction(async (tx) => {
      const [seat] = await tx.license.updateManyAndReturn({
        where: { id: licenseId, activeMachines: { lt: tx.license.fields.maxMachines } },
        data: { activeMachines: { increment: 1 } },
        select: { activeMachines: true, isActive: true, revocation: true },
      });
      if (!seat) throw new AppError("no_free_seat", 409, "Every seat of this license is taken again; release another machine first.");
      const activation = await tx.activation.create({
        data: {
          ...(text(d.activation_id) ? { id: text(d.activation_id) as string } : {}),
          licenseId,
          fingerprint,
          activatedAt: activatedAt ? new Date(activatedAt) : new Date(now),
          machineName: machine.machineName,
          platform: machine.platform,
          appVersion: machine.appVersion,
        },
        select: { id: true, activatedAt: true },
      });
      const queued = await licenseChanged(tx, { ...license, ...seat }, "restored", actor, {
        detail: { ...machineDetail({ ...machine, id: activation.id, activatedAt: activation.activatedAt }), undoes: release.id },
        webhook: "license.activated",
        machine,
        at: new Date(now),
      });
      return { id: activation.id, active: seat.activeMachines, queued };
    });
    licenseCache().invalidate(license.key);
    if (out.queued) kickWebhooks();
    return { restored: true, activationId: out.id, fingerprint, activeMachines: out.active };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // A concurrent undo (or the app activating again) put the machine back first: that stands.
    const again = await current();
    if (!again) throw error;
    const fresh = await db.license.findUniqueOrThrow({ where: { id: licenseId }, select: { activeMachines: true } });
    return { restored: false, activationId: again.id, fingerprint, activeMachines: fresh.activeMachines };
  }
}
