/**
 * Checks of the free-form arguments. Everything that ends up inside generated code or configuration passes
 * through here first, so no argument can break out of a string literal, a YAML scalar or a shell word.
 */

/** A product's reverse-domain id, as the licensing API's `plugin_id` accepts it. */
export const APP_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

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
