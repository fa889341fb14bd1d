import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { getDb } from "../db.ts";
import { getSellerProduct } from "../selling/products.ts";
import { env } from "../env.ts";
import { AppError } from "../http/errors.ts";
import { objectStore } from "../storage/index.ts";
import { isPlatform, isPluginFormat, PLATFORMS, PLUGIN_FORMATS, type Platform, type PluginFormat } from "./platforms.ts";
import { artifactView, type ArtifactView, type ReleaseWithArtifacts } from "./read.ts";
import { findSellerRelease, releaseNotDraft } from "./manage.ts";
import { artifactBytesUsed, artifactQuotaBytes, artifactQuotaExceeded, checkArtifactQuota, checkArtifactQuotaLocked } from "./quota.ts";
import { signArtifactFile } from "./sign.ts";

/**
 * Release artifacts come in as a stream (the PUT body, or a dashboard form's file) and end up as an object in the
 * store plus an Artifact row, or as nothing at all:
 * 1. everything knowable before the body is checked first (product ownership, the release is a draft without an
 *    file of this type for this platform and format, platform, format, filename, Content-Length against ARTIFACT_MAX_MB,
 *    and the seller's stored files plus Content-Length against ARTIFACT_QUOTA_MB: 413 `artifact_quota_exceeded`,
 *    quota.ts), so a refusal reads none of the body and creates no temporary file;
 * 2. the body streams to a temporary file while it is counted and hashed; past ARTIFACT_MAX_MB the upload is refused
 *    at once (413 `artifact_too_large`), past the room left in the seller's quota likewise (413
 *    `artifact_quota_exceeded`); the rest is never read and the temporary file is deleted;
 * 3. the bytes are checked: not empty, the magic bytes of the file's type, the caller's X-Checksum-SHA256;
 * 4. the file is hashed and signed with the service key (sign.ts), stored under
 *    `artifacts/<productId>/<24 random hex>/<filename>`, and only then is the row written, in a transaction that
 *    re-checks that the release is still a draft and, with the seller's row locked, that the file still fits the quota
 *    (racing uploads of any of the seller's products). If the row can't be written (a racing upload of the same
 *    platform, format and file type: 409 `artifact_exists`; the release was published or deleted meanwhile; the quota
 *    was filled meanwhile: 413 `artifact_quota_exceeded`) the object is deleted again.
 * A process dying between storing the object and writing its row leaves an object without a row: the artifact sweep
 * (sweepOrphanArtifacts) removes such objects once they are older than a grace period.
 */

export interface IngestInput {
  platform: string;
  /** "" or omitted: an application; otherwise a plugin format. */
  format?: string | null;
  filename: string;
  stream: ReadableStream<Uint8Array> | Readable;
  /** The declared length (Content-Length), when known: a larger one is refused before reading. */
  contentLength: number | null;
  /** Hex SHA-256 the caller computed (X-Checksum-SHA256): a mismatch is 422 `artifact_checksum_mismatch`. */
  expectedSha256?: string;
}

export const FILENAME_MAX_CHARS = 120;

type Kind = { ext: string; contentType: string; magic: (head: Buffer, tail: () => Promise<Buffer>) => Promise<boolean> | boolean };

const startsWith = (bytes: number[]) => (head: Buffer) => head.length >= bytes.length && bytes.every((b, i) => head[i] === b);
const ZIP = (head: Buffer) => startsWith([0x50, 0x4b, 0x03, 0x04])(head) || startsWith([0x50, 0x4b, 0x05, 0x06])(head);
const GZIP = startsWith([0x1f, 0x8b]);

