/**
 * Reading the Ed25519 keys a did:web document publishes, written here independently of the service's own encoder
 * (lib/identity/multibase.ts), so a test that verifies a signature with them checks the published document, not our
 * code against itself. No test framework: Vitest and Playwright specs both use it.
 */
const BASE58BTC = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function base58btc(text: string): Uint8Array {
  let n = 0n;
  for (const ch of text) {
    const digit = BASE58BTC.indexOf(ch);
    if (digit < 0) throw new Error(`not base58btc: ${JSON.stringify(ch)}`);
    n = n * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  for (const ch of text) {
    if (ch !== "1") break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

/** The raw 32-byte key of a Multikey `publicKeyMultibase`: "z" + base58btc(0xed 0x01 ‖ key); anything else throws. */
function ed25519FromMultikey(multibase: string): Uint8Array {
  if (!multibase.startsWith("z")) throw new Error(`not base58btc multibase: ${multibase}`);
  const decoded = base58btc(multibase.slice(1));
  if (decoded.length !== 34 || decoded[0] !== 0xed || decoded[1] !== 0x01) throw new Error(`not an Ed25519 Multikey: ${multibase}`);
  return decoded.subarray(2);
}

interface DidDocumentKeys {
  verificationMethod: Array<{ id: string; publicKeyMultibase: string }>;
}

/** Raw Ed25519 keys by verification method id (`did:web:…#ed25519-1`). */
function didDocumentKeys(doc: DidDocumentKeys): Map<string, Uint8Array> {
  return new Map(doc.verificationMethod.map((m) => [m.id, ed25519FromMultikey(m.publicKeyMultibase)]));
}

/** The raw key of one verification method; throws when the document does not publish it. */
export function didDocumentKey(doc: DidDocumentKeys, methodId: string): Uint8Array {
  const key = didDocumentKeys(doc).get(methodId);
  if (!key) throw new Error(`${methodId} is not in the DID document`);
  return key;
}

/** The keys as generated integrations embed them: key id → base64url of the raw key. */
export function didDocumentKeysBase64url(doc: DidDocumentKeys): Record<string, string> {
  return Object.fromEntries([...didDocumentKeys(doc)].map(([id, key]) => [id, Buffer.from(key).toString("base64url")]));
}
