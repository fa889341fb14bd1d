import { env } from "../env.ts";
import { AppError } from "../http/errors.ts";
import { paths } from "../urls.ts";

/** Longest download URL a seller may set (the column holds more; nothing legitimate needs it). */
export const DOWNLOAD_URL_MAX = 500;

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** Why most refused download URLs are refused: buyers are sent to the address itself (there is no upload here). */
const NOT_HTTPS = "must be a full https:// address of your download, such as https://example.com/downloads/app.zip";
const DEMO_PATH = /^\/downloads\/[a-z0-9][a-z0-9-]*$/;

/**
 * Why a seller's download URL cannot be used, or null when it can. Allowed: an absolute https URL with a host and no
 * user name or password (http only to a loopback host outside production, for trying a build locally), or, for the
 * demo catalogue, this site's own `/downloads/<product id>` path (`productId` given: only that product's own path; null:
 * none, as for a product not created yet).
 * The same rule is applied when the URL is saved and again before a download redirects to it, so a value stored
 * before the rule existed is refused instead of followed.
 */
export function downloadUrlProblem(value: string, productId?: string | null): string | null {
  if (value.length > DOWNLOAD_URL_MAX) return `must be at most ${DOWNLOAD_URL_MAX} characters`;
  if (value.startsWith("/")) {
    if (!DEMO_PATH.test(value) || (productId !== undefined && (productId === null || value !== paths.download(productId)))) return NOT_HTTPS;
    return null;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return NOT_HTTPS;
  }
  const local = url.protocol === "http:" && LOOPBACK.has(url.hostname) && env().NODE_ENV !== "production";
  if (url.protocol !== "https:" && !local) return NOT_HTTPS;
  if (!url.hostname) return NOT_HTTPS;
  if (url.username || url.password) return "must not contain a user name or password";
  return null;
}

/** The same rule as a refusal (for lib callers that are not behind the schema). */
export function assertDownloadUrl(value: string, productId: string | null): void {
  const problem = downloadUrlProblem(value, productId);
  if (problem) {
    throw new AppError("invalid_body", 400, `Invalid field "download_url": ${problem}`, {
      errors: [{ in: "body", name: "download_url", message: problem }],
    });
  }
}

/** A download URL that may be redirected to: the stored value re-checked, as an absolute URL; null when it may not. */
export function safeDownloadTarget(value: string, productId: string): string | null {
  if (downloadUrlProblem(value, productId) !== null || value.startsWith("/")) return null;
  return new URL(value).href;
}
