/**
 * Checks of the free-form arguments. Everything that ends up inside generated code or configuration passes
 * through here first, so no argument can break out of a string literal, a YAML scalar or a shell word.
 */

/** A product's reverse-domain id, as the licensing API's `plugin_id` accepts it. */
const APP_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** Characters an embedded URL may contain after normalisation: none of them can end a string literal or comment. */
const SAFE_URL_PATTERN = /^https?:\/\/[A-Za-z0-9.\-[\]:]+(?:\/[A-Za-z0-9._~%\-/]*)?$/;

/** A DNS hostname: labels of letters, digits and inner hyphens, at least one dot, at most 253 characters. */
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const HOSTNAME_PATTERN = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`);

export const DEFAULT_APP_ID = "com.example.app";
export const DEFAULT_DOMAIN = "licenses.example.com";

export function checkAppId(appId: unknown): string {
  if (typeof appId !== "string" || !APP_ID_PATTERN.test(appId)) {
    throw new Error(
      "app_id must be the product's plugin_id: 1 to 200 letters, digits, dots, hyphens or underscores, starting with a letter or digit (for example com.example.app)",
    );
  }
  return appId;
}

/**
 * An http(s) base URL, normalised (no trailing slash). Credentials, queries and fragments are refused, and so is
 * anything that would still contain a quote, backslash, space, `$`, `{`, `*` or other character with a meaning in
 * one of the generated languages after URL normalisation.
 */
export function checkServerUrl(serverUrl: unknown): string {
  const fail = (why: string): never => {
    throw new Error(`server_url must be an http:// or https:// base URL such as https://licenses.example.com (${why})`);
  };
  if (typeof serverUrl !== "string" || serverUrl.length === 0) return fail("not a string");
  if (serverUrl.length > 2048) return fail("too long");
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u0020\u007f"'`\\{}<>|^$*;]/.test(serverUrl)) {
    return fail("it contains spaces, control characters, quotes, backslashes or one of { } < > | ^ $ * ;");
  }
  let url: URL;
  try {
    url = new URL(serverUrl);
  } catch {
    return fail("not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return fail(`scheme ${url.protocol} is not http or https`);
  if (url.username || url.password) return fail("credentials are not allowed in it");
  if (url.search || url.hash || serverUrl.includes("?") || serverUrl.includes("#")) return fail("no query or fragment");
  if (!url.hostname) return fail("no host");
  const normalised = `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, "");
  if (!SAFE_URL_PATTERN.test(normalised)) return fail("it contains characters that are not allowed");
  return normalised;
}

/** A hostname for a deployment (no scheme, port, path or wildcard). Lower-cased. */
export function checkDomain(domain: unknown): string {
  if (typeof domain !== "string" || !HOSTNAME_PATTERN.test(domain) || /^[0-9.]+$/.test(domain)) {
    throw new Error("domain must be a hostname such as licenses.example.com (letters, digits, hyphens and dots; no scheme, port or path)");
  }
  return domain.toLowerCase();
}

/** A verification method id: a DID (did:web here) and a fragment. Nothing in it can end a string literal. */
const KEY_ID_PATTERN = /^did:[a-z0-9]+:[A-Za-z0-9.%:_-]{1,253}#[A-Za-z0-9._-]{1,64}$/;
const MAX_PUBLIC_KEYS = 8;
const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function base58Decode(text: string): Buffer | null {
  let n = 0n;
  for (const c of text) {
    const digit = BASE58_ALPHABET.indexOf(c);
    if (digit < 0) return null;
    n = n * 58n + BigInt(digit);
  }
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const zeros = text.length - text.replace(/^1+/, "").length;
  return Buffer.concat([Buffer.alloc(zeros), n === 0n ? Buffer.alloc(0) : Buffer.from(hex, "hex")]);
}

/** The raw 32-byte key of a base64url (padding optional), 64-hex or multibase ("z", 0xed 0x01 prefix) Ed25519 key. */
function rawEd25519Key(value: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, "hex");
  if (/^z[1-9A-HJ-NP-Za-km-z]{40,60}$/.test(value)) {
    const bytes = base58Decode(value.slice(1));
    if (bytes && bytes.length === 34 && bytes[0] === 0xed && bytes[1] === 0x01) return bytes.subarray(2);
    // Not a multibase key: a base64url key can look like one (it starts with "z" and avoids 0, O, I, l, - and _).
  }
  if (/^[A-Za-z0-9_-]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value.replace(/=$/, ""), "base64url");
    return bytes.length === 32 ? bytes : null;
  }
  return null;
}

/**
 * The Ed25519 public keys to embed: a map from key-id (`did:web:<host>#<key id>`, as in the DID document's
 * verificationMethod) to the raw key as base64url, hex, or the DID document's publicKeyMultibase. Normalised to
 * base64url without padding.
 */
export function checkPublicKeys(keys: unknown): Array<{ keyId: string; key: string }> {
  const fail = (why: string): never => {
    throw new Error(
      `public_keys must map key-ids (did:web:host#key-id) to raw Ed25519 public keys in base64url, hex or publicKeyMultibase form (${why})`,
    );
  };
  if (typeof keys !== "object" || keys === null || Array.isArray(keys)) return fail("not an object");
  const entries = Object.entries(keys as Record<string, unknown>);
  if (entries.length === 0) return fail("no keys");
  if (entries.length > MAX_PUBLIC_KEYS) return fail(`at most ${MAX_PUBLIC_KEYS} keys`);
  return entries.map(([keyId, value]) => {
    if (!KEY_ID_PATTERN.test(keyId)) return fail(`key-id ${JSON.stringify(keyId).slice(0, 80)} is not a DID URL with a fragment`);
    const raw = typeof value === "string" ? rawEd25519Key(value.trim()) : null;
    if (!raw) return fail(`the key for ${keyId} is not a 32-byte Ed25519 public key`);
    return { keyId, key: raw.toString("base64url") };
  });
}