/** File types by extension (longest first, so ".tar.gz" wins over a plain extension), with their magic bytes. */
const KINDS: Kind[] = [
  { ext: ".tar.gz", contentType: "application/gzip", magic: GZIP },
  { ext: ".tgz", contentType: "application/gzip", magic: GZIP },
  { ext: ".zip", contentType: "application/zip", magic: ZIP },
  { ext: ".exe", contentType: "application/vnd.microsoft.portable-executable", magic: startsWith([0x4d, 0x5a]) },
  { ext: ".msi", contentType: "application/x-msi", magic: startsWith([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]) },
  // A UDIF disk image ends with a 512-byte "koly" trailer.
  {
    ext: ".dmg",
    contentType: "application/x-apple-diskimage",
    magic: async (_h, tail) => (await tail()).subarray(0, 4).toString("latin1") === "koly",
  },
  { ext: ".pkg", contentType: "application/octet-stream", magic: startsWith([0x78, 0x61, 0x72, 0x21]) },
  { ext: ".appimage", contentType: "application/vnd.appimage", magic: startsWith([0x7f, 0x45, 0x4c, 0x46]) },
  { ext: ".deb", contentType: "application/vnd.debian.binary-package", magic: startsWith([...Buffer.from("!<arch>\n")]) },
  { ext: ".rpm", contentType: "application/x-rpm", magic: startsWith([0xed, 0xab, 0xee, 0xdb]) },
];

type Os = "windows" | "macos" | "linux";
const osOf = (p: Platform): Os => p.split("-")[0] as Os;

/** Which file types an artifact may be, by operating system, for an application and for a plugin format. */
const ALLOWED: Record<"app" | "plugin", Record<Os, string[]>> = {
  app: {
    windows: [".exe", ".msi", ".zip"],
    macos: [".dmg", ".pkg", ".zip", ".tar.gz", ".tgz"],
    linux: [".appimage", ".deb", ".rpm", ".tar.gz", ".tgz", ".zip"],
  },
  plugin: {
    windows: [".zip", ".exe", ".msi"],
    macos: [".zip", ".pkg", ".dmg"],
    linux: [".zip", ".tar.gz", ".tgz", ".deb"],
  },
};

/** Audio Units exist on macOS only. */
const FORMAT_OS: Record<PluginFormat, Os[]> = {
  vst3: ["windows", "macos", "linux"],
  au: ["macos"],
  aax: ["windows", "macos"],
  clap: ["windows", "macos", "linux"],
};

/** The artifact rules as text, for API descriptions and the README. */
function allowedExtensions(platform: Platform, format: PluginFormat | null): string[] {
  return ALLOWED[format ? "plugin" : "app"][osOf(platform)];
}

const FILENAME = /^[A-Za-z0-9._ +()-]+$/;

/** The product category whose products are audio plugins: the only one whose artifacts may carry a plugin format. */
const PLUGIN_CATEGORY = "audio-plugins";

/**
 * Names Windows reserves for devices, whatever the extension and case ("CON.exe", "nul.tar.gz", "Com1.dll"): a
 * buyer's Windows can't save such a file. Windows ignores trailing dots and spaces of the part before the extension,
 * so "CON .exe" is reserved too.
 */
const RESERVED_WINDOWS_NAME = /^(CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])$/i;
const isReservedWindowsName = (filename: string): boolean => RESERVED_WINDOWS_NAME.test((filename.split(".")[0] ?? "").replace(/[. ]+$/, ""));

/**
 * Checks an artifact's platform, format and filename; returns the file type. 400 problems name the field.
 * `product.category` decides whether plugin formats are allowed (PLUGIN_CATEGORY only).
 */
export function checkArtifactName(
  platform: string,
  format: string | null | undefined,
  filename: string,
  product: { category: string },
): { platform: Platform; format: PluginFormat | null; kind: Kind } {
  const bad = (code: string, name: string, detail: string) => new AppError(code, 400, detail, { errors: [{ in: "query", name, message: detail }] });
  if (!isPlatform(platform)) throw bad("invalid_platform", "platform", `platform must be one of ${PLATFORMS.join(", ")}.`);
  const fmt = format ? format : null;
  if (fmt !== null && !isPluginFormat(fmt))
    throw bad("invalid_format", "format", `format must be empty (an application) or one of ${PLUGIN_FORMATS.join(", ")}.`);
  if (fmt && product.category !== PLUGIN_CATEGORY)
    throw bad(
      "invalid_format",
      "format",
      `Plugin formats are for products in the ${PLUGIN_CATEGORY} category; this product is an application: leave format empty.`,
    );
  if (fmt && !FORMAT_OS[fmt].includes(osOf(platform))) throw bad("invalid_format", "format", `${fmt} plugins do not exist for ${platform}.`);
  const name = filename;
  const refuse = (detail: string) => bad("invalid_filename", "filename", detail);
  if (name.length < 1 || name.length > FILENAME_MAX_CHARS) throw refuse(`A filename has 1 to ${FILENAME_MAX_CHARS} characters.`);
  if (!FILENAME.test(name))
    throw refuse("A filename may only use letters, digits, spaces and . _ + - ( ) — no path separators or control characters.");
  if (name.startsWith(".") || name.includes("..")) throw refuse('A filename may not start with "." or contain "..".');
  if (name !== name.trim()) throw refuse("A filename may not start or end with a space.");
  if (isReservedWindowsName(name))
    throw refuse(
      `"${name}" uses a name Windows reserves for devices (CON, PRN, AUX, NUL, COM0–COM9, LPT0–LPT9, with any extension): rename the file.`,
    );
  const lower = name.toLowerCase();
  const allowed = allowedExtensions(platform, fmt);
  const kind = KINDS.find((k) => lower.endsWith(k.ext) && lower.length > k.ext.length);
  if (!kind || !allowed.includes(kind.ext)) {
    throw refuse(`A ${fmt ? `${fmt} plugin` : "application"} for ${platform} is one of: ${allowed.join(", ")}.`);
  }
  return { platform, format: fmt, kind };
}

