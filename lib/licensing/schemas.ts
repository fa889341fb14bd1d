import { z } from "zod";
import { LICENSE_CODES } from "./codes.ts";
import { normalizeKey } from "./keys.ts";

/**
 * What a key may be sent as: four groups of four letters or digits, any case, surrounding spaces ignored (people paste
 * keys from e-mails). The published pattern is the one enforced, so OpenAPI, /api/tools and MCP say it exactly;
 * lookups use the upper-cased form (keys.ts: normalizeKey).
 */
const LICENSE_KEY_INPUT = /^[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}$/;

export const licenseKeySchema = z
  .string()
  .trim()
  .regex(LICENSE_KEY_INPUT, "must be a license key in the format XXXX-XXXX-XXXX-XXXX")
  // Upper-cased in place (a check that rewrites the value, not a transform and a second schema piped after it: this
  // runs on every licensing call); what comes out always matches keys.ts's LICENSE_KEY_PATTERN.
  .overwrite(normalizeKey)
  .describe("License key: four groups of four letters or digits, XXXX-XXXX-XXXX-XXXX (case-insensitive)");

export const machineFingerprintSchema = z
  .string()
  .trim()
  .regex(/^[0-9a-fA-F]{64}$/, "must be a SHA-256 hex digest (64 hexadecimal characters) of the CPU brand and OS identifier")
  .overwrite((s) => s.toLowerCase())
  .describe("SHA-256 hex digest of the CPU brand plus an operating-system identifier");

export const pluginIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "must be the product's plugin_id (letters, digits, dots, hyphens, underscores)")
  .describe("The product's plugin_id, as listed in the catalog");

export const validateRequestSchema = z.object({
  license_key: licenseKeySchema,
  machine_fingerprint: machineFingerprintSchema,
  plugin_id: pluginIdSchema,
});
export type ValidateRequest = z.infer<typeof validateRequestSchema>;

/**
 * Free text an app reports about its machine (its name, platform, its own version). Bounded on what was sent, so an
 * oversized value is refused rather than cut; tabs and line breaks become spaces (other control characters never get
 * here: the framework refuses them), runs of whitespace become one space, and a blank value counts as not sent.
 */
function machineText(max: number, description: string) {
  return z
    .string()
    .max(max)
    .transform((s) => s.replace(/\s+/g, " ").trim() || undefined)
    .optional()
    .describe(description);
}

/** Activation takes validation's body and, optionally, what the app says about the machine (shown to buyer and seller). */
export const activateRequestSchema = validateRequestSchema.extend({
  machine_name: machineText(100, 'Optional: the machine\'s name as its owner knows it ("Studio Mac"), at most 100 characters'),
  platform: machineText(64, 'Optional: the operating system and architecture ("macOS 15.1 arm64", "windows-x64"), at most 64 characters'),
  app_version: machineText(64, "Optional: the version of the app activating, at most 64 characters"),
});
export type ActivateRequest = z.infer<typeof activateRequestSchema>;

export const deactivateRequestSchema = z.object({
  license_key: licenseKeySchema,
  machine_fingerprint: machineFingerprintSchema,
});
export type DeactivateRequest = z.infer<typeof deactivateRequestSchema>;

const codeSchema = z.enum(Object.keys(LICENSE_CODES) as [keyof typeof LICENSE_CODES, ...(keyof typeof LICENSE_CODES)[]]);
const nullableDate = z.iso.datetime().nullable();

export const validationResultSchema = z.object({
  valid: z.boolean(),
  expires_at: nullableDate.describe("When the license expires; null for a perpetual license or an unknown key"),
  machine_bound: z.boolean().describe("Whether the key is activated on this machine"),
  trial: z.boolean(),
  trial_days_remaining: z.int().describe("Whole days left in a trial; 0 for full licenses"),
  code: codeSchema,
  detail: z.string(),
});
export type ValidationResult = z.infer<typeof validationResultSchema>;

export const activationResultSchema = z.object({
  activated: z.boolean(),
  machine_fingerprint: z.string(),
  activated_at: nullableDate.describe("When this machine was activated; null when activation was refused"),
  code: codeSchema,
  detail: z.string(),
  max_machines: z.int().nullable(),
  active_machines: z.int().nullable(),
});
export type ActivationResult = z.infer<typeof activationResultSchema>;

export const deactivationResultSchema = z.object({
  deactivated: z.boolean(),
  code: codeSchema,
  detail: z.string(),
  active_machines: z.int().nullable(),
});
export type DeactivationResult = z.infer<typeof deactivationResultSchema>;
