import type { Db } from "../db.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * The license event log: every change to a license, with who made it and when, written in the transaction of the
 * change itself (so the log and the license never disagree). Validation failures are aggregated per license, code and
 * hour (lib/licensing/validation-log.ts buffers them), not written per request.
 */
export const LICENSE_EVENT_TYPES = [
  "issued",
  "activated",
  "deactivated",
  "released",
  "restored",
  "revoked",
  "reinstated",
  "refunded",
  "disputed",
  "dispute_won",
  "dispute_lost",
  "renewed",
  "payment_failed",
  "recovered",
  "canceled",
  "resumed",
  "plan_changed",
  "expired",
  "upgraded_to",
  "upgraded_from",
  "upgrade_refunded",
  "transferred",
  "validation_failed",
] as const;
export type LicenseEventType = (typeof LICENSE_EVENT_TYPES)[number];

/** Who caused an event: the buyer (My licenses), the seller (dashboard or API token), the operator, the licensed app, the payment provider, the service itself. */
export type ActorType = "buyer" | "seller" | "operator" | "app" | "payment" | "system";

export interface Actor {
  type: ActorType;
  /** An e-mail, "token:<name>", "stripe"; null when the type says it all (the app, the system). */
  name: string | null;
}

export const APP_ACTOR: Actor = { type: "app", name: null };

/** Writes one event of a license, inside the transaction that made the change. */
export async function recordLicenseEvent(
  tx: Tx,
  licenseId: string,
  type: Exclude<LicenseEventType, "validation_failed">,
  actor: Actor,
  detail: Record<string, unknown> = {},
  at = new Date(),
): Promise<void> {
  await tx.licenseEvent.create({
    // The cast is needed by tsc (a JSON column's input type), though typed lint reads the receiver more loosely.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    data: { licenseId, type, actorType: actor.type, actor: actor.name, detail: detail as object, createdAt: at, lastAt: at },
  });
}