/** The store key of an artifact: its own random folder, and a filename reduced to the characters keys allow. */
function artifactKey(productId: string, filename: string): string {
  const safe = filename.replace(/[^A-Za-z0-9._-]/g, "_");
  return `artifacts/${productId}/${randomBytes(12).toString("hex")}/${safe}`;
}

const maxBytes = () => env().ARTIFACT_MAX_MB * 1024 * 1024;
const tooLarge = () =>
  new AppError("artifact_too_large", 413, `An artifact may be at most ${env().ARTIFACT_MAX_MB} MB (ARTIFACT_MAX_MB); the upload was stopped.`);

/** The body's chunks. Stops reading when the consumer stops, without destroying the source (the answer still goes out on it). */
async function* chunksOf(stream: ReadableStream<Uint8Array> | Readable): AsyncGenerator<Uint8Array> {
  if (stream instanceof Readable) {
    yield* stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>;
    return;
  }
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Streams the body into `path`, refusing past the limit (with `over`); returns its size, first bytes and hex SHA-256. */
async function receive(
  stream: ReadableStream<Uint8Array> | Readable,
  path: string,
  limit: number,
  over: () => AppError,
): Promise<{ size: number; head: Buffer; sha256: string }> {
  const file = await open(path, "wx", 0o600);
  const hash = createHash("sha256");
  let size = 0;
  let head = Buffer.alloc(0);
  let writing = false;
  try {
    for await (const chunk of chunksOf(stream)) {
      size += chunk.byteLength;
      if (size > limit) throw over();
      if (head.length < 16) head = Buffer.concat([head, Buffer.from(chunk.subarray(0, 16 - head.length))]);
      hash.update(chunk);
      writing = true;
      await file.write(chunk);
      writing = false;
    }
  } catch (error) {
    // Our own refusal, or our disk failing (a 500), pass; the client's stream breaking off is the client's doing.
    if (error instanceof AppError || writing) throw error;
    throw new AppError("upload_incomplete", 400, "The upload was interrupted before the whole file arrived.");
  } finally {
    await file.close();
  }
  return { size, head, sha256: hash.digest("hex") };
}

async function lastBytes(path: string, size: number, count: number): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    const n = Math.min(count, size);
    const buf = Buffer.alloc(n);
    await file.read(buf, 0, n, size - n);
    return buf;
  } finally {
    await file.close();
  }
}

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === "P2002";

function expectedChecksum(input: IngestInput): string | undefined {
  const expected = input.expectedSha256?.trim().toLowerCase();
  if (expected !== undefined && !/^[0-9a-f]{64}$/.test(expected)) {
    throw new AppError("invalid_checksum", 400, "X-Checksum-SHA256 must be the 64 hex digits of the file's SHA-256.", {
      errors: [{ in: "header", name: "X-Checksum-SHA256", message: "64 hex digits" }],
    });
  }
  return expected;
}

/**
 * Stores one artifact of a draft release (see above); the answer is the stored artifact. A file named
 * `<artifact's filename>.blockmap` is that artifact's electron-builder blockmap instead (ingestBlockmap).
 */
