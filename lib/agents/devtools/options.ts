/**
 * The argument values the developer tools accept, as `as const` arrays so tool schemas (zod enums, JSON Schema)
 * can import them and stay in step with the implementations.
 */
export const INTEGRATION_LANGUAGES = ["c", "cpp", "rust", "python", "electron", "tauri", "csharp", "juce"] as const;
export type IntegrationLanguage = (typeof INTEGRATION_LANGUAGES)[number];

export const LICENSING_TOPICS = [
  "machine_binding",
  "offline_validation",
  "trial_keys",
  "key_revocation",
  "anti_tamper",
  "server_setup",
  "pricing",
  "comparison",
] as const;
export type LicensingTopic = (typeof LICENSING_TOPICS)[number];

export const SERVER_TARGETS = ["docker", "fly", "railway", "render", "vps"] as const;
export type ServerTarget = (typeof SERVER_TARGETS)[number];

/**
 * Days an app keeps running on its last good validation while the license server cannot be reached, when its
 * LICENSE_PUBLIC_KEYS holds no key (with a key embedded, the signed license file decides instead).
 */
export const OFFLINE_GRACE_DAYS = 7;

/** The signed offline license file's format line (lib/verifiable/license-file.ts). */
export const LICENSE_FILE_FORMAT = "ilm-license-file/1";
/** Where an activated machine fetches its license file: GET ?key=&fingerprint=[&plugin_id=]. */
export const LICENSE_FILE_ENDPOINT = "/api/license-file";
/** A license file's default lifetime (the product's licenseFileTtlDays). */
export const LICENSE_FILE_DEFAULT_DAYS = 30;
/** How far the app's clock may be behind the server's when a license file's issued_at is checked. */
export const LICENSE_FILE_CLOCK_SKEW_SECONDS = 300;

export function isIntegrationLanguage(value: unknown): value is IntegrationLanguage {
  return typeof value === "string" && (INTEGRATION_LANGUAGES as readonly string[]).includes(value);
}
export function isLicensingTopic(value: unknown): value is LicensingTopic {
  return typeof value === "string" && (LICENSING_TOPICS as readonly string[]).includes(value);
}
export function isServerTarget(value: unknown): value is ServerTarget {
  return typeof value === "string" && (SERVER_TARGETS as readonly string[]).includes(value);
}
