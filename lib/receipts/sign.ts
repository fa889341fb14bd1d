import { createHmac, timingSafeEqual } from "node:crypto";
import canonicalize from "canonicalize";
import { receiptSecret } from "../identity/service-keys.ts";

/** HMAC-SHA256 (hex) over the RFC 8785 (JCS) canonical form, so key order and whitespace never matter. */
export async function signReceipt(receipt: object): Promise<string> {
  return createHmac("sha256", await receiptSecret())
    .update(canonicalize(receipt) ?? "")
    .digest("hex");
}

/** Constant-time check of a receipt's signature. */
export async function receiptSignatureValid(receipt: object, signature: string): Promise<boolean> {
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) return false;
  const expected = Buffer.from(await signReceipt(receipt), "hex");
  return timingSafeEqual(expected, Buffer.from(signature, "hex"));
}
