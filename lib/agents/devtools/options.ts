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

/** Days an app keeps running on its last good validation while the license server cannot be reached. */
export const OFFLINE_GRACE_DAYS = 7;

export function isIntegrationLanguage(value: unknown): value is IntegrationLanguage {
  return typeof value === "string" && (INTEGRATION_LANGUAGES as readonly string[]).includes(value);
}
export function isLicensingTopic(value: unknown): value is LicensingTopic {
  return typeof value === "string" && (LICENSING_TOPICS as readonly string[]).includes(value);
}
export function isServerTarget(value: unknown): value is ServerTarget {
  return typeof value === "string" && (SERVER_TARGETS as readonly string[]).includes(value);
}
