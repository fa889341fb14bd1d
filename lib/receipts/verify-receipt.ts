import { getDb } from "../db.ts";
import { normalizeKey } from "../licensing/keys.ts";
import { licenseIsActive } from "./issue-receipt.ts";
import type { ReceiptVerification, VerifyReceiptRequest } from "./schemas.ts";
import { receiptSignatureValid } from "./sign.ts";

/**
 * Checks a receipt's signature and, when it holds, whether the license is still active now. Anyone may call it:
 * a receipt proves only what it says, and a forged one learns nothing about the license.
 */
export async function verifyReceipt(input: VerifyReceiptRequest, now = Date.now()): Promise<ReceiptVerification> {
  const valid = await receiptSignatureValid(input.receipt, input.signature);
  const checkedAt = typeof input.receipt.checked_at === "string" ? Date.parse(input.receipt.checked_at) : NaN;
  const age = Number.isFinite(checkedAt) ? Math.max(0, Math.floor((now - checkedAt) / 1000)) : 0;
  let stillActive = false;
  if (valid && typeof input.receipt.license_key === "string") {
    const license = await getDb().license.findUnique({
      where: { key: normalizeKey(input.receipt.license_key) },
      select: { isActive: true, expiresAt: true },
    });
    stillActive = license !== null && licenseIsActive(license, now);
  }
  return { valid, still_active: stillActive, receipt_age_seconds: age };
}