export async function ingestArtifact(developerId: string, productId: string, version: string, input: IngestInput): Promise<ArtifactView> {
  const product = await getSellerProduct(developerId, productId);
  const release = await findSellerRelease(productId, version);
  if (release.status !== "draft") throw releaseNotDraft(release.version);
  if (BLOCKMAP_SUFFIX.test(input.filename)) return ingestBlockmap(developerId, product, release, input);
  const { platform, format, kind } = checkArtifactName(input.platform, input.format, input.filename, product);
  const expected = expectedChecksum(input);
  const db = getDb();
  const fileType = fileTypeOf(kind.ext);
  if (await db.artifact.findFirst({ where: { releaseId: release.id, platform, format: format ?? "", fileType }, select: { id: true } })) {
    throw artifactExists(release.version, platform, format, fileType);
  }
  const max = maxBytes();
  if (input.contentLength !== null && input.contentLength > max) throw tooLarge();
  // The quota, before a byte is read: a declared length must fit what is left; without one, something must be left.
  const used = await artifactBytesUsed(developerId);
  checkArtifactQuota(used, input.contentLength ?? 1);
  // While the body streams in, the smaller of ARTIFACT_MAX_MB and the room left stops it, with its own refusal.
  const room = artifactQuotaBytes() - used;
  const limit = Math.min(room, max);
  const over = room < max ? () => artifactQuotaExceeded(used, null) : tooLarge;

  const temp = join(tmpdir(), `ilm-artifact-${randomBytes(12).toString("hex")}.part`);
  try {
    const received = await receive(input.stream, temp, limit, over);
    if (received.size === 0) throw new AppError("artifact_empty", 400, "The uploaded file is empty.");
    if (!(await kind.magic(received.head, () => lastBytes(temp, received.size, 512)))) {
      throw new AppError("artifact_content_mismatch", 415, `The file's content is not a ${kind.ext} file (its first bytes do not match the type).`);
    }
    if (expected !== undefined && expected !== received.sha256) {
      throw new AppError(
        "artifact_checksum_mismatch",
        422,
        `The file's SHA-256 is ${received.sha256}, not the X-Checksum-SHA256 given; nothing was stored.`,
      );
    }
    const signed = await signArtifactFile(temp, input.filename);
    const key = artifactKey(productId, input.filename);
    const store = objectStore();
    await store.put(key, createReadStream(temp), { size: received.size, contentType: kind.contentType });
    try {
      const row = await db.$transaction(async (tx) => {
        // Locks the release row (PostgreSQL) so a publish or delete waits for this insert, and re-checks it is a draft.
        const touched = await tx.release.updateMany({ where: { id: release.id, status: "draft" }, data: { updatedAt: new Date() } });
        if (touched.count === 0) {
          const now = await tx.release.findUnique({ where: { id: release.id }, select: { version: true } });
          throw now ? releaseNotDraft(now.version) : new AppError("release_not_found", 404, "The release was deleted during the upload.");
        }
        // Counted again with the real size, the seller's row locked: racing uploads cannot together pass the quota.
        await checkArtifactQuotaLocked(tx, developerId, received.size);
        return tx.artifact.create({
          data: {
            releaseId: release.id,
            platform,
            format: format ?? "",
            fileType,
            filename: input.filename,
            contentType: kind.contentType,
            size: received.size,
            sha256: signed.sha256,
            sha512: signed.sha512,
            signature: signed.signature,
            minisign: signed.minisign,
            keyId: signed.keyId,
            storageKey: key,
          },
        });
      });
      return artifactView(row);
    } catch (error) {
      await store.delete(key).catch((e: unknown) => console.error("artifact clean-up failed; the sweep will remove", key, e));
      if (isUniqueViolation(error)) throw artifactExists(release.version, platform, format, fileType);
      throw error;
    }
  } finally {
    await rm(temp, { force: true });
  }
}

/** The suffix electron-builder gives a file's blockmap ("Setup-1.2.0.exe.blockmap"). */
const BLOCKMAP_SUFFIX = /\.blockmap$/i;
/** A blockmap is about 0.1 % of its file; this bound keeps a stray upload from being read as one. */
const BLOCKMAP_MAX_BYTES = 16 * 1024 * 1024;

