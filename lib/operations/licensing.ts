import { z } from "zod";
import { RULES } from "../http/rate-limit.ts";
import { activateMachine } from "../licensing/activate-machine.ts";
import { checkLicenseStatus, licenseStatusRequestSchema, licenseStatusSchema } from "../licensing/check-license-status.ts";
import { deactivateMachine } from "../licensing/deactivate-machine.ts";
import {
  licenseKeySchema,
  machineFingerprintSchema,
  pluginIdSchema,
  activateRequestSchema,
  activationResultSchema,
  deactivateRequestSchema,
  deactivationResultSchema,
  validateRequestSchema,
  validationResultSchema,
} from "../licensing/schemas.ts";
import { startTrial } from "../licensing/start-trial.ts";
import { startTrialRequestSchema, trialResultSchema } from "../licensing/trial-schemas.ts";
import { validateLicense } from "../licensing/validate-license.ts";
import { issueLicenseFile, licenseFileQuerySchema } from "../verifiable/license-file.ts";
import { operation } from "./define.ts";

const coded = (r: { code: string; detail: string }) => `${r.code}: ${r.detail}`;

/** The calls a licensed app makes at every launch, and what an agent or support tool asks about a license. */
export const LICENSING = [
  operation({
    id: "validateLicense",
    summary: "Validate a license key on a machine",
    description: "Checks key, product, revocation, expiry, trial and whether this machine is activated. `code` gives the reason.",
    tag: "Licensing",
    auth: "public",
    readOnly: true,
    http: { method: "POST", path: "/validate", lean: true },
    input: { body: validateRequestSchema },
    output: validationResultSchema,
    limits: (b, c) => [
      [RULES.validate, c.client],
      [RULES.key, b.license_key],
    ],
    errors: [429],
    handler: (b) => validateLicense(b),
    tools: [
      {
        name: "validate_license",
        title: "Validate a license on a machine",
        layer: 2,
        description:
          "Check that a license key is valid for this product on this machine: existence, product, revocation, expiry, trial, and whether the machine is activated.",
        text: coded,
      },
    ],
  }),
  operation({
    id: "activateLicense",
    summary: "Activate a license on a machine",
    description: "Binds the key to the machine fingerprint; idempotent per machine; refuses past max_machines with TOO_MANY_MACHINES.",
    tag: "Licensing",
    auth: "public",
    idempotencyExempt: "A retry activates the same machine (its fingerprint) again and gets the same answer; no seat is taken twice.",
    http: { method: "POST", path: "/activate", lean: true },
    input: { body: activateRequestSchema },
    output: activationResultSchema,
    limits: (b, c) => [
      [RULES.activation, c.client],
      [RULES.key, b.license_key],
    ],
    errors: [429],
    handler: (b) => activateMachine(b),
    tools: [
      {
        name: "activate_license",
        title: "Activate a license on a machine",
        layer: 2,
        description:
          "Bind a license key to a machine fingerprint (SHA-256 hex of CPU brand + OS identifier) for the product. Re-activating the same machine takes no extra seat; a machine past max_machines is refused with TOO_MANY_MACHINES.",
        text: coded,
      },
    ],
  }),
  operation({
    id: "deactivateLicense",
    summary: "Release a license from a machine",
    tag: "Licensing",
    auth: "public",
    idempotencyExempt: "A retry releases the same machine (its fingerprint): the seat is freed once, the answer is the same.",
    http: { method: "POST", path: "/deactivate", lean: true },
    input: { body: deactivateRequestSchema },
    output: deactivationResultSchema,
    limits: (b, c) => [
      [RULES.activation, c.client],
      [RULES.key, b.license_key],
    ],
    errors: [429],
    handler: (b) => deactivateMachine(b),
    tools: [
      {
        name: "deactivate_license",
        title: "Release a license from a machine",
        layer: 2,
        description: "Release a machine from a license so its seat can be used elsewhere.",
        text: coded,
      },
    ],
  }),
  operation({
    id: "checkLicenseStatus",
    summary: "A license's standing for a product, without a machine",
    tag: "Licensing",
    auth: "public",
    readOnly: true,
    input: { body: licenseStatusRequestSchema },
    output: licenseStatusSchema,
    limits: (b, c) => [
      [RULES.validate, c.client],
      [RULES.key, b.license_key],
    ],
    errors: [429],
    handler: (b) => checkLicenseStatus(b),
    tools: [
      {
        name: "check_license_status",
        title: "Check a license's status",
        layer: 2,
        description:
          "Whether a license key is valid for a product (exists, not revoked, not expired), with trial days left and seats used. No machine is needed.",
        text: coded,
      },
    ],
  }),
  operation({
    id: "startTrial",
    summary: "Start a trial (the key is e-mailed)",
    description:
      "E-mails a time-limited trial key for a product that offers one to `buyer_email`; one trial per mailbox and product (the address is compared lower-cased, with Gmail dots and provider +tags removed). The key is never in the answer, which is the same 202 whether the address is new, already has a trial (its key is re-sent, at most once per 10 minutes) or already bought the product. Addresses under reserved domains (.test, .example, .invalid, .localhost, .local) are refused. Limited per client address per hour (RATE_LIMIT_TRIAL_PER_HOUR).",
    tag: "Licensing",
    auth: "public",
    http: { method: "POST", path: "/api/trials", status: 202 },
    idempotency: "optional",
    input: { body: startTrialRequestSchema },
    output: trialResultSchema,
    limits: (_b, c) => [
      [RULES.checkout, c.client],
      [RULES.trial, c.client],
    ],
    errors: [404, 409, 429],
    // The answer depends on the product only, never on what the address has: no key, no "already licensed".
    handler: async (b) => {
      const { product } = await startTrial({ productId: b.product_id, buyerEmail: b.buyer_email });
      return {
        accepted: true as const,
        product_id: product.id,
        plugin_id: product.pluginId,
        trial: true as const,
        trial_days: product.trialDays,
        message: `If this address can start a trial of ${product.name}, its trial key is on its way to it by e-mail. There is one trial per address and product; asking again re-sends the same key.`,
      };
    },
    tools: [
      {
        name: "start_trial",
        title: "Start a free trial (the key is e-mailed)",
        layer: 2,
        description:
          "Start a time-limited free trial of a product that offers one (trial_available in browse_marketplace): the trial key is e-mailed to buyer_email, never returned here, so the person who owns the address must read it. One trial per address and product; asking again re-sends the same key. The answer is the same whatever the address already has.",
        text: (r) => `${r.message} The trial lasts ${r.trial_days} day(s); the app validates it with plugin_id ${r.plugin_id}.`,
      },
    ],
  }),
  operation({
    id: "getLicenseFile",
    summary: "Signed offline license file for an activated machine",
    description:
      'Format ilm-license-file/1: armoured `format`, `key-id`, `payload` (base64url of canonical JSON) and `signature` (Ed25519 over "ilm-license-file/1." + payload) lines. Verify offline with the key in /.well-known/did.json; valid until the payload\'s `expires_at`.',
    tag: "Licensing",
    auth: "public",
    http: {
      method: "GET",
      path: "/api/license-file",
      contentType: "text/plain; charset=utf-8",
      headers: { "Content-Disposition": 'attachment; filename="license.lic"' },
    },
    input: { query: licenseFileQuerySchema },
    output: z.string(),
    limits: (q, c) => [
      [RULES.receipt, c.client],
      [RULES.key, q.key],
    ],
    errors: [404, 409, 429],
    handler: async (q) => (await issueLicenseFile(q)).text,
    tools: [
      {
        name: "get_license_file",
        title: "Get a signed offline license file",
        layer: 2,
        description:
          "A signed license file (format ilm-license-file/1) for a machine the license is activated on (activate_license first), so the app can check its license offline until the file's expires_at. The answer is the file's text: save it unchanged (e.g. as license.lic). Apps verify its Ed25519 signature with the key in /.well-known/did.json.",
        args: z.object({
          license_key: licenseKeySchema,
          machine_fingerprint: machineFingerprintSchema,
          plugin_id: pluginIdSchema.optional().describe("The product's plugin_id; when given, the file is only issued for that product"),
        }),
        toInput: (a) => ({
          key: a.license_key as string,
          fingerprint: a.machine_fingerprint as string,
          ...(typeof a.plugin_id === "string" ? { plugin_id: a.plugin_id } : {}),
        }),
        text: (file) => file,
      },
    ],
  }),
];
