import { randomInt } from "node:crypto";

/**
 * Crockford's base-32 alphabet: digits and capitals without I, L, O and U, so a key read aloud or typed from an
 * e-mail cannot be mistaken. 16 characters × 5 bits = 80 bits from the CSPRNG.
 */
export const KEY_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const KEY_BITS = 16 * Math.log2(KEY_ALPHABET.length);
export const LICENSE_KEY_PATTERN = /^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/;

export function generateLicenseKey(): string {
  const groups: string[] = [];
  for (let g = 0; g < 4; g++) {
    let group = "";
    for (let i = 0; i < 4; i++) group += KEY_ALPHABET.charAt(randomInt(KEY_ALPHABET.length));
    groups.push(group);
  }
  return groups.join("-");
}

/** Upper-cases and trims what a user typed or pasted, so lookups match however the key was entered. */
export function normalizeKey(key: string): string {
  return key.trim().toUpperCase();
}
