const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Base58 (Bitcoin alphabet), as multibase's "z" prefix uses. */
export function base58btc(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const digits: number[] = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) {
      carry += (digits[i] ?? 0) << 8;
      digits[i] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  return (
    "1".repeat(zeros) +
    digits
      .reverse()
      .map((d) => ALPHABET[d])
      .join("")
  );
}

/** An Ed25519 public key as a Multikey `publicKeyMultibase`: "z" + base58btc(0xed 0x01 ‖ key). */
export function ed25519Multibase(raw: Uint8Array): string {
  return "z" + base58btc(Uint8Array.from([0xed, 0x01, ...raw]));
}
