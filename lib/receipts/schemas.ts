import { z } from "zod";
import { licenseKeySchema } from "../licensing/schemas.ts";

export const RECEIPT_VERSION = 1;

export const receiptSchema = z.object({
  version: z.int(),
  issuer: z.string().describe("did:web identity of the issuing service"),
  license_key: z.string(),
  product_id: z.string(),
  product_name: z.string(),
  buyer_email: z.string(),
  max_machines: z.int(),
  is_active: z.boolean(),
  issued_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable().describe("null for a perpetual license"),
  checked_at: z.iso.datetime(),
  purchase: z
    .object({
      order_id: z.string(),
      currency: z.string().describe("ISO 4217, lower case"),
      quantity: z.int(),
      subtotal_cents: z.int().describe("List price × quantity, in minor units of `currency`"),
      discount_cents: z.int(),
      coupon_code: z.string().nullable(),
      amount_cents: z.int().describe("What was paid for the product: subtotal − discount, before tax"),
      tax_cents: z.int().nullable().describe("Tax charged on top; null when it was not calculated"),
      total_cents: z.int().describe("amount_cents + tax_cents"),
      total_display: z.string().describe('The total with its currency code, e.g. "€45.00 EUR"'),
    })
    .optional()
    .describe("What was paid, for a license bought through a checkout (signed with the rest); absent for trials and gifts"),
});
export type Receipt = z.infer<typeof receiptSchema>;

export const signedReceiptSchema = z.object({
  receipt: receiptSchema,
  signature: z.string().describe("HMAC-SHA256 (hex) over the RFC 8785 canonical JSON of `receipt`"),
  verify_url: z.url(),
  verify_method: z.literal("POST"),
});

export const receiptQuerySchema = z.object({ key: licenseKeySchema });

export const verifyHmacReceiptSchema = z.object({
  // Any object: the signature covers exactly what was issued, so every field (and no other) must be sent back.
  receipt: z.looseObject({}).describe("The receipt object exactly as issued"),
  signature: z.string().max(256).describe("The signature as issued"),
});
export type VerifyReceiptRequest = z.infer<typeof verifyHmacReceiptSchema>;

const verifyCredentialSchema = z.object({
  credential: z
    .string()
    .max(64 * 1024)
    .describe("A license credential (application/vc+jwt) from GET /api/receipt/credential"),
});

/** POST /api/receipt takes either the HMAC receipt and its signature, or the Verifiable Credential form. */
export const verifyReceiptRequestSchema = z.union([verifyHmacReceiptSchema, verifyCredentialSchema]);

export const receiptVerificationSchema = z.object({
  valid: z.boolean().describe("The signature matches the receipt"),
  still_active: z.boolean().describe("The license is active now (false when the signature is not valid)"),
  receipt_age_seconds: z.int().describe("Seconds since the receipt's checked_at"),
});
export type ReceiptVerification = z.infer<typeof receiptVerificationSchema>;
