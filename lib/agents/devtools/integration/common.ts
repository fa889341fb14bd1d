import { OFFLINE_GRACE_DAYS } from "../options.ts";

/** The checked arguments every language generator receives. */
export interface IntegrationContext {
  /** The product's plugin_id, checked against APP_ID_PATTERN. */
  appId: string;
  /** The licensing server's base URL, checked and without a trailing slash. */
  serverUrl: string;
  /** Whether app_id was given (otherwise appId is a placeholder the developer must replace). */
  appIdGiven: boolean;
}

export interface IntegrationFile {
  /** Where the file goes in the developer's project. */
  path: string;
  /** The fenced block's language tag. */
  lang: string;
  code: string;
}

/** What a language generator returns; integration.ts renders it as Markdown. */
export interface IntegrationDoc {
  title: string;
  /** One line. */
  intro: string;
  /** Setup steps, each a Markdown paragraph (may contain a code block). */
  setup: string[];
  files: IntegrationFile[];
  /** Extra notes after the code. */
  notes?: string[];
}

/** The values every template may use. */
export function templateValues(ctx: IntegrationContext): Record<string, string | number> {
  return { SERVER_URL: ctx.serverUrl, APP_ID: ctx.appId, GRACE_DAYS: OFFLINE_GRACE_DAYS };
}

/** The fingerprint definition, said the same way in every language's notes. */
export const FINGERPRINT_NOTE =
  "The machine fingerprint is the lowercase hex SHA-256 of `<CPU brand>|<OS identifier>` (both trimmed): Linux `/etc/machine-id`, macOS `IOPlatformUUID` from `ioreg -rd1 -c IOPlatformExpertDevice`, Windows `MachineGuid` from `HKLM\\SOFTWARE\\Microsoft\\Cryptography`. Keep the recipe stable: a different fingerprint is a different machine and takes another seat.";

export function commonNotes(ctx: IntegrationContext): string[] {
  const notes = [
    FINGERPRINT_NOTE,
    `Outcomes: \`VALID\` runs (trials show the days left); \`NO_MACHINE\`/\`FINGERPRINT_SCOPE_MISMATCH\` re-activate automatically; \`NOT_FOUND\`/\`PRODUCT_MISMATCH\` ask for the key again; \`EXPIRED\`/\`TRIAL_EXPIRED\` offer renewal or purchase; \`REVOKED\` stops; \`TOO_MANY_MACHINES\` tells the user to release a machine. Network errors, HTTP 5xx and 429 (after honouring a short \`Retry-After\`) fall back to the last good validation for up to ${OFFLINE_GRACE_DAYS} days; other HTTP 4xx answers are RFC 9457 problem documents whose \`detail\` is shown.`,
    `Releasing this machine (\`POST ${ctx.serverUrl}/deactivate\`) frees its seat at once; offer it in your settings or uninstaller. Rate limits: \`/validate\` 600/min and \`/activate\` + \`/deactivate\` 60/min per client address, 120/min per key, so validate once per launch, not in a loop.`,
    "To test the error path, generate a test key (`generate_test_license_key`): it has the right format but always answers `NOT_FOUND`.",
  ];
  if (!ctx.appIdGiven) notes.unshift("Replace `com.example.app` with your product's `plugin_id` from the catalog (`GET /api/catalog`).");
  return notes;
}
