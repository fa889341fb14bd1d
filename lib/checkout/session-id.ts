import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * A checkout session id: "cs_" and 24 base-62 characters (~143 bits). Whoever holds it can see the session and,
 * once paid, its key, as with a hosted checkout's success URL.
 */
export function newSessionId(): string {
  let out = "cs_";
  while (out.length < 27) {
    for (const byte of randomBytes(32)) {
      // Rejection sampling keeps every character equally likely (248 = 4 × 62).
      if (byte < 248 && out.length < 27) out += ALPHABET.charAt(byte % 62);
    }
  }
  return out;
}
