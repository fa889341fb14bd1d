import {
  LICENSE_FILE_CLOCK_SKEW_SECONDS,
  LICENSE_FILE_DEFAULT_DAYS,
  LICENSE_FILE_ENDPOINT,
  LICENSE_FILE_FORMAT,
  OFFLINE_GRACE_DAYS,
} from "../options.ts";
import { PLATFORMS } from "../../../releases/platforms.ts";

/** One embedded Ed25519 public key: the verification method id from the DID document and the raw key. */
interface EmbeddedPublicKey {
  /** `did:web:<host>#<key id>`, the license file's `key-id` line. */
  keyId: string;
  /** base64url (no padding) of the raw 32-byte key; empty in the placeholder entry. */
  key: string;
}

/** The checked arguments every language generator receives. */
export interface IntegrationContext {
  /** The product's plugin_id, checked against APP_ID_PATTERN. */
  appId: string;
  /** The licensing server's base URL, checked and without a trailing slash. */
  serverUrl: string;
  /** Whether app_id was given (otherwise appId is a placeholder the developer must replace). */
  appIdGiven: boolean;
  /**
   * The keys LICENSE_PUBLIC_KEYS starts with. When none were given, one placeholder entry with the key-id the
   * server most likely uses and an empty key, which the generated code ignores.
   */
  publicKeys: EmbeddedPublicKey[];
  /** Whether real keys were given (otherwise publicKeys is the placeholder). */
  publicKeysGiven: boolean;
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

/** did:web of a server URL's host, as the service derives it (a port is percent-encoded; the path is not part of it). */
export function didWebOf(serverUrl: string): string {
  const u = new URL(serverUrl);
  return `did:web:${u.port ? `${u.hostname}%3A${u.port}` : u.hostname}`;
}

/**
 * The entries of LICENSE_PUBLIC_KEYS, each rendered by `line(keyId, key)` on its own line; the placeholder entry
 * gets `comment(text)` after it. Every key-id and key has been checked (inputs.ts, or derived from the checked
 * server URL), so they can go into any string literal as they are.
 */
export function publicKeyLines(ctx: IntegrationContext, line: (keyId: string, key: string) => string, comment: (text: string) => string): string {
  const note = 'placeholder: replace "" with the key printed by the command in the setup steps';
  return ctx.publicKeys.map((k) => (ctx.publicKeysGiven ? line(k.keyId, k.key) : `${line(k.keyId, k.key)} ${comment(note)}`)).join("\n");
}

/**
 * A one-line shell command that prints `<key-id> <base64url raw key>` for every key in the service's DID document:
 * base58btc-decodes each `publicKeyMultibase` ("z" + base58btc(0xed 0x01 ‖ key)) and strips the two-byte prefix.
 */
export function publicKeyCommand(serverUrl: string): string {
  const py = [
    "import sys,json,base64,functools",
    'A="123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"',
    'd=lambda z:functools.reduce(lambda n,c:n*58+A.index(c),z[1:],0).to_bytes(34,"big")',
    '[print(m["id"],base64.urlsafe_b64encode(d(m["publicKeyMultibase"])[2:]).decode().rstrip("=")) for m in json.load(sys.stdin)["verificationMethod"] if m["publicKeyMultibase"][:1]=="z" and d(m["publicKeyMultibase"])[:2]==b"\\xed\\x01"]',
  ].join(";");
  return `curl -fsS ${serverUrl}/.well-known/did.json | python3 -c '${py}'`;
}

/** The setup step that embeds the public key(s), the same in every language. */
export function publicKeySetupStep(ctx: IntegrationContext, where: string): string {
  const state = ctx.publicKeysGiven
    ? `It already holds the key(s) you gave (${ctx.publicKeys.map((k) => `\`${k.keyId}\``).join(", ")}); re-run the command when the service adds a key.`
    : `It holds a placeholder until you do: with no key embedded the app keeps the unsigned ${OFFLINE_GRACE_DAYS}-day offline grace and never fetches license files.`;
  return [
    `Embed the service's Ed25519 public key(s) in \`LICENSE_PUBLIC_KEYS\` (${where}) at build time: a map from key-id to the base64url of the raw 32-byte key. This prints them from the service's DID document (\`GET ${ctx.serverUrl}/.well-known/did.json\`), one \`<key-id> <key>\` per line:`,
    "",
    "```sh",
    publicKeyCommand(ctx.serverUrl),
    "```",
    "",
    `${state} Never fetch the key at run time in the verifying path: a fetched key can be spoofed. When the service rotates its key, add the new key-id next to the old one and ship an update before the old files run out.`,
  ].join("\n");
}

/** The fingerprint definition, said the same way in every language's notes. */
const FINGERPRINT_NOTE =
  "The machine fingerprint is the lowercase hex SHA-256 of `<CPU brand>|<OS identifier>` (both trimmed): Linux `/etc/machine-id`, macOS `IOPlatformUUID` from `ioreg -rd1 -c IOPlatformExpertDevice`, Windows `MachineGuid` from `HKLM\\SOFTWARE\\Microsoft\\Cryptography`. Keep the recipe stable: a different fingerprint is a different machine and takes another seat.";

