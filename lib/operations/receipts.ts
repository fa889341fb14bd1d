import { z } from "zod";
import { CACHE } from "../http/headers.ts";
import { RULES } from "../http/rate-limit.ts";
import { didDocumentSchema } from "../api/doc-schemas.ts";
import { didDocument } from "../identity/did.ts";
import { licenseKeySchema } from "../licensing/schemas.ts";
import { issueReceipt } from "../receipts/issue-receipt.ts";
import {
  receiptQuerySchema,
  receiptSchema,
  receiptVerificationSchema,
  signedReceiptSchema,
  verifyHmacReceiptSchema,
  verifyReceiptRequestSchema,
} from "../receipts/schemas.ts";
import { verifyReceipt } from "../receipts/verify-receipt.ts";
import { issueLicenseCredential, VC_MEDIA_TYPE, verifyLicenseCredential } from "../verifiable/license-credential.ts";
import { statusListCredential } from "../verifiable/status-list.ts";
import { operation } from "./define.ts";

/** Portable proof of a license: HMAC receipts, W3C credentials, the revocation list and the service's identity. */
export const RECEIPTS = [
  operation({
    id: "getReceipt",
    summary: "Issue a signed receipt",
    tag: "Receipts",
    auth: "public",
    http: { method: "GET", path: "/api/receipt" },
    input: { query: receiptQuerySchema },
    output: signedReceiptSchema,
    limits: (q, c) => [
      [RULES.receipt, c.client],
      [RULES.key, q.key],
    ],
    errors: [404, 429],
    handler: (q) => issueReceipt(q.key),
    tools: [
      {
        name: "get_receipt",
        title: "Get a signed receipt",
        layer: 5,
        description:
          "Issue a portable receipt for a license, signed with HMAC-SHA256 over its RFC 8785 canonical form. Anyone can verify it with verify_receipt or POST /api/receipt. It contains the license key and the buyer's e-mail: keep it private (to prove a license to others, use get_license_credential, which carries neither).",
        args: z.object({ license_key: licenseKeySchema }),
        toInput: (a) => ({ key: a.license_key as string }),
        text: (out) => JSON.stringify(out, null, 2),
      },
    ],
  }),
  operation({
    id: "verifyReceipt",
    summary: "Verify a signed receipt",
    description: "No credentials needed. `valid` is the signature check; `still_active` whether the license is active now.",
    tag: "Receipts",
    auth: "public",
    readOnly: true,
    http: { method: "POST", path: "/api/receipt" },
    input: { body: verifyReceiptRequestSchema },
    output: receiptVerificationSchema,
    handler: (b) => ("credential" in b ? verifyLicenseCredential(b.credential) : verifyReceipt(b)),
    tools: [
      {
        name: "verify_receipt",
        title: "Verify a receipt",
        layer: 5,
        description:
          "Verify a receipt's signature and learn whether the license is still active. Pass the receipt object and signature exactly as get_receipt issued them (a receipt without `purchase`, as for trials, is sent without it or with null).",
        // The receipt's own fields, closed: a changed or added field is named, and strict-mode callers can send it.
        args: z.object({
          receipt: receiptSchema.strict().describe("The receipt object exactly as issued"),
          signature: verifyHmacReceiptSchema.shape.signature,
        }),
        text: (r) =>
          r.valid
            ? `Valid signature; the license is ${r.still_active ? "still active" : "no longer active"}.`
            : "The signature does not match this receipt.",
      },
    ],
  }),
  operation({
    id: "getLicenseCredential",
    summary: "The receipt as a W3C Verifiable Credential (vc+jwt)",
    description:
      'VC Data Model 2.0 secured with JOSE (EdDSA, `kid` naming the DID verification method), with a Bitstring Status List entry for revocation. Meant for sharing: it names the license by `licenseId` and carries the key and the holder\'s e-mail only as salted SHA-256 digests (`licenseKeyDigest`, `holder.emailDigest` over `digestSalt + "|" + value`). POST it to /api/receipt as `{credential}` to verify.',
    tag: "Receipts",
    auth: "public",
    http: { method: "GET", path: "/api/receipt/credential", contentType: VC_MEDIA_TYPE },
    input: { query: receiptQuerySchema },
    output: z.string(),
    limits: (q, c) => [
      [RULES.receipt, c.client],
      [RULES.key, q.key],
    ],
    errors: [404, 429],
    handler: (q) => issueLicenseCredential(q.key),
    tools: [
      {
        name: "get_license_credential",
        title: "Get the license as a shareable credential",
        layer: 5,
        description:
          "The license as a W3C Verifiable Credential (vc+jwt, signed with the service's did:web Ed25519 key), meant for sharing: it names the license by id and carries the key and the buyer's e-mail only as salted digests. The answer is the credential (a compact JWT). Anyone can check it, revocation included, with POST /api/receipt {credential} or any VC verifier.",
        args: z.object({ license_key: licenseKeySchema }),
        toInput: (a) => ({ key: a.license_key as string }),
        text: (jwt) => jwt,
      },
    ],
  }),
  operation({
    id: "getRevocationStatusList",
    summary: "Revocation status list (Bitstring Status List credential, vc+jwt)",
    tag: "Receipts",
    auth: "public",
    // Short cache: revocations show up within a minute for everyone checking the list.
    http: { method: "GET", path: "/api/status/revocation", contentType: VC_MEDIA_TYPE, cache: "public, max-age=60" },
    output: z.string(),
    handler: () => statusListCredential(),
  }),
  operation({
    id: "getDidDocument",
    summary: "DID document",
    description: "The service's did:web identity with its Ed25519 verification method.",
    tag: "Receipts",
    auth: "public",
    http: { method: "GET", path: "/.well-known/did.json", cache: CACHE.document, contentType: "application/did+json" },
    output: didDocumentSchema,
    handler: () => didDocument(),
  }),
];
