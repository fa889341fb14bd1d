/**
 * Reason codes of licensing results, in the spirit of Keygen's validation codes. Each result carries one, with a
 * human `detail`. Codes are stable: apps branch on them.
 */
export const LICENSE_CODES = {
  VALID: "The license is valid for this product and machine.",
  NOT_FOUND: "No license matches this key.",
  PRODUCT_MISMATCH: "No license matches this key for this product.",
  REVOKED: "The license has been revoked (by the seller, or because a payment dispute was lost).",
  REFUNDED: "The purchase was refunded, so the license is no longer valid.",
  SUSPENDED: "A payment dispute is open for this purchase; the license is suspended until it is resolved.",
  UPGRADED: "The license was upgraded to another product or edition; use the new license's key.",
  TRANSFERRED: "The license was transferred to another holder and has a new key; this key no longer works.",
  EXPIRED: "The license has expired.",
  SUBSCRIPTION_PAST_DUE:
    "The subscription's renewal payment failed and its grace period is over; the license works again once the payment goes through.",
  TRIAL_EXPIRED: "The trial period has ended; buy a license to keep using the software.",
  NO_MACHINE: "The license is not activated on any machine; activate it on this one first.",
  FINGERPRINT_SCOPE_MISMATCH: "The license is not activated on this machine; activate it here first.",
  ACTIVATED: "The license is now activated on this machine.",
  ALREADY_ACTIVATED: "The license was already activated on this machine; no extra seat was taken.",
  TOO_MANY_MACHINES: "The license is activated on as many machines as it allows; release one first.",
  DEACTIVATED: "The machine was released and its seat is free again.",
  NOT_ACTIVATED: "The license is not activated on this machine, so there was nothing to release.",
} as const;

export type LicenseCode = keyof typeof LICENSE_CODES;
