import { createHash, sign } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createReadStream } from "node:fs";
import { signingKeys, type SigningKey } from "../identity/service-keys.ts";

/**
 * Artifact signatures, all by the service's current Ed25519 signing key (the one did.json lists):
 * - `signature`: plain Ed25519 over the file's exact bytes, base64 — Sparkle's `sparkle:edSignature`, and what the
 *   update API and generated client code verify against did.json;
 * - `minisign`: the same key's minisign signature file (prehashed "ED" algorithm: Ed25519 over BLAKE2b-512 of the
 *   file, plus a global signature over the trusted comment), base64 of the whole file text — exactly what Tauri's
 *   updater expects in its `signature` field, checked against `minisignPublicKey(key)` in `plugins.updater.pubkey`.
 * Format: https://jedisct1.github.io/minisign/
 */

/**
 * The minisign key id of a service key: the first 8 bytes of SHA-256 over the raw public key, in the order minisign
 * stores them (it prints them as a little-endian 64-bit number, so the hex shown is these bytes reversed).
 */
function minisignKeyId(key: Pick<SigningKey, "raw">): Buffer {
  return createHash("sha256").update(key.raw).digest().subarray(0, 8);
}

/** The key id as minisign displays it: the 8 bytes read as a little-endian integer, 16 upper-case hex digits. */
function minisignKeyIdHex(key: Pick<SigningKey, "raw">): string {
  return Buffer.from(minisignKeyId(key)).reverse().toString("hex").toUpperCase();
}

/** minisign public key file (base64 of its text) for Tauri's `plugins.updater.pubkey`, of the current (or given) key. */
export function minisignPublicKey(key: SigningKey): string {
  const body = Buffer.concat([Buffer.from("Ed"), minisignKeyId(key), key.raw]).toString("base64");
  const text = `untrusted comment: minisign public key ${minisignKeyIdHex(key)}\n${body}\n`;
  return Buffer.from(text).toString("base64");
}

/** Builds the minisign signature file text for a file whose BLAKE2b-512 is `blake2b` (prehashed "ED" algorithm). */
function minisignSignature(key: SigningKey, blake2b: Buffer, filename: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const fileSignature = sign(null, blake2b, key.privateKey);
  // The trusted comment is signed (the global signature), so it can't hold a newline: filenames are validated before.
  const trusted = `timestamp:${timestamp}\tfile:${filename.replace(/[\r\n]/g, "_")}`;
  const globalSignature = sign(null, Buffer.concat([fileSignature, Buffer.from(trusted)]), key.privateKey);
  const line2 = Buffer.concat([Buffer.from("ED"), minisignKeyId(key), fileSignature]).toString("base64");
  return `untrusted comment: signature from indie-license-market key ${key.id}\n${line2}\ntrusted comment: ${trusted}\n${globalSignature.toString("base64")}\n`;
}

/** Hex SHA-256, base64 SHA-512 and raw BLAKE2b-512 of a file, read as a stream. */
async function hashFile(path: string): Promise<{ sha256: string; sha512: string; blake2b: Buffer; size: number }> {
  const sha256 = createHash("sha256");
  const sha512 = createHash("sha512");
  const blake = createHash("blake2b512");
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    const buf = chunk as Buffer;
    size += buf.length;
    sha256.update(buf);
    sha512.update(buf);
    blake.update(buf);
  }
  return { sha256: sha256.digest("hex"), sha512: sha512.digest("base64"), blake2b: blake.digest(), size };
}

/**
 * Hashes and signs a file on disk with the current service key. `keyId` is the key's did.json fragment
 * ("ed25519-1"). Ed25519 (pure) needs the whole message, so the file is read into memory once for `signature`;
 * the ARTIFACT_MAX_MB limit bounds it.
 */
export async function signArtifactFile(
  path: string,
  filename: string,
): Promise<{ sha256: string; sha512: string; signature: string; minisign: string; keyId: string }> {
  const { current } = await signingKeys();
  const { sha256, sha512, blake2b } = await hashFile(path);
  const signature = sign(null, await readFile(path), current.privateKey).toString("base64");
  const minisign = Buffer.from(minisignSignature(current, blake2b, filename)).toString("base64");
  return { sha256, sha512, signature, minisign, keyId: current.id };
}
