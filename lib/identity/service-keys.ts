import { generateKeyPairSync, randomBytes, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { getDb } from "../db.ts";
import { env } from "../env.ts";

/**
 * The service's own keys: from the environment when given, otherwise generated on first start and stored in the
 * database, so every instance and every restart uses the same ones. Never in the repository.
 */

const b64u = (buf: Buffer) => buf.toString("base64url");

/** Reads a stored key, or stores `create()`'s and returns whichever won when several instances race. */
async function storedKey(id: string, algorithm: string, create: () => { secret: string; publicKey?: string }) {
  const db = getDb();
  const found = await db.serviceKey.findUnique({ where: { id } });
  if (found) return found;
  const made = create();
  try {
    return await db.serviceKey.create({ data: { id, algorithm, secret: made.secret, publicKey: made.publicKey ?? null } });
  } catch (error) {
    if ((error as { code?: string }).code !== "P2002") throw error;
    return db.serviceKey.findUniqueOrThrow({ where: { id } });
  }
}

interface Keys {
  receiptSecret?: Buffer;
  signing?: { id: string; privateKey: KeyObject; publicKey: KeyObject; raw: Buffer };
}
const KEY = Symbol.for("indie-license-market.service-keys");
const g = globalThis as unknown as Record<symbol, Keys | undefined>;
const cache = (): Keys => (g[KEY] ??= {});

/** The HMAC-SHA256 secret that signs receipts: RECEIPT_SECRET, or 32 random bytes generated once. */
export async function receiptSecret(): Promise<Buffer> {
  const c = cache();
  if (c.receiptSecret) return c.receiptSecret;
  const fromEnv = env().RECEIPT_SECRET;
  const secret = fromEnv
    ? Buffer.from(fromEnv, "utf8")
    : Buffer.from((await storedKey("receipt-hmac", "hmac-sha256", () => ({ secret: b64u(randomBytes(32)) }))).secret, "base64url");
  c.receiptSecret = secret;
  return secret;
}

/** Parses SIGNING_KEY: a PKCS#8 PEM, or the base64url of a raw 32-byte Ed25519 seed. */
function signingKeyFromEnv(value: string): KeyObject {
  if (value.includes("BEGIN")) return createPrivateKey(value);
  const seed = Buffer.from(value, "base64url");
  if (seed.length !== 32) throw new Error("SIGNING_KEY must be a PKCS#8 PEM or the base64url of a 32-byte Ed25519 seed");
  // PKCS#8 wrapping of a raw Ed25519 seed (RFC 8410).
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  return createPrivateKey({ key: der, format: "der", type: "pkcs8" });
}

/** The Ed25519 key pair behind the did:web identity. */
export async function signingKey(): Promise<NonNullable<Keys["signing"]>> {
  const c = cache();
  if (c.signing) return c.signing;
  const fromEnv = env().SIGNING_KEY;
  let privateKey: KeyObject;
  let id = "ed25519-1";
  if (fromEnv) {
    privateKey = signingKeyFromEnv(fromEnv);
    id = "ed25519-env";
  } else {
    const row = await storedKey(id, "ed25519", () => {
      const pair = generateKeyPairSync("ed25519");
      return {
        secret: b64u(pair.privateKey.export({ format: "der", type: "pkcs8" })),
        publicKey: b64u(pair.publicKey.export({ format: "der", type: "spki" })),
      };
    });
    privateKey = createPrivateKey({ key: Buffer.from(row.secret, "base64url"), format: "der", type: "pkcs8" });
  }
  if (privateKey.asymmetricKeyType !== "ed25519") throw new Error("SIGNING_KEY is not an Ed25519 key");
  const publicKey = createPublicKey(privateKey);
  // The last 32 bytes of the SPKI DER are the raw public key.
  const raw = (publicKey.export({ format: "der", type: "spki" }) as Buffer).subarray(-32);
  c.signing = { id, privateKey, publicKey, raw };
  return c.signing;
}

/** Forgets loaded keys (tests that change the environment). */
export function resetServiceKeys(): void {
  g[KEY] = {};
}
