import { capabilityToken, capabilityTokenId, capabilityTokenValid } from "../http/capability-token.ts";
import { AppError } from "../http/errors.ts";
import { feedTokenSecret } from "../identity/service-keys.ts";
import { absoluteUrl } from "../urls.ts";

/**
 * Update feeds are read by updaters that cannot send custom headers (electron-updater's generic provider, Sparkle,
 * Tauri), so the license check rides in the URL as a capability token:
 *
 *   <activation id>.<first 32 characters of base64url(HMAC-SHA256(feed secret, "feed:v1:<activation id>"))>
 *
 * The token names one machine's activation, never the license key. Every request re-checks that the activation still
 * exists and its license is in force, so deactivating the machine, or a revocation, refund, dispute or expiry, ends
 * the token at once; re-activating the machine makes a new activation and so a new token. The secret is stored once
 * (lib/identity/service-keys.ts `feedTokenSecret`), so every instance accepts every token.
 */

const purpose = (activationId: string) => `feed:v1:${activationId}`;

/** The feed token of an activation. */
export async function feedToken(activationId: string): Promise<string> {
  return capabilityToken(activationId, await feedTokenSecret(), purpose(activationId));
}

/**
 * The activation a token names, when the token is genuine; a malformed or forged token is 404 license_not_found
 * (it says nothing about which activations exist).
 */
export async function activationOfToken(token: string): Promise<string> {
  const id = capabilityTokenId(token);
  if (!id || !capabilityTokenValid(token, await feedTokenSecret(), purpose(id))) {
    throw new AppError("license_not_found", 404, "No license matches this feed URL; ask the app for a fresh one.");
  }
  return id;
}

/** The feed files of one machine, absolute. */
function feedBase(pluginId: string, token: string): string {
  return absoluteUrl(`/api/updates/${encodeURIComponent(pluginId)}/feeds/${token}`);
}

/** The three feed URLs an app configures its updater with (the `feeds` field of the update check). */
export function feedUrls(pluginId: string, token: string): { electron: string; sparkle: string; tauri: string } {
  const base = feedBase(pluginId, token);
  return { electron: base, sparkle: `${base}/appcast.xml`, tauri: `${base}/tauri.json` };
}

/** A feed's download link for one artifact: re-checks the license and redirects to a fresh signed URL. */
export function feedArtifactUrl(pluginId: string, token: string, artifactId: string): string {
  return `${feedBase(pluginId, token)}/artifacts/${encodeURIComponent(artifactId)}`;
}
