import { createHash, randomBytes, randomInt } from "node:crypto";

/**
 * The two codes of a device request, as RFC 8628 describes them. The device code is the app's secret: 32 random
 * bytes, only its SHA-256 stored, so a copy of the database cannot poll for anyone's key. The user code is what a
 * person reads off the app and types: eight letters of an alphabet without vowels (no words, no 0/O or 1/I mix-ups),
 * 20^8 ≈ 2.6·10^10 codes, of which only the few requests open in a 15-minute window exist; guessing is limited per
 * client on top of that.
 */
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
export const USER_CODE_LENGTH = 8;

export function newDeviceCode(): string {
  return randomBytes(32).toString("base64url");
}

export function hashDeviceCode(code: string): string {
  return createHash("sha256").update(code, "utf8").digest("hex");
}

/** A fresh user code, stored without the dash. */
export function newUserCode(): string {
  let code = "";
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET.charAt(randomInt(USER_CODE_ALPHABET.length));
  return code;
}

/** As typed (any case, dash or space optional) → as stored. */
export function normalizeUserCode(typed: string): string {
  return typed.replace(/[-\s]/g, "").toUpperCase();
}

/** As shown: WDJB-MJHT. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}
