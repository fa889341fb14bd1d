import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Capability tokens in URLs: `<id>.<mac>`, the mac the first 32 characters of base64url(HMAC-SHA256(key, message)).
 * The product download links (keyed with the license key), the buyer's release-file links (the same) and the update
 * feeds (keyed with a stored service secret) all use this one form; each names its own message, so a token made for
 * one purpose never works for another.
 */
const TOKEN = /^([a-z0-9]{8,40})\.([A-Za-z0-9_-]{32})$/;

function mac(key: string | Buffer, message: string): string {
  return createHmac("sha256", key).update(message).digest("base64url").slice(0, 32);
}

/** The token for `id`: `<id>.<mac of message>`. */
export function capabilityToken(id: string, key: string | Buffer, message: string): string {
  return `${id}.${mac(key, message)}`;
}

/** The id a token names, without checking it (the key may depend on the id); null when it is not a token. */
export function capabilityTokenId(token: string | undefined): string | null {
  return (token && TOKEN.exec(token)?.[1]) || null;
}

/** Whether `token` is the genuine token of its id for this key and message (compared in constant time). */
export function capabilityTokenValid(token: string, key: string | Buffer, message: string): boolean {
  const m = TOKEN.exec(token);
  if (!m?.[2]) return false;
  const expected = Buffer.from(mac(key, message));
  const given = Buffer.from(m[2]);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
