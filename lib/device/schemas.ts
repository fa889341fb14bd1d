import { z } from "zod";
import { activateRequestSchema, activationResultSchema } from "../licensing/schemas.ts";
import { emailSchema } from "../licensing/trial-schemas.ts";
import { USER_CODE_LENGTH, normalizeUserCode } from "./codes.ts";

/**
 * The user code as a person types it: eight letters, any case, with or without the dash (or a space) in the middle.
 * Letters outside the code's alphabet are not refused here: such a code is simply not found, like any other typo.
 */
const userCodeSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{4}[-\s]?[A-Za-z]{4}$/, "must be the eight-letter code the app shows, like WDJB-MJHT")
  .transform(normalizeUserCode)
  .describe("The code the app shows (e.g. WDJB-MJHT); case-insensitive, the dash optional");

/** What the app sends to start: activation's body without the key (the key is what it will receive). */
export const authorizeRequestSchema = activateRequestSchema.omit({ license_key: true });
export type AuthorizeRequest = z.infer<typeof authorizeRequestSchema>;

export const authorizeResultSchema = z.object({
  device_code: z.string().describe("Secret: the app polls POST /api/v1/device/token with it; never show it"),
  user_code: z
    .string()
    .length(USER_CODE_LENGTH + 1)
    .describe("Show it to the person, who types it at verification_uri"),
  verification_uri: z.url(),
  verification_uri_complete: z.url().describe("verification_uri with the user code filled in: open it in the browser"),
  expires_in: z.int().describe("Seconds until the request expires"),
  interval: z.int().describe("Seconds to wait between polls"),
  product_id: z.string(),
});
export type AuthorizeResult = z.infer<typeof authorizeResultSchema>;

const DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";

export const tokenRequestSchema = z.object({
  device_code: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{20,128}$/, "must be the device_code POST /api/v1/device/authorize returned")
    .describe("The device_code the authorize call returned"),
  grant_type: z.literal(DEVICE_GRANT_TYPE).optional().describe("OAuth's grant type; optional"),
});

/** Success: the key, bound to the machine as POST /activate binds it, with activation's answer. */
export const tokenResultSchema = activationResultSchema.extend({
  license_key: z.string(),
  plugin_id: z.string(),
  expires_at: z.iso.datetime().nullable().describe("When the license expires; null for a perpetual license"),
});
export type TokenResult = z.infer<typeof tokenResultSchema>;

const DEVICE_STATUSES = ["pending", "approved", "denied", "completed", "expired"] as const;

/** What the verification page (and an agent acting for the buyer) sees of a request. */
export const deviceRequestViewSchema = z.object({
  user_code: z.string(),
  status: z.enum(DEVICE_STATUSES).describe("pending until the buyer buys, picks a license or denies; expired past expires_at"),
  expires_at: z.iso.datetime(),
  product: z.object({ id: z.string(), name: z.string(), plugin_id: z.string(), seller: z.string() }),
  machine: z.object({ name: z.string().nullable(), platform: z.string().nullable(), app_version: z.string().nullable() }),
  checkout_started: z.boolean().describe("A checkout was opened for this request; once it is paid, the app receives that license"),
});
export type DeviceRequestView = z.infer<typeof deviceRequestViewSchema>;

export const userCodeBodySchema = z.object({ user_code: userCodeSchema });

export const approveWithLicenseSchema = z.object({
  user_code: userCodeSchema,
  license_id: z.string().trim().min(1).max(64).describe("One of the signed-in buyer's licenses of the request's product"),
});

export const deviceCheckoutSchema = z.object({
  user_code: userCodeSchema,
  buyer_email: emailSchema.describe("Receives the license key and the receipt"),
});

export const deviceCheckoutResultSchema = z.object({
  url: z.url().describe("The hosted checkout: open it to pay"),
  session_id: z.string(),
  user_code: z.string(),
});
