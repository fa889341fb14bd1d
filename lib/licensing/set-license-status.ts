import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { licenseCache } from "./license-state.ts";

/**
 * Revokes or reinstates a license. A revoked license fails every later validation and activation, and receipt
 * checks report it inactive; its machines stay listed so the seller can see where it was used.
 */
export async function setLicenseStatus(input: { licenseId: string; active: boolean; reason?: string }) {
  const db = getDb();
  const found = await db.license.findUnique({ where: { id: input.licenseId }, select: { key: true } });
  if (!found) throw notFound("license");
  const updated = await db.license.update({
    where: { id: input.licenseId },
    data: input.active
      ? { isActive: true, revokedAt: null, revokedReason: null }
      : { isActive: false, revokedAt: new Date(), revokedReason: input.reason ?? null },
    select: { id: true, key: true, isActive: true, revokedAt: true, revokedReason: true },
  });
  licenseCache().invalidate(found.key);
  return updated;
}
