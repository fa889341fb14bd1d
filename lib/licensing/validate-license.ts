import { detailOf, discloses, licenseStanding, trialDaysRemaining } from "./evaluate.ts";
import { licenseCache, loadLicenseState, type LicenseState } from "./license-state.ts";
import type { ValidateRequest, ValidationResult } from "./schemas.ts";
import { recordValidation, recordValidationFailure } from "./validation-log.ts";
import type { LicenseCode } from "./codes.ts";

/**
 * The answer of a valid perpetual license on its machine (most launches of most apps), the same for every such key:
 * made once and frozen, so its JSON is made once too (lib/transports/rest.ts: successBody).
 */
const VALID_PERPETUAL: ValidationResult = Object.freeze({
  valid: true,
  expires_at: null,
  machine_bound: true,
  trial: false,
  trial_days_remaining: 0,
  code: "VALID",
  detail: detailOf("VALID"),
});

function answer(state: LicenseState | null, req: ValidateRequest, now: number): { result: ValidationResult; activationId?: string } {
  let code: LicenseCode = licenseStanding(state, req.plugin_id, now);
  const machine = state?.machines.get(req.machine_fingerprint);
  if (code === "VALID" && !machine) code = !state || state.machines.size === 0 ? "NO_MACHINE" : "FINGERPRINT_SCOPE_MISMATCH";
  if (code === "VALID" && machine && state && state.expiresAt === null && !state.trial) return { result: VALID_PERPETUAL, activationId: machine.id };
  const open = state !== null && discloses(code);
  return {
    result: {
      valid: code === "VALID",
      expires_at: open && state.expiresAt !== null ? new Date(state.expiresAt).toISOString() : null,
      machine_bound: open && machine !== undefined,
      trial: open && state.trial,
      trial_days_remaining: open ? trialDaysRemaining(state, now) : 0,
      code,
      detail: detailOf(code),
    },
    activationId: code === "VALID" ? machine?.id : undefined,
  };
}

/**
 * Checks a key for a product on a machine: existence, product, revocation, expiry and trial, and whether this
 * machine is activated. The hot path of every licensed app's launch: a valid answer comes from the cache when it
 * can; every other answer is confirmed against the database. A known license's failures are counted in memory for
 * its event log (validation-log.ts), never written on the request's time.
 */
export function validateLicense(req: ValidateRequest, now = Date.now()): ValidationResult | Promise<ValidationResult> {
  const cached = licenseCache().get(req.license_key, now);
  if (cached) {
    const out = answer(cached, req, now);
    if (out.result.valid && out.activationId !== undefined) {
      recordValidation(out.activationId, now);
      // Answered at once, not as a promise: no turn of the event loop's microtask queue for the commonest answer.
      return out.result;
    }
  }
  return validateAgainstDatabase(req, now);
}

async function validateAgainstDatabase(req: ValidateRequest, now: number): Promise<ValidationResult> {
  const cache = licenseCache();
  const state = await loadLicenseState(req.license_key);
  if (state) cache.set(state);
  else cache.invalidate(req.license_key);
  const out = answer(state, req, now);
  if (out.activationId) recordValidation(out.activationId, now);
  // A failure of a known license goes to its event log (counted per hour); unknown keys are not anyone's to log.
  else if (state && !out.result.valid) recordValidationFailure(state.id, out.result.code, now);
  return out.result;
}