function licenseFileNote(ctx: IntegrationContext): string {
  return `Offline license files: after every good validation the code fetches \`GET ${ctx.serverUrl}${LICENSE_FILE_ENDPOINT}?key=…&fingerprint=…&plugin_id=…\` and stores it as \`license.lic\` next to the cached state (only when it verifies). When the server cannot be reached, the app runs if that file's armour and \`format: ${LICENSE_FILE_FORMAT}\` line are right, its \`key-id\` is in \`LICENSE_PUBLIC_KEYS\`, the Ed25519 signature over the ASCII bytes \`${LICENSE_FILE_FORMAT}.\` + the payload line's value verifies, and the payload names this machine's fingerprint, this \`plugin_id\` and the stored key, with now before its \`expires_at\` (${LICENSE_FILE_DEFAULT_DAYS} days after issue by default, never past the license's own end) and not before its \`issued_at\` (${LICENSE_FILE_CLOCK_SKEW_SECONDS / 60} minutes of clock skew allowed). Revocation reaches an offline app when its file expires, or at its next online check, which deletes the file.`;
}

export function commonNotes(ctx: IntegrationContext): string[] {
  const notes = [
    FINGERPRINT_NOTE,
    `Outcomes: \`VALID\` runs (trials show the days left); \`NO_MACHINE\`/\`FINGERPRINT_SCOPE_MISMATCH\` re-activate automatically; \`NOT_FOUND\`/\`PRODUCT_MISMATCH\` ask for the key again; \`EXPIRED\`/\`TRIAL_EXPIRED\` offer renewal or purchase; \`REVOKED\` stops; \`TOO_MANY_MACHINES\` tells the user to release a machine. Network errors, HTTP 5xx and 429 (after honouring a short \`Retry-After\`) fall back to the stored signed license file (or, while \`LICENSE_PUBLIC_KEYS\` holds no key, to the last good validation for up to ${OFFLINE_GRACE_DAYS} days); other HTTP 4xx answers are RFC 9457 problem documents whose \`detail\` is shown.`,
    licenseFileNote(ctx),
    `Activation (\`POST ${ctx.serverUrl}/activate\`) also tells the service which machine it is, for the buyer's and your machine lists: \`machine_name\` (this computer's host name), \`platform\` (the OS and CPU it runs on, named as releases name platforms: \`${PLATFORMS.filter((p) => p !== "macos-universal").join("`, `")}\`) and \`app_version\` (the version your app passes in). The code leaves out control characters (the service refuses them) and cuts the name and the version to the lengths the service accepts, never inside a character.`,
    `Releasing this machine (\`POST ${ctx.serverUrl}/deactivate\`) frees its seat at once and deletes the license file; offer it in your settings or uninstaller. Rate limits: \`/validate\` 600/min and \`/activate\` + \`/deactivate\` 60/min per client address, \`${LICENSE_FILE_ENDPOINT}\` 120/min per address, 120/min per key, so validate once per launch, not in a loop.`,
    "To test the error path, generate a test key (`generate_test_license_key`): it has the right format but always answers `NOT_FOUND`.",
  ];
  if (!ctx.appIdGiven) notes.unshift("Replace `com.example.app` with your product's `plugin_id` from the catalog (`GET /api/catalog`).");
  return notes;
}

/**
 * What buying from inside the app does (OAuth device authorization, RFC 8628), said the same way in every language:
 * `entry` names the language's entry point and its callbacks, `cli` how the example runs it.
 */
export function buyAndActivateNote(ctx: IntegrationContext, entry: string, cli: string): string {
  return `Buying from inside the app: ${entry} lets the user buy a license (or pick one they already hold) in the browser, with no key to copy. It calls \`POST ${ctx.serverUrl}/api/v1/device/authorize\` with this machine's fingerprint and details (as an activation sends them), shows the answer's \`verification_uri_complete\` and its short code (like \`WDJB-MJHT\`: the buyer checks the page shows the same) through your callback, then polls \`POST ${ctx.serverUrl}/api/v1/device/token\` every \`interval\` seconds (5, and 5 more after each \`slow_down\`) until the license arrives, already activated on this machine; it is then stored and validated exactly like an entered key. It stops with a clear message on \`access_denied\` (declined in the browser), \`expired_token\` (not finished within 15 minutes) and \`invalid_grant\`, read from the 400 problem document's \`code\` (or \`error\`). ${cli}`;
}

/**
 * What the update check in the generated Python and Node code does (those two languages have one): the request,
 * the checks a download passes before it is written, and the refusals it reports by their problem code.
 */
export function updateCheckNote(ctx: IntegrationContext): string {
  return `Updates: the check is \`GET ${ctx.serverUrl}/api/updates/${ctx.appId}?version=<running version>&platform=<windows-x64|macos-universal|macos-arm64|linux-x64|…>&channel=stable\` (add \`format=vst3|au|aax|clap\` for an audio plugin) with the headers \`X-License-Key\` and \`X-Machine-Fingerprint\` (the activated machine's). It answers \`{status: "update_available" | "up_to_date", latest: {version, notes, published_at, artifact: {filename, size, sha256, signature, signature_key_id, url, url_expires_at}}, …}\` with the newest release the license is entitled to (the product's update policy decides). The download follows the short-lived \`url\` without the license headers, into a temporary file next to the destination that is renamed into place only when its size, hex SHA-256 and the base64 Ed25519 \`signature\` over the file's bytes (by the \`LICENSE_PUBLIC_KEYS\` entry named \`signature_key_id\`, the same key that signs license files) all match. Refusals are RFC 9457 problem documents whose \`code\` the error carries: \`license_revoked\`, \`license_refunded\`, \`license_suspended\`, \`license_expired\`, \`trial_expired\`, \`machine_not_activated\`, \`release_not_entitled\`, \`license_not_found\`; a failed verification is \`size_mismatch\`, \`sha256_mismatch\`, \`signature_invalid\` or \`unknown_signing_key\`, and leaves nothing at the destination.`;
}
