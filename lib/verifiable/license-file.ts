import { sign } from "node:crypto";
import canonicalize from "canonicalize";
import { z } from "zod";
import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { serviceDid } from "../identity/did.ts";
import { signingKey } from "../identity/service-keys.ts";
import { detailOf, licenseStanding } from "../licensing/evaluate.ts";
import { loadLicenseState } from "../licensing/license-state.ts";
import { licenseKeySchema, machineFingerprintSchema, pluginIdSchema } from "../licensing/schemas.ts";

/**
 * Offline machine license files, format "ilm-license-file/1": a few "name: value" lines between armour lines.
 *
 *   -----BEGIN LICENSE FILE-----
 *   format: ilm-license-file/1
 *   key-id: did:web:licenses.example.com#ed25519-1
 *   payload: <base64url of the RFC 8785 canonical JSON payload>
 *   signature: <base64url of the 64-byte Ed25519 signature over the ASCII bytes "ilm-license-file/1." + payload>
 *   -----END LICENSE FILE-----
 *
 * An app verifies it offline with the public key from /.well-known/did.json (the verification method named by
 * key-id), then checks that the payload's machine fingerprint is its own, and that now is before `expires_at`.
 */
export const LICENSE_FILE_FORMAT = "ilm-license-file/1";
const SIGNING_PREFIX = `${LICENSE_FILE_FORMAT}.`;
const DAY = 86_400_000;

export const licenseFileQuerySchema = z.object({
  key: licenseKeySchema,
  fingerprint: machineFingerprintSchema,
  plugin_id: pluginIdSchema.optional(),
});
export type LicenseFileQuery = z.infer<typeof licenseFileQuerySchema>;

export interface LicenseFilePayload {
  format: typeof LICENSE_FILE_FORMAT;
  issuer: string;
  key_id: string;
  issued_at: string;
  /** The file stops being valid here; the app must fetch a fresh one (online) before. */
  expires_at: string;
  license: {
    key: string;
    product_id: string;
    product_name: string;
    plugin_id: string;
    max_machines: number;
    trial: boolean;
    /** When the license itself ends; null for a perpetual license. */
    expires_at: string | null;
    /**
     * Only for a license that follows a subscription: its standing when the file was issued. The file never reaches
     * past the paid period plus the grace days (its own expires_at), so a cancellation or a failed renewal reaches the
     * app at the latest then.
     */
    subscription?: { status: string };
    /** Only for a license with a paid updates plan: the releases published until then are its own. */
    updates_until?: string;
  };
  machine: { fingerprint: string; activated_at: string };
}

function armour(payloadB64: string, signatureB64: string, keyId: string): string {
  return [
    "-----BEGIN LICENSE FILE-----",
    `format: ${LICENSE_FILE_FORMAT}`,
    `key-id: ${keyId}`,
    `payload: ${payloadB64}`,
    `signature: ${signatureB64}`,
    "-----END LICENSE FILE-----",
    "",
  ].join("\n");
}

/**
 * A signed license file for one activated machine, valid for the product's license-file lifetime (30 days by
 * default) or until the license ends, whichever is first. Only a license that stands, on a machine it is activated
 * on, gets one; revocation takes effect when the file expires or the app next validates online.
 */
export async function issueLicenseFile(q: LicenseFileQuery, now = Date.now()): Promise<{ text: string; payload: LicenseFilePayload }> {
  const state = await loadLicenseState(q.key);
  if (!state) throw notFound("license", "No license matches this key.");
  const code = licenseStanding(state, q.plugin_id ?? state.pluginId, now);
  if (code !== "VALID")
    throw new AppError(
      code === "PRODUCT_MISMATCH" ? "license_not_found" : `license_${code.toLowerCase()}`,
      code === "PRODUCT_MISMATCH" ? 404 : 409,
      detailOf(code),
    );
  const machine = state.machines.get(q.fingerprint);
  if (!machine) throw new AppError("machine_not_activated", 409, "The license is not activated on this machine; call /activate first.");
  const product = await getDb().product.findUniqueOrThrow({ where: { id: state.productId }, select: { licenseFileTtlDays: true } });
  const key = await signingKey();
  const did = serviceDid();
  const keyId = `${did}#${key.id}`;
  const ttlEnd = now + product.licenseFileTtlDays * DAY;
  const payload: LicenseFilePayload = {
    format: LICENSE_FILE_FORMAT,
    issuer: did,
    key_id: keyId,
    issued_at: new Date(now).toISOString(),
    expires_at: new Date(state.expiresAt === null ? ttlEnd : Math.min(ttlEnd, state.expiresAt)).toISOString(),
    license: {
      key: state.key,
      product_id: state.productId,
      product_name: state.productName,
      plugin_id: state.pluginId,
      max_machines: state.maxMachines,
      trial: state.trial,
      expires_at: state.expiresAt === null ? null : new Date(state.expiresAt).toISOString(),
      ...(state.billing ? { subscription: { status: state.billing } } : {}),
      ...(typeof state.updatesUntil === "number" ? { updates_until: new Date(state.updatesUntil).toISOString() } : {}),
    },
    machine: { fingerprint: q.fingerprint, activated_at: new Date(machine.activatedAt).toISOString() },
  };
  const canonical = canonicalize(payload);
  if (canonical === undefined) throw new Error("license file payload has no JSON form");
  const payloadB64 = Buffer.from(canonical, "utf8").toString("base64url");
  const signature = sign(null, Buffer.from(SIGNING_PREFIX + payloadB64, "ascii"), key.privateKey).toString("base64url");
  return { text: armour(payloadB64, signature, keyId), payload };
}
