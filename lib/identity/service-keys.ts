import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
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

export interface SigningKey {
  /** The verification method's fragment in the DID document, e.g. "ed25519-1". */
  id: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The raw 32-byte public key. */
  raw: Buffer;
  createdAt: Date;
  retiredAt: Date | null;
}

interface Keys {
  receiptSecret?: Buffer;
  feedTokenSecret?: Buffer;
  storageUrlSecret?: Buffer;
  signing?: { loadedAt: number; current: SigningKey; all: SigningKey[] };
}
const KEY = Symbol.for("indie-license-market.service-keys");
const g = globalThis as unknown as Record<symbol, Keys | undefined>;
const cache = (): Keys => (g[KEY] ??= {});
/** Other processes (the rotation command, other instances) may change the key set; re-read it this often. */
const SIGNING_KEYS_TTL_MS = 60_000;

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

/**
 * The HMAC-SHA256 secret that signs the local storage driver's download URLs (/api/files/…): 32 random bytes
 * generated once and stored, so every instance sharing the database (and UPLOAD_DIR) accepts the others' links. Only
 * the server uses it; replacing the stored row invalidates every outstanding link, nothing else.
 */
export async function storageUrlSecret(): Promise<Buffer> {
  const c = cache();
  if (c.storageUrlSecret) return c.storageUrlSecret;
  const row = await storedKey("storage-url-hmac", "hmac-sha256", () => ({ secret: b64u(randomBytes(32)) }));
  c.storageUrlSecret = Buffer.from(row.secret, "base64url");
  return c.storageUrlSecret;
}

/**
 * The HMAC-SHA256 secret behind update-feed tokens (/api/updates/{plugin_id}/feeds/<token>/…): 32 random bytes
 * generated once and stored, so every instance accepts the others' feed URLs. Replacing the stored row invalidates
 * every feed URL handed out, nothing else.
 */
export async function feedTokenSecret(): Promise<Buffer> {
  const c = cache();
  if (c.feedTokenSecret) return c.feedTokenSecret;
  const row = await storedKey("feed-token-hmac", "hmac-sha256", () => ({ secret: b64u(randomBytes(32)) }));
  c.feedTokenSecret = Buffer.from(row.secret, "base64url");
  return c.feedTokenSecret;
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

function newPair() {
  const pair = generateKeyPairSync("ed25519");
  return {
    secret: b64u(pair.privateKey.export({ format: "der", type: "pkcs8" })),
    publicKey: b64u(pair.publicKey.export({ format: "der", type: "spki" })),
  };
}

function toSigningKey(row: { id: string; secret: string; createdAt: Date; retiredAt: Date | null }): SigningKey {
  const privateKey = createPrivateKey({ key: Buffer.from(row.secret, "base64url"), format: "der", type: "pkcs8" });
  if (privateKey.asymmetricKeyType !== "ed25519") throw new Error(`service key ${row.id} is not an Ed25519 key`);
  const publicKey = createPublicKey(privateKey);
  // The last 32 bytes of the SPKI DER are the raw public key.
  const raw = (publicKey.export({ format: "der", type: "spki" }) as Buffer).subarray(-32);
  return { id: row.id, privateKey, publicKey, raw, createdAt: row.createdAt, retiredAt: row.retiredAt };
}

/** Makes `id` the one current signing key: inserts it if new, and retires every other current key. */
async function makeCurrent(id: string, material: { secret: string; publicKey: string }) {
  const db = getDb();
  await db.$transaction(async (tx) => {
    const exists = await tx.serviceKey.findUnique({ where: { id } });
    if (!exists) await tx.serviceKey.create({ data: { id, algorithm: "ed25519", secret: material.secret, publicKey: material.publicKey } });
    await tx.serviceKey.updateMany({ where: { algorithm: "ed25519", retiredAt: null, id: { not: id } }, data: { retiredAt: new Date() } });
  });
}

/**
 * The Ed25519 keys behind the did:web identity: the current one signs; retired ones stay published in the DID
 * document so what they signed still verifies. SIGNING_KEY, when set, becomes the current key.
 */
export async function signingKeys(): Promise<{ current: SigningKey; all: SigningKey[] }> {
  const c = cache();
  if (c.signing && Date.now() - c.signing.loadedAt < SIGNING_KEYS_TTL_MS) return c.signing;
  const db = getDb();
  const fromEnv = env().SIGNING_KEY;
  if (fromEnv) {
    const key = signingKeyFromEnv(fromEnv);
    if (key.asymmetricKeyType !== "ed25519") throw new Error("SIGNING_KEY is not an Ed25519 key");
    const spki = createPublicKey(key).export({ format: "der", type: "spki" }) as Buffer;
    const id = `ed25519-env-${createHash("sha256").update(spki).digest("hex").slice(0, 8)}`;
    const row = await db.serviceKey.findUnique({ where: { id } });
    if (!row || row.retiredAt) await makeCurrent(id, { secret: b64u(key.export({ format: "der", type: "pkcs8" })), publicKey: b64u(spki) });
  }
  let rows = await db.serviceKey.findMany({ where: { algorithm: "ed25519" }, orderBy: { createdAt: "asc" } });
  if (!rows.some((r) => r.retiredAt === null)) {
    await storedKey("ed25519-1", "ed25519", newPair);
    rows = await db.serviceKey.findMany({ where: { algorithm: "ed25519" }, orderBy: { createdAt: "asc" } });
  }
  const all = rows.map(toSigningKey);
  // Concurrent rotations can leave two current keys for a moment: the newest one signs.
  const current = [...all].reverse().find((k) => k.retiredAt === null) ?? all.at(-1);
  if (!current) throw new Error("no Ed25519 signing key");
  c.signing = { loadedAt: Date.now(), current, all };
  return c.signing;
}

/** The key that signs now. */
export async function signingKey(): Promise<SigningKey> {
  return (await signingKeys()).current;
}

/** Generates a new current key; the previous one is retired but stays published. Returns the new key's id. */
export async function rotateSigningKey(): Promise<string> {
  const db = getDb();
  const count = await db.serviceKey.count({ where: { algorithm: "ed25519" } });
  for (let n = count + 1; ; n++) {
    const id = `ed25519-${n}`;
    if (await db.serviceKey.findUnique({ where: { id }, select: { id: true } })) continue;
    await makeCurrent(id, newPair());
    resetServiceKeys();
    return id;
  }
}

/** Forgets loaded keys (tests that change the environment). */
export function resetServiceKeys(): void {
  g[KEY] = {};
}
