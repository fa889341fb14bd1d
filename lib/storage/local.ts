import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, open, readdir, rename, rm, stat, unlink } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { env } from "../env.ts";
import { storageUrlSecret } from "../identity/service-keys.ts";
import { checkKey, contentTypeFor, isHeaderSafeType, isSafeKey } from "./keys.ts";
import type { ObjectStore, StoredObjectInfo } from "./types.ts";

/**
 * The local driver: each object is a file at UPLOAD_DIR/<key>. Zero setup; several instances can share it only
 * through a shared directory (NFS and the like), otherwise use the S3 driver.
 *
 * The file keeps no metadata: its type comes from the key's extension (a signed URL carries the type it was signed
 * for and is served with that one). A write goes to a temporary file in the same directory (a name no key can have:
 * it contains '#') and is renamed over the key, so a reader sees the old object or the whole new one, never a part.
 */
export class LocalObjectStore implements ObjectStore {
  readonly driver = "local" as const;

  /** UPLOAD_DIR, read on every call: tests change the environment between cases. */
  private root(): string {
    return resolve(/*turbopackIgnore: true*/ env().UPLOAD_DIR);
  }

  /** The file of a key; checkKey already keeps it below the root, the prefix test is a second guard. */
  pathOf(key: string): string {
    checkKey(key);
    const root = this.root();
    const path = resolve(/*turbopackIgnore: true*/ root, key);
    if (!path.startsWith(root + sep)) throw new Error(`storage key escapes UPLOAD_DIR: ${key}`);
    return path;
  }

  async put(key: string, body: Buffer | Readable, opts: { size: number; contentType: string }): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(/*turbopackIgnore: true*/ dirname(path), { recursive: true });
    const temp = `${path}.#${randomBytes(8).toString("hex")}.tmp`;
    let written = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        written += chunk.byteLength;
        done(null, chunk);
      },
    });
    try {
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, count, createWriteStream(/*turbopackIgnore: true*/ temp, { flags: "wx" }));
      if (written !== opts.size) throw new Error(`storage put ${key}: got ${written} bytes, expected ${opts.size}`);
      await rename(/*turbopackIgnore: true*/ temp, path);
    } catch (error) {
      await rm(/*turbopackIgnore: true*/ temp, { force: true });
      throw error;
    }
  }

  /**
   * Opens a key's file, or null when there is none. Its size and date and the bytes `read` streams come from the same
   * open file: an object replaced meanwhile (a rename over the key) does not mix two objects. The caller either reads
   * (the stream closes the file when it ends or is destroyed) or calls `close`.
   */
  async openFile(key: string): Promise<{
    size: number;
    contentType: string;
    lastModified: Date;
    read(range?: { start: number; end: number }): Readable;
    close(): Promise<void>;
  } | null> {
    const path = this.pathOf(key);
    let handle;
    try {
      handle = await open(/*turbopackIgnore: true*/ path, "r");
    } catch (error) {
      if (isMissing(error) || (error as { code?: string }).code === "EISDIR") return null;
      throw error;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) {
        await handle.close();
        return null;
      }
      const opened = handle;
      return {
        size: info.size,
        contentType: contentTypeFor(key),
        lastModified: info.mtime,
        read: (range) => opened.createReadStream(range ? { start: range.start, end: range.end } : {}),
        close: () => opened.close(),
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async get(key: string, opts?: { range?: { start: number; end: number } }) {
    const file = await this.openFile(key);
    return file && { body: file.read(opts?.range), size: file.size, contentType: file.contentType };
  }

  async head(key: string) {
    try {
      const info = await stat(/*turbopackIgnore: true*/ this.pathOf(key));
      return info.isFile() ? { size: info.size, contentType: contentTypeFor(key), lastModified: info.mtime } : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(/*turbopackIgnore: true*/ this.pathOf(key));
    } catch (error) {
      // A directory (the key is a prefix of other keys) is not an object either.
      if (!isMissing(error) && (error as { code?: string }).code !== "EISDIR") throw error;
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObjectInfo> {
    const root = this.root();
    // Start at the deepest directory the prefix names, not at the root.
    const cut = prefix.lastIndexOf("/");
    const start = cut >= 0 ? prefix.slice(0, cut) : "";
    if (start && !isSafeKey(start)) return;
    yield* walk(root, start ? join(/*turbopackIgnore: true*/ root, start) : root, prefix);
  }

  async signedUrl(key: string, opts: { filename: string; contentType: string; expiresInSeconds?: number }) {
    checkKey(key);
    if (!isHeaderSafeType(opts.contentType)) throw new Error(`storage signedUrl: not a content type: ${JSON.stringify(opts.contentType)}`);
    const ttl = opts.expiresInSeconds ?? env().DOWNLOAD_URL_TTL_SECONDS;
    const exp = Math.floor(Date.now() / 1000) + ttl;
    // The name as it will come back from the query string (URL encoding turns a lone surrogate into U+FFFD).
    const name = Buffer.from(opts.filename, "utf8").toString("utf8");
    const sig = await signature(key, exp, name, opts.contentType);
    const query = new URLSearchParams({ exp: String(exp), name, type: opts.contentType, sig });
    const path = key.split("/").map(encodeURIComponent).join("/");
    return { url: `${env().BASE_URL}/api/files/${path}?${query.toString()}`, expiresAt: new Date(exp * 1000) };
  }
}

async function* walk(root: string, dir: string, prefix: string): AsyncGenerator<StoredObjectInfo> {
  let entries;
  try {
    entries = await readdir(/*turbopackIgnore: true*/ dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error) || (error as { code?: string }).code === "ENOTDIR") return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(/*turbopackIgnore: true*/ dir, entry.name);
    const key = relative(root, path).split(sep).join("/");
    // Temporary files (with '#') and anything else no key can name are not objects.
    if (!isSafeKey(key)) continue;
    if (entry.isDirectory()) {
      if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) yield* walk(root, path, prefix);
    } else if (entry.isFile() && key.startsWith(prefix)) {
      try {
        const info = await stat(/*turbopackIgnore: true*/ path);
        yield { key, size: info.size, lastModified: info.mtime };
      } catch (error) {
        if (!isMissing(error)) throw error; // deleted meanwhile
      }
    }
  }
}

function isMissing(error: unknown): boolean {
  return (error as { code?: string }).code === "ENOENT";
}

/**
 * The signature of a local download link: HMAC-SHA256 (storage URL secret) over the key, the expiry, the file name
 * and the type, in an unambiguous encoding (a JSON array), base64url.
 */
async function signature(key: string, exp: number, filename: string, contentType: string): Promise<string> {
  return createHmac("sha256", await storageUrlSecret())
    .update(JSON.stringify(["ilm-file-v1", key, exp, filename, contentType]))
    .digest("base64url");
}

/**
 * Checks a local download link's parameters: "valid", "expired" (signed by us, past `exp`) or "invalid" (missing,
 * malformed or not our signature). The signature is compared in constant time and checked before the expiry, so an
 * expired answer means the link really was ours.
 */
export async function verifyLocalSignature(
  key: string,
  params: { exp: string | null; name: string | null; type: string | null; sig: string | null },
  now = Date.now(),
): Promise<"valid" | "expired" | "invalid"> {
  const { exp, name, type, sig } = params;
  if (!exp || !/^\d{1,12}$/.test(exp) || name === null || type === null || !isHeaderSafeType(type) || !sig || !isSafeKey(key)) return "invalid";
  const expected = Buffer.from(await signature(key, Number(exp), name, type));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "invalid";
  return Number(exp) * 1000 < now ? "expired" : "valid";
}
