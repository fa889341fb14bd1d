/**
 * Strict base64url (RFC 4648 §5, unpadded, as JWS requires in RFC 7515 §2): only `A–Z a–z 0–9 - _`, no `=`, no
 * whitespace, and the canonical encoding of its bytes. Node's decoder skips any character it does not know, so
 * "sig=", "s ig" or "si+g" would decode to the same bytes as "sig" and one token would have many spellings; anything
 * that is not exactly what we would have written is refused here (null).
 */
export function decodeBase64urlStrict(text: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, "base64url");
  // Non-zero bits in the last character's unused tail would also decode to these bytes: only one spelling is accepted.
  return bytes.toString("base64url") === text ? bytes : null;
}