/** electron-builder's blockmap (builder-util-runtime's BlockMap): gzipped JSON of content-defined chunks. */
const blockmapSchema = z.object({
  version: z.enum(["1", "2"]),
  files: z
    .array(
      z.object({
        name: z.string(),
        offset: z.number().int().nonnegative(),
        checksums: z.array(z.string()),
        sizes: z.array(z.number().int().positive()),
      }),
    )
    .min(1),
});

/** 422 `invalid_blockmap` unless `bytes` is a gzipped blockmap whose chunks add up to exactly the file's `size`. */
function checkBlockmap(bytes: Buffer, size: number, filename: string): void {
  const refuse = (why: string) =>
    new AppError(
      "invalid_blockmap",
      422,
      `This is not the blockmap of ${filename}: ${why} Upload the .blockmap electron-builder made with the file.`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(gunzipSync(bytes, { maxOutputLength: 8 * BLOCKMAP_MAX_BYTES }).toString("utf8"));
  } catch {
    throw refuse("it is not gzipped JSON.");
  }
  const map = blockmapSchema.safeParse(parsed);
  if (!map.success) throw refuse("it lacks electron-builder's {version, files: [{name, offset, checksums, sizes}]}.");
  let end = 0;
  for (const f of map.data.files) {
    if (f.checksums.length !== f.sizes.length) throw refuse(`file "${f.name}" has ${f.checksums.length} checksums for ${f.sizes.length} blocks.`);
    end = Math.max(end, f.offset + f.sizes.reduce((a, b) => a + b, 0));
  }
  if (end !== size) throw refuse(`its blocks cover ${end} bytes, the file has ${size}.`);
}

/**
 * Stores `<filename>.blockmap` as the blockmap of the draft's artifact `<filename>` (same platform and format), so
 * electron-updater downloads only the blocks that changed (feeds serve it at the artifact's URL + ".blockmap").
 * Refusals: 409 `blockmap_without_file` when the file it describes is not uploaded yet, 409 `artifact_exists` when that
 * file already has one, 413 past BLOCKMAP_MAX_BYTES or the quota, 415 when it is not gzip, 422 `invalid_blockmap`
 * when it is not a blockmap of that file (its blocks must add up to the file's size).
 */
async function ingestBlockmap(
  developerId: string,
  product: { id: string; category: string },
  release: ReleaseWithArtifacts,
  input: IngestInput,
): Promise<ArtifactView> {
  const described = input.filename.replace(BLOCKMAP_SUFFIX, "");
  const { platform, format } = checkArtifactName(input.platform, input.format, described, product);
  const expected = expectedChecksum(input);
  const artifact = release.artifacts.find((a) => a.platform === platform && a.format === (format ?? "") && a.filename === described);
  if (!artifact) {
    throw new AppError(
      "blockmap_without_file",
      409,
      `Release ${release.version} has no ${described} for ${platform}${format ? ` (${format})` : ""}: upload the file before its blockmap.`,
    );
  }
  const exists = () =>
    new AppError("artifact_exists", 409, `${described} already has a blockmap: delete the file and upload both again to replace it.`);
  if (artifact.blockmapKey) throw exists();
  const tooBig = () => new AppError("artifact_too_large", 413, `A blockmap may be at most ${BLOCKMAP_MAX_BYTES / 1024 / 1024} MB.`);
  if (input.contentLength !== null && input.contentLength > BLOCKMAP_MAX_BYTES) throw tooBig();
  const used = await artifactBytesUsed(developerId);
  checkArtifactQuota(used, input.contentLength ?? 1);
  const room = artifactQuotaBytes() - used;
  const limit = Math.min(room, BLOCKMAP_MAX_BYTES);
  const over = room < BLOCKMAP_MAX_BYTES ? () => artifactQuotaExceeded(used, null) : tooBig;
  const temp = join(tmpdir(), `ilm-blockmap-${randomBytes(12).toString("hex")}.part`);
  try {
    const received = await receive(input.stream, temp, limit, over);
    if (received.size === 0) throw new AppError("artifact_empty", 400, "The uploaded file is empty.");
    if (!GZIP(received.head)) throw new AppError("artifact_content_mismatch", 415, "A .blockmap file is gzip (its first bytes do not match).");
    if (expected !== undefined && expected !== received.sha256) {
      throw new AppError(
        "artifact_checksum_mismatch",
        422,
        `The file's SHA-256 is ${received.sha256}, not the X-Checksum-SHA256 given; nothing was stored.`,
      );
    }
    const bytes = await readFile(temp);
    checkBlockmap(bytes, artifact.size, described);
    const key = artifactKey(product.id, input.filename);
    const store = objectStore();
    await store.put(key, createReadStream(temp), { size: received.size, contentType: "application/octet-stream" });
    try {
      const row = await getDb().$transaction(async (tx) => {
        const touched = await tx.release.updateMany({ where: { id: release.id, status: "draft" }, data: { updatedAt: new Date() } });
        if (touched.count === 0) throw releaseNotDraft(release.version);
        await checkArtifactQuotaLocked(tx, developerId, received.size);
        const set = await tx.artifact.updateMany({
          where: { id: artifact.id, blockmapKey: null },
          data: { blockmapKey: key, blockmapSize: received.size },
        });
        if (set.count === 0) throw exists();
        return tx.artifact.findUniqueOrThrow({ where: { id: artifact.id } });
      });
      return artifactView(row);
    } catch (error) {
      await store.delete(key).catch((e: unknown) => console.error("blockmap clean-up failed; the sweep will remove", key, e));
      throw error;
    }
  } finally {
    await rm(temp, { force: true });
  }
}

