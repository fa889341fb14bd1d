import { LICENSE_CODES, type LicenseCode } from "./codes.ts";
import type { LicenseState } from "./license-state.ts";

const DAY = 86_400_000;

/** What a license's standing depends on; the rest of LicenseState (machines, buyer) does not enter into it. */
export type StandingFacts = Pick<LicenseState, "pluginId" | "isActive" | "trial" | "expiresAt"> &
  Partial<Pick<LicenseState, "revocation" | "billing">>;

/** The code of an inactive license, from why it is inactive: a refund, an open dispute and an upgrade have their own. */
function inactiveCode(revocation: string | null | undefined): LicenseCode {
  if (revocation === "refunded") return "REFUNDED";
  if (revocation === "disputed") return "SUSPENDED";
  if (revocation === "upgraded") return "UPGRADED";
  if (revocation === "transferred") return "TRANSFERRED";
  return "REVOKED";
}

/** The standing of a license for a product, before any machine is considered. */
export function licenseStanding(state: StandingFacts | null, pluginId: string, now: number): LicenseCode {
  if (!state) return "NOT_FOUND";
  if (state.pluginId !== pluginId) return "PRODUCT_MISMATCH";
  if (!state.isActive) return inactiveCode(state.revocation);
  if (state.expiresAt !== null && state.expiresAt <= now) {
    // A subscription whose renewal is unpaid, past its grace: apps can tell the buyer to fix the payment.
    return state.trial ? "TRIAL_EXPIRED" : state.billing === "past_due" ? "SUBSCRIPTION_PAST_DUE" : "EXPIRED";
  }
  return "VALID";
}

export function trialDaysRemaining(state: Pick<LicenseState, "trial" | "expiresAt">, now: number): number {
  if (!state.trial || state.expiresAt === null) return 0;
  return Math.max(0, Math.ceil((state.expiresAt - now) / DAY));
}

export function detailOf(code: LicenseCode): string {
  return LICENSE_CODES[code];
}

/** True when the answer may reveal facts of the license (dates, trial); unknown and other products' keys reveal nothing. */
export function discloses(code: LicenseCode): boolean {
  return code !== "NOT_FOUND" && code !== "PRODUCT_MISMATCH";
}
