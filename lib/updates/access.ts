import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";
import { enforce, RULES, type RateRule } from "../http/rate-limit.ts";
import type { LicenseCode } from "../licensing/codes.ts";
import { licenseStanding } from "../licensing/evaluate.ts";
import { loadLicenseForMachine } from "../licensing/license-state.ts";
import { licenseKeySchema, machineFingerprintSchema } from "../licensing/schemas.ts";
import { recordValidation } from "../licensing/validation-log.ts";
import type { UpdatePolicy } from "../releases/entitlement.ts";

/**
 * The license check every app-facing update call makes (the JSON update check, its download, the updater feeds and
 * their artifact links): the key must exist and be for this product, the license must be in force (not revoked,
 * refunded, suspended, expired, trial over) and the machine must be one of its activations. The verdict comes from the
 * licensing rules themselves (lib/licensing/evaluate.ts `licenseStanding`), so an update check never disagrees with
 * /validate about a license. An unknown key and another product's key get the same 404, so nothing is disclosed
 * about keys of other products.
 */

/** What an app-facing call knows once the license passed. */
export interface LicensedMachine {
  license: { id: string; key: string; issuedAt: Date; trial: boolean; expiresAt: Date | null; updatesUntil: Date | null };
  product: { id: string; pluginId: string; name: string; pricingModel: string } & UpdatePolicy;
  activationId: string;
  /** The app version the machine last reported (activation, update check or feed); null when never. */
  appVersion?: string | null;
}

/**
 * An update check or feed fetch counts as the machine's "last seen", as a successful /validate does: the time goes
 * to the same buffered log (lib/licensing/validation-log.ts, flushed every few seconds in one statement, never a
 * write per request). The app version it reports is written only when it differs from the stored one, so a machine
 * that checks every hour writes once per new version.
 */
export async function recordSeen(who: Pick<LicensedMachine, "activationId" | "appVersion">, appVersion?: string | null, now = Date.now()) {
  recordValidation(who.activationId, now);
  if (!appVersion || appVersion === who.appVersion) return;
  await getDb().activation.updateMany({ where: { id: who.activationId }, data: { appVersion } });
}

const PROBLEMS: Record<Exclude<LicenseCode, "VALID">, [string, number, string]> = {
  NOT_FOUND: ["license_not_found", 404, "No license matches this key for this product."],
  PRODUCT_MISMATCH: ["license_not_found", 404, "No license matches this key for this product."],
  REVOKED: ["license_revoked", 403, "The license has been revoked, so it receives no downloads or updates."],
  REFUNDED: ["license_refunded", 403, "The purchase was refunded, so the license receives no downloads or updates."],
  SUSPENDED: ["license_suspended", 403, "A payment dispute is open for this purchase; downloads and updates resume once it is resolved."],
  UPGRADED: ["license_upgraded", 403, "The license was upgraded and retired; the new license receives the downloads and updates."],
  TRANSFERRED: ["license_transferred", 403, "The license was transferred to another holder; its new key receives the downloads and updates."],
  EXPIRED: ["license_expired", 403, "The license has expired, so it receives no downloads or updates."],
  SUBSCRIPTION_PAST_DUE: [
    "subscription_past_due",
    403,
    "The subscription's renewal payment failed and its grace period is over; downloads and updates resume once it is paid.",
  ],
  TRIAL_EXPIRED: ["trial_expired", 403, "The trial period has ended; buy a license to keep receiving updates."],
  NO_MACHINE: ["machine_not_activated", 403, "The license is not activated on this machine; activate it here first (POST /activate)."],
  FINGERPRINT_SCOPE_MISMATCH: [
    "machine_not_activated",
    403,
    "The license is not activated on this machine; activate it here first (POST /activate).",
  ],
  ACTIVATED: ["license_not_found", 404, ""],
  ALREADY_ACTIVATED: ["license_not_found", 404, ""],
  TOO_MANY_MACHINES: ["license_not_found", 404, ""],
  DEACTIVATED: ["license_not_found", 404, ""],
  NOT_ACTIVATED: ["license_not_found", 404, ""],
};

/** The problem for a licensing verdict other than VALID. */
export function licenseProblem(code: Exclude<LicenseCode, "VALID">): AppError {
  const [problem, status, detail] = PROBLEMS[code];
  return new AppError(problem, status, detail || PROBLEMS.NOT_FOUND[2]);
}

const machineNotActivated = () => licenseProblem("FINGERPRINT_SCOPE_MISMATCH");

function headerProblem(name: string, message: string): AppError {
  return new AppError("invalid_header", 400, `Invalid header "${name}": ${message}`, { errors: [{ in: "header", name, message }] });
}

/**
 * The license key an app sent: `X-License-Key: <key>`, or `Authorization: License <key>`. Null when neither is there
 * (the caller decides whether that is an error); a malformed key is a 400 problem naming the header.
 */
