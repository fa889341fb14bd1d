import { createHash, randomBytes, randomUUID } from "node:crypto";
import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { serviceDid } from "../identity/did.ts";
import { licenseIsActive } from "../receipts/issue-receipt.ts";
import type { ReceiptVerification } from "../receipts/schemas.ts";
import { verifyOwnJws } from "./jws.ts";
import { signJws } from "./jws.ts";
import { statusIndexFor, statusListUrl } from "./status-list.ts";

export const VC_MEDIA_TYPE = "application/vc+jwt";

/** base64url(SHA-256(salt "|" value)): what a credential says in place of a key or an address. */
export function credentialDigest(salt: string, value: string): string {
  return createHash("sha256").update(`${salt}|${value}`).digest("base64url");
}

/**
 * A license as a W3C Verifiable Credential (Data Model 2.0) secured with JOSE: a compact JWS, `alg: EdDSA`, `kid`
 * naming the DID verification method, issuer our did:web. Anyone verifies it with the public key in
 * /.well-known/did.json and learns revocation from the status list it references.
 *
 * It is the document a holder shows to others, so it carries neither the license key (whoever has the key has the
 * seats) nor the buyer's address: the license is named by its id, and key and address only as salted SHA-256
 * digests (`credentialDigest(digestSalt, key)`, `credentialDigest(digestSalt, lower-cased e-mail)`), which let someone
 * who is told the key or the address check that it is this license's, and reveal neither otherwise. (The key has
 * ≥ 75 random bits; an address can be confirmed by someone who already guesses it, which is the point of a holder
 * check.) The HMAC receipt of GET /api/receipt keeps the spec's fields, key and address included: it is the holder's
 * own record, not for sharing.
 */
export async function issueLicenseCredential(licenseKey: string, now = new Date()): Promise<string> {
  const license = await getDb().license.findUnique({
    where: { key: licenseKey },
    select: {
      id: true,
      key: true,
      buyerEmail: true,
      maxMachines: true,
      trial: true,
      issuedAt: true,
      expiresAt: true,
      product: { select: { id: true, name: true, pluginId: true } },
    },
  });
  if (!license) throw notFound("license", "No license matches this key.");
  const index = await statusIndexFor(license.id);
  const salt = randomBytes(16).toString("base64url");
  const statusUrl = statusListUrl();
  const did = serviceDid();
  return signJws(
    {
      "@context": ["https://www.w3.org/ns/credentials/v2"],
      id: `urn:uuid:${randomUUID()}`,
      type: ["VerifiableCredential", "SoftwareLicenseCredential"],
      issuer: did,
      validFrom: license.issuedAt.toISOString(),
      ...(license.expiresAt ? { validUntil: license.expiresAt.toISOString() } : {}),
      credentialSubject: {
        type: "SoftwareLicense",
        licenseId: license.id,
        digestSalt: salt,
        licenseKeyDigest: credentialDigest(salt, license.key),
        holder: { emailDigest: credentialDigest(salt, license.buyerEmail.toLowerCase()) },
        product: { id: license.product.id, name: license.product.name, pluginId: license.product.pluginId },
        maxMachines: license.maxMachines,
        trial: license.trial,
      },
      credentialStatus: {
        id: `${statusUrl}#${index}`,
        type: "BitstringStatusListEntry",
        statusPurpose: "revocation",
        statusListIndex: String(index),
        statusListCredential: statusUrl,
      },
      iss: did,
      iat: Math.floor(now.getTime() / 1000),
      ...(license.expiresAt ? { exp: Math.floor(license.expiresAt.getTime() / 1000) } : {}),
    },
    "vc+jwt",
  );
}

/** POST /api/receipt with a credential: the signature (ours, any published key), then whether the license still stands. */
export async function verifyLicenseCredential(jwt: string, now = Date.now()): Promise<ReceiptVerification> {
  const vc = await verifyOwnJws(jwt);
  const valid = vc !== null && vc.issuer === serviceDid() && Array.isArray(vc.type) && vc.type.includes("SoftwareLicenseCredential");
  const iat = typeof vc?.iat === "number" ? vc.iat * 1000 : NaN;
  const age = Number.isFinite(iat) ? Math.max(0, Math.floor((now - iat) / 1000)) : 0;
  let stillActive = false;
  // Credentials name the license by id; those issued before that still carry the key itself.
  const subject = (vc?.credentialSubject ?? {}) as { licenseId?: unknown; licenseKey?: unknown };
  const where =
    typeof subject.licenseId === "string" ? { id: subject.licenseId } : typeof subject.licenseKey === "string" ? { key: subject.licenseKey } : null;
  if (valid && where) {
    const license = await getDb().license.findUnique({ where, select: { isActive: true, expiresAt: true } });
    stillActive = license !== null && licenseIsActive(license, now);
  }
  return { valid, still_active: stillActive, receipt_age_seconds: age };
}
