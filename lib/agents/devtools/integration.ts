import { absoluteUrl } from "../../urls.ts";
import { checkAppId, checkPublicKeys, checkServerUrl, DEFAULT_APP_ID } from "./inputs.ts";
import { fileBlock } from "./markdown.ts";
import { INTEGRATION_LANGUAGES, isIntegrationLanguage, type IntegrationLanguage } from "./options.ts";
import { didWebOf, type IntegrationContext, type IntegrationDoc } from "./integration/common.ts";
import { cIntegration } from "./integration/c.ts";
import { cppIntegration } from "./integration/cpp.ts";
import { csharpIntegration } from "./integration/csharp.ts";
import { electronIntegration } from "./integration/electron.ts";
import { juceIntegration } from "./integration/juce.ts";
import { pythonIntegration } from "./integration/python.ts";
import { rustIntegration } from "./integration/rust.ts";
import { tauriIntegration } from "./integration/tauri.ts";

export interface LicenseIntegrationArgs {
  language: IntegrationLanguage;
  /** The product's plugin_id (reverse-domain id); a placeholder when omitted. */
  app_id?: string;
  /** The licensing server's base URL; this deployment's origin when omitted. */
  server_url?: string;
  /**
   * The service's Ed25519 public keys to embed in LICENSE_PUBLIC_KEYS, key-id → raw key (base64url, hex or the DID
   * document's publicKeyMultibase). When omitted, a placeholder entry the developer fills in at build time.
   */
  public_keys?: Record<string, string>;
}

const GENERATORS: Record<IntegrationLanguage, (ctx: IntegrationContext) => IntegrationDoc> = {
  c: cIntegration,
  cpp: cppIntegration,
  rust: rustIntegration,
  python: pythonIntegration,
  electron: electronIntegration,
  tauri: tauriIntegration,
  csharp: csharpIntegration,
  juce: juceIntegration,
};

/** This deployment's origin, without the trailing slash. */
function defaultServerUrl(): string {
  return absoluteUrl("/").replace(/\/+$/, "");
}

function contextOf(input: LicenseIntegrationArgs): { language: IntegrationLanguage; ctx: IntegrationContext } {
  // The arguments come from agents (MCP, REST): checked as the unknown values they may really be.
  const args = input as { [K in keyof LicenseIntegrationArgs]?: unknown } | null | undefined;
  if (!args || !isIntegrationLanguage(args.language)) {
    throw new Error(`language must be one of ${INTEGRATION_LANGUAGES.join(", ")}`);
  }
  const appIdGiven = args.app_id !== undefined && args.app_id !== null;
  const appId = appIdGiven ? checkAppId(args.app_id) : DEFAULT_APP_ID;
  const serverUrl = checkServerUrl(args.server_url ?? defaultServerUrl());
  const publicKeysGiven = args.public_keys !== undefined && args.public_keys !== null;
  const publicKeys = publicKeysGiven ? checkPublicKeys(args.public_keys) : [{ keyId: `${didWebOf(serverUrl)}#ed25519-1`, key: "" }];
  return { language: args.language, ctx: { appId, serverUrl, appIdGiven, publicKeys, publicKeysGiven } };
}

/**
 * Markdown for integrating license checks into an app: an intro, setup steps, and complete code that fingerprints
 * the machine, activates on first run, validates at every start, fetches the machine's signed license file and runs
 * offline on it (verified with the embedded Ed25519 key; a 7-day unsigned grace while no key is embedded), and maps
 * every answer to an outcome. The Python and Electron (Node) code also checks for updates (GET /api/updates/{plugin_id})
 * and downloads one only once its size, SHA-256 and Ed25519 signature verify with the same embedded keys. Throws on an unknown language or an app_id/server_url/public_keys that is not safe to
 * embed.
 */
export function generateLicenseIntegration(args: LicenseIntegrationArgs): string {
  const { language, ctx } = contextOf(args);
  const doc = GENERATORS[language](ctx);
  const parts = [
    `# License checks in ${doc.title}`,
    doc.intro,
    "## Setup",
    doc.setup.map((step, i) => `${i + 1}. ${step.replace(/\n(?=[^\n])/g, "\n   ")}`).join("\n"),
    "## Code",
    ...doc.files.map((f) => fileBlock(f.path, f.lang, f.code)),
  ];
  if (doc.notes?.length) parts.push("## Notes", doc.notes.map((n) => `- ${n}`).join("\n"));
  return `${parts.join("\n\n")}\n`;
}
