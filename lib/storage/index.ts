import type { Env } from "../env.ts";
import { env } from "../env.ts";
import { isSafePrefix } from "./keys.ts";
import { LocalObjectStore } from "./local.ts";
import { S3ObjectStore } from "./s3.ts";
import type { ObjectStore } from "./types.ts";

/**
 * One storage interface for every uploaded file (product images, release artifacts). STORAGE_DRIVER picks the
 * driver: `local` (the default: files under UPLOAD_DIR, zero setup) or `s3` (an S3-compatible bucket every instance
 * shares). Downloads of private files go through `signedUrl`: presigned on S3, HMAC-signed /api/files/ links on the
 * local disk; never a guessable path.
 */
export type { ObjectStore, StoredObjectInfo } from "./types.ts";
export { verifyLocalSignature } from "./local.ts";
export { S3ObjectStore } from "./s3.ts";

let current: { settings: string; store: ObjectStore } | undefined;

/** The settings a store is built from: a new environment (resetEnv in tests) gets a new store. */
function settingsOf(e: Env): string {
  return JSON.stringify([
    e.STORAGE_DRIVER,
    e.S3_BUCKET,
    e.S3_REGION,
    e.S3_ENDPOINT,
    e.S3_FORCE_PATH_STYLE,
    e.S3_ACCESS_KEY_ID,
    e.S3_SECRET_ACCESS_KEY,
    e.S3_PREFIX,
    e.DOWNLOAD_URL_TTL_SECONDS,
  ]);
}

/** The configured driver, one per process (and per set of storage settings). */
export function objectStore(): ObjectStore {
  const e = env();
  const settings = settingsOf(e);
  if (current?.settings === settings) return current.store;
  checkStorageSettings(e);
  const store = e.STORAGE_DRIVER === "s3" ? new S3ObjectStore(e) : new LocalObjectStore();
  current = { settings, store };
  return store;
}

/** Forgets the store (tests that change the environment). */
export function resetObjectStore(): void {
  current = undefined;
}

/**
 * Refuses storage settings that cannot work, with a message naming the setting: server.ts calls it at start so a
 * misconfigured instance stops at once instead of failing on the first upload.
 */
export function checkStorageSettings(e: Env): void {
  if (e.STORAGE_DRIVER !== "s3") return;
  if (!e.S3_BUCKET) {
    throw new Error(
      "STORAGE_DRIVER=s3 needs S3_BUCKET (the bucket's name); set S3_ENDPOINT too for Cloudflare R2, MinIO and other non-AWS services.",
    );
  }
  if (!isSafePrefix(e.S3_PREFIX)) {
    throw new Error("S3_PREFIX may only use letters, digits, '.', '_', '-' and '/' (e.g. \"ilm/\"), without a leading '/' or '..'.");
  }
  if (Boolean(e.S3_ACCESS_KEY_ID) !== Boolean(e.S3_SECRET_ACCESS_KEY)) {
    throw new Error("Set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (the AWS SDK's default credential chain is then used).");
  }
}