function licenseKeyFrom(headers: Headers): string | null {
  const direct = headers.get("x-license-key");
  const auth = headers.get("authorization");
  const raw = direct ?? (auth && /^License\s+/i.test(auth) ? auth.replace(/^License\s+/i, "") : null);
  if (raw === null) return null;
  const parsed = licenseKeySchema.safeParse(raw);
  if (!parsed.success)
    throw headerProblem(direct !== null ? "X-License-Key" : "Authorization", "must be a license key in the format XXXX-XXXX-XXXX-XXXX");
  return parsed.data;
}

/** The key and machine of an app-facing call; both are required. */
export function appCredentials(headers: Headers, query: { fingerprint?: string }): { key: string; fingerprint: string } {
  const key = licenseKeyFrom(headers);
  if (key === null) throw headerProblem("X-License-Key", "is required (the license key; or send Authorization: License <key>)");
  const rawFingerprint = headers.get("x-machine-fingerprint") ?? query.fingerprint;
  if (rawFingerprint === undefined) {
    throw headerProblem("X-Machine-Fingerprint", "is required (the machine fingerprint the license was activated with; or ?fingerprint=)");
  }
  const fp = machineFingerprintSchema.safeParse(rawFingerprint);
  if (!fp.success) throw headerProblem("X-Machine-Fingerprint", "must be a SHA-256 hex digest (64 hexadecimal characters)");
  return { key, fingerprint: fp.data };
}

/** An app's rate limits: the same rules /validate counts (per client address, and per license key). */
export function updateLimits(headers: Headers, client: string): Array<[RateRule, string]> {
  let key: string | null = null;
  try {
    key = licenseKeyFrom(headers);
  } catch {
    key = null; // refused with its own problem once the call runs
  }
  return key
    ? [
        [RULES.validate, client],
        [RULES.key, key],
      ]
    : [[RULES.validate, client]];
}

async function productPolicy(productId: string) {
  return getDb().product.findUniqueOrThrow({
    where: { id: productId },
    select: { id: true, pluginId: true, name: true, updatePolicy: true, updateDays: true, pricingModel: true },
  });
}

/**
 * Checks a key and machine for a product (by plugin_id) and returns what the update calls need; throws the problem
 * (404 license_not_found, 403 license_revoked / license_refunded / license_suspended / license_expired / trial_expired
 * / machine_not_activated) otherwise. Always read from the database: an update check is not the launch hot path,
 * and a refund must stop downloads at once on every instance.
 */
export async function checkLicensedMachine(pluginId: string, key: string, fingerprint: string, now = Date.now()): Promise<LicensedMachine> {
  const state = await loadLicenseForMachine(key, fingerprint);
  const code = licenseStanding(state, pluginId, now);
  if (code !== "VALID" || !state) throw licenseProblem(code === "VALID" ? "NOT_FOUND" : code);
  const machine = state.machines.get(fingerprint);
  if (!machine) throw machineNotActivated();
  const product = await productPolicy(state.productId);
  return {
    license: {
      id: state.id,
      key: state.key,
      issuedAt: new Date(state.issuedAt),
      trial: state.trial,
      expiresAt: state.expiresAt === null ? null : new Date(state.expiresAt),
      updatesUntil: state.updatesUntil == null ? null : new Date(state.updatesUntil),
    },
    product,
    activationId: machine.id,
    appVersion: machine.appVersion ?? null,
  };
}

/**
 * The same check for a feed token's activation (lib/updates/feed-token.ts has verified the token's MAC): the
 * activation must still exist (a deactivated machine's feed URLs stop working), belong to a license of this product,
 * and the license be in force. Counts the call against the license key's rate limit.
 */
export async function checkActivation(pluginId: string, activationId: string, now = Date.now()): Promise<LicensedMachine> {
  const activation = await getDb().activation.findUnique({
    where: { id: activationId },
    select: {
      id: true,
      appVersion: true,
      license: {
        select: {
          id: true,
          key: true,
          isActive: true,
          revocation: true,
          billing: true,
          trial: true,
          issuedAt: true,
          expiresAt: true,
          updatesUntil: true,
          product: { select: { id: true, pluginId: true, name: true, updatePolicy: true, updateDays: true, pricingModel: true } },
        },
      },
    },
  });
  if (!activation) throw machineNotActivated();
  const l = activation.license;
  enforce([[RULES.key, l.key]]);
  const code = licenseStanding(
    {
      pluginId: l.product.pluginId,
      isActive: l.isActive,
      revocation: l.revocation,
      billing: l.billing,
      trial: l.trial,
      expiresAt: l.expiresAt?.getTime() ?? null,
    },
    pluginId,
    now,
  );
  if (code !== "VALID") throw licenseProblem(code);
  return {
    license: { id: l.id, key: l.key, issuedAt: l.issuedAt, trial: l.trial, expiresAt: l.expiresAt, updatesUntil: l.updatesUntil },
    product: l.product,
    activationId: activation.id,
    appVersion: activation.appVersion,
  };
}
