import type { Db } from "../db.ts";
import { emitSellerEvent, type SellerEventType } from "../seller-webhooks/events.ts";
import { actorPayload, licensePayload, machinePayload, type LicenseFacts, type MachineFacts } from "../seller-webhooks/payloads.ts";
import { recordLicenseEvent, type Actor, type LicenseEventType } from "./license-events.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** What an event's detail says about a machine: the fingerprint and what the app reported. */
export function machineDetail(m: MachineFacts & { id?: string; activatedAt?: Date | number }) {
  return {
    fingerprint: m.fingerprint,
    ...(m.id ? { activation_id: m.id } : {}),
    ...(m.activatedAt !== undefined ? { activated_at: new Date(m.activatedAt).toISOString() } : {}),
    machine_name: m.machineName ?? null,
    platform: m.platform ?? null,
    app_version: m.appVersion ?? null,
  };
}

/**
 * One change to a license, told to whoever needs to know, inside the transaction that made it: a row of the
 * license's event log and, when `webhook` names one, the seller's webhook event (`data`: the license as it is after
 * the change, the actor, the machine when one is concerned, and `extra`). Returns how many webhook deliveries were
 * queued: the caller kicks the webhook outbox after its commit when there are any.
 */
export async function licenseChanged(
  tx: Tx,
  license: LicenseFacts,
  type: Exclude<LicenseEventType, "validation_failed">,
  actor: Actor,
  opts: { detail?: Record<string, unknown>; webhook?: SellerEventType; machine?: MachineFacts; extra?: Record<string, unknown>; at?: Date } = {},
): Promise<number> {
  const at = opts.at ?? new Date();
  await recordLicenseEvent(tx, license.id, type, actor, opts.detail ?? {}, at);
  if (!opts.webhook) return 0;
  const data = {
    license: licensePayload(license),
    actor: actorPayload(actor),
    ...(opts.machine ? { machine: machinePayload(opts.machine) } : {}),
    ...opts.extra,
  };
  return emitSellerEvent(tx, license.product.developerId, opts.webhook, data, license.id, at);
}
