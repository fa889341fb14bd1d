import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { getDb } from "../db.ts";
import { env } from "../env.ts";
import { AppError } from "../http/errors.ts";
import { stringList } from "../marketplace/serialize.ts";

/**
 * Uploaded images (product icons and screenshots) live on local disk under UPLOAD_DIR (default ./data/uploads), which
 * several instances may share. A file is named `<owner>-<content hash>.<ext>`: the owner part (a hash of the seller's
 * id) is what the per-seller quota counts, the content hash makes a repeated upload the same file. Names without an
 * owner part are from before quotas and are still served.
 */
export const MAX_UPLOAD_BYTES = 512 * 1024;
/** An upload nothing references is removed once it is this old (a form being filled in elsewhere may be about to use it). */
const UPLOAD_GRACE_MS = 60 * 60 * 1000;

const TYPES = [
  { ext: "png", type: "image/png", magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { ext: "jpg", type: "image/jpeg", magic: [0xff, 0xd8, 0xff] },
  { ext: "webp", type: "image/webp", magic: [0x52, 0x49, 0x46, 0x46] },
  { ext: "gif", type: "image/gif", magic: [0x47, 0x49, 0x46, 0x38] },
] as const;
type Kind = (typeof TYPES)[number];

const NAME = /^(?:([a-f0-9]{12})-)?([a-f0-9]{32})\.(png|jpg|webp|gif)$/;
const PUBLIC_PATH = /^\/uploads\/([^/]+)$/;

// The directory comes from the environment at run time: nothing for the bundler to trace (turbopackIgnore below).
const dir = () => env().UPLOAD_DIR;
const pathOf = (name: string) => join(/*turbopackIgnore: true*/ dir(), name);

/** The owner part of a seller's file names. */
function ownerTag(developerId: string): string {
  return createHash("sha256").update(`upload-owner:${developerId}`).digest("hex").slice(0, 12);
}

/**
 * The kind of an image, recognised by its bytes (not the name or the declared type), after the size checks. Only
 * PNG, JPEG, WebP and GIF; SVG is refused because it can carry script.
 */
function kindOf(bytes: Uint8Array): Kind {
  if (bytes.byteLength === 0) throw new AppError("upload_empty", 400, "The file is empty.");
  if (bytes.byteLength > MAX_UPLOAD_BYTES) throw new AppError("upload_too_large", 413, `Images may be at most ${MAX_UPLOAD_BYTES / 1024} KiB.`);
  const kind = TYPES.find((t) => bytes.byteLength > t.magic.length && t.magic.every((b, i) => bytes[i] === b));
  const latin1 = (from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString("latin1");
  if (!kind || (kind.ext === "webp" && latin1(8, 12) !== "WEBP") || (kind.ext === "gif" && !["GIF87a", "GIF89a"].includes(latin1(0, 6)))) {
    throw new AppError("upload_type", 415, "Upload a PNG, JPEG, WebP or GIF image.");
  }
  return kind;
}

/** Checks an image without storing it: the form checks every file before it stores any. */
export function checkUpload(bytes: Uint8Array): void {
  kindOf(bytes);
}

function nameFor(bytes: Uint8Array, developerId: string): string {
  return `${ownerTag(developerId)}-${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}.${kindOf(bytes).ext}`;
}

async function listNames(): Promise<string[]> {
  try {
    return (await readdir(/*turbopackIgnore: true*/ dir())).filter((n) => NAME.test(n));
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return [];
    throw error;
  }
}

async function sizeOf(name: string): Promise<number | null> {
  try {
    return (await stat(pathOf(name))).size;
  } catch {
    return null;
  }
}

/** Bytes a seller's uploads take now. */
export async function uploadUsage(developerId: string): Promise<number> {
  const prefix = `${ownerTag(developerId)}-`;
  let total = 0;
  for (const name of await listNames()) if (name.startsWith(prefix)) total += (await sizeOf(name)) ?? 0;
  return total;
}

/**
 * Stores a seller's images (checked again here) and returns their public paths, or stores none: the seller's quota
 * (UPLOAD_QUOTA_MB) counts what is stored already plus the new files, a file already stored counting once.
 */
export async function saveUploads(developerId: string, files: Uint8Array[]): Promise<string[]> {
  const named = files.map((bytes) => ({ bytes, name: nameFor(bytes, developerId) }));
  let added = 0;
  const seen = new Set<string>();
  for (const f of named) {
    if (seen.has(f.name)) continue;
    seen.add(f.name);
    if ((await sizeOf(f.name)) === null) added += f.bytes.byteLength;
  }
  const quota = env().UPLOAD_QUOTA_MB * 1024 * 1024;
  if (added > 0 && (await uploadUsage(developerId)) + added > quota) {
    throw new AppError(
      "upload_quota_exceeded",
      413,
      `Your uploaded images may take at most ${env().UPLOAD_QUOTA_MB} MB in all. Remove images from your products, or link images hosted elsewhere.`,
    );
  }
  await mkdir(/*turbopackIgnore: true*/ dir(), { recursive: true });
  const now = new Date();
  for (const f of named) {
    // An existing file is the same bytes: touching it keeps the clean-up's grace period from starting too early.
    if ((await sizeOf(f.name)) === null) await writeFile(pathOf(f.name), f.bytes);
    else await utimes(pathOf(f.name), now, now).catch(() => undefined);
  }
  return named.map((f) => `/uploads/${f.name}`);
}

/** One image, stored for a seller (see saveUploads). */
export async function saveUpload(bytes: Uint8Array, developerId: string): Promise<string> {
  const [path] = await saveUploads(developerId, [bytes]);
  if (!path) throw new Error("saveUploads returned no path");
  return path;
}

export async function readUpload(name: string): Promise<{ bytes: Buffer; type: string } | null> {
  const m = NAME.exec(name);
  if (!m) return null;
  try {
    const bytes = await readFile(pathOf(name));
    const kind = TYPES.find((t) => t.ext === m[3]);
    if (!kind) return null;
    return { bytes, type: kind.type };
  } catch {
    return null;
  }
}

/** The file name of an uploaded image's public path, or null for anything else (a URL, a bundled /icons/ image). */
function uploadName(path: string): string | null {
  const m = PUBLIC_PATH.exec(path);
  return m?.[1] && NAME.test(m[1]) ? m[1] : null;
}

/** Every uploaded file some product refers to (its icon or a screenshot). */
async function referencedUploads(): Promise<Set<string>> {
  const rows = await getDb().product.findMany({ select: { iconUrl: true, images: true } });
  const names = new Set<string>();
  for (const row of rows) {
    for (const path of [row.iconUrl, ...stringList(row.images)]) {
      const name = uploadName(path);
      if (name) names.add(name);
    }
  }
  return names;
}

/** The product image paths among `before` that `after` no longer has. */
export function droppedUploads(before: string[], after: string[]): string[] {
  const kept = new Set(after);
  return [...new Set(before)].filter((p) => !kept.has(p) && uploadName(p) !== null);
}

/**
 * Deletes uploaded files a product stopped using (an icon or screenshot replaced or removed), unless another product
 * still refers to them. Best effort: a file left behind is removed by the sweep.
 */
export async function releaseUploads(paths: string[]): Promise<number> {
  const names = paths.map(uploadName).filter((n): n is string => n !== null);
  if (names.length === 0) return 0;
  const referenced = await referencedUploads();
  let removed = 0;
  for (const name of new Set(names)) {
    if (referenced.has(name)) continue;
    try {
      await unlink(pathOf(name));
      removed++;
    } catch {
      // Gone already (another instance removed it).
    }
  }
  return removed;
}

/**
 * Removes uploaded files no product refers to and that are older than the grace period: a form refused after its
 * files were stored, an edit whose clean-up failed. Files younger than the grace period are left alone, because a
 * form on this or another instance sharing UPLOAD_DIR may be about to save a product that uses them.
 */
export async function sweepUploads(graceMs = UPLOAD_GRACE_MS, now = Date.now()): Promise<number> {
  const names = await listNames();
  if (names.length === 0) return 0;
  const referenced = await referencedUploads();
  let removed = 0;
  for (const name of names) {
    if (referenced.has(name)) continue;
    try {
      if (now - (await stat(pathOf(name))).mtimeMs < graceMs) continue;
      await unlink(pathOf(name));
      removed++;
    } catch {
      // Removed meanwhile by another instance.
    }
  }
  return removed;
}

const SWEEP_KEY = Symbol.for("indie-license-market.upload-sweep");
const g = globalThis as unknown as Record<symbol, NodeJS.Timeout | undefined>;

/**
 * Sweeps unreferenced uploads now and then every `everyMs` (once per process; the timer never keeps it alive).
 * Returns the function that stops it.
 */
export function startUploadSweep(everyMs = UPLOAD_GRACE_MS): () => void {
  const stop = () => {
    clearInterval(g[SWEEP_KEY]);
    g[SWEEP_KEY] = undefined;
  };
  if (g[SWEEP_KEY]) return stop;
  const run = () => {
    sweepUploads().catch((error: unknown) => {
      console.error("upload sweep failed", error);
    });
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  g[SWEEP_KEY] = timer;
  return stop;
}