const artifactExists = (version: string, platform: string, format: string | null, fileType: string) =>
  new AppError(
    "artifact_exists",
    409,
    `Release ${version} already has a .${fileType} ${format ? `${format} plugin` : "file"} for ${platform}: delete it first to replace it.`,
  );

/**
 * The file type an extension stands for (".tgz" is ".tar.gz"). A release holds one file of each type per platform and
 * format, so a seller can ship a .dmg to install and the .zip electron-updater and Sparkle update from, or Tauri's
 * .app.tar.gz, side by side.
 */
function fileTypeOf(ext: string): string {
  const bare = ext.replace(/^\./, "").toLowerCase();
  return bare === "tgz" ? "tar.gz" : bare;
}

/** An artifact object nobody wrote a row for is removed once it is this old. */
const ARTIFACT_GRACE_MS = 60 * 60 * 1000;

/**
 * Deletes objects under `artifacts/` older than `graceMs` that no Artifact row refers to: left by a process that died
 * between storing an upload and writing its row, or a clean-up that failed. Younger objects may belong to an upload
 * that is about to write its row. Returns how many were deleted.
 */
export async function sweepOrphanArtifacts(graceMs = ARTIFACT_GRACE_MS, now = Date.now()): Promise<number> {
  const store = objectStore();
  const old: string[] = [];
  for await (const item of store.list("artifacts/")) {
    if (now - item.lastModified.getTime() >= graceMs) old.push(item.key);
  }
  let removed = 0;
  for (let i = 0; i < old.length; i += 500) {
    const batch = old.slice(i, i + 500);
    const rows = await getDb().artifact.findMany({
      where: { OR: [{ storageKey: { in: batch } }, { blockmapKey: { in: batch } }] },
      select: { storageKey: true, blockmapKey: true },
    });
    const known = new Set(rows.flatMap((r) => [r.storageKey, r.blockmapKey ?? ""]));
    for (const key of batch) {
      if (known.has(key)) continue;
      await store.delete(key);
      removed++;
    }
  }
  return removed;
}

const SWEEP_KEY = Symbol.for("indie-license-market.artifact-sweep");
const g = globalThis as unknown as Record<symbol, NodeJS.Timeout | undefined>;

/**
 * Sweeps orphan artifact objects now and then every `everyMs` (once per process; the timer never keeps it alive).
 * Returns the function that stops it.
 */
export function startArtifactSweep(everyMs = 15 * 60 * 1000): () => void {
  const stop = () => {
    clearInterval(g[SWEEP_KEY]);
    g[SWEEP_KEY] = undefined;
  };
  if (g[SWEEP_KEY]) return stop;
  const run = () => {
    sweepOrphanArtifacts().catch((error: unknown) => {
      console.error("artifact sweep failed", error);
    });
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  g[SWEEP_KEY] = timer;
  return stop;
}
