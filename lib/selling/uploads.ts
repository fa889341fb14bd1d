import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { z } from "zod";
import { getDb } from "../db.ts";
import { env } from "../env.ts";
import { AppError, type ProblemFieldError } from "../http/errors.ts";
import { stringList } from "../marketplace/serialize.ts";
import { getFromTarget } from "../seller-webhooks/target.ts";
import { objectStore, type StoredObjectInfo } from "../storage/index.ts";
import { siteImagePath } from "../urls.ts";
import { imageSize } from "./image-size.ts";

/**
 * Uploaded images (product icons and screenshots) live in the object store (lib/storage: UPLOAD_DIR on local disk, or
 * the S3 bucket every instance shares), each under a flat key that is also its public name, served at
 * /uploads/<name>. A name is `<owner>-<content hash>.<ext>`: the owner part (a hash of the seller's id) is what the
 * per-seller quota counts, the content hash makes a repeated upload the same object. Names without an owner part are
 * from before quotas and are still served.
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

/** The type an uploaded image is served with, from its name (null for a name that is no upload's). */
function typeOf(name: string): string | null {
  const m = NAME.exec(name);
  return TYPES.find((t) => t.ext === m?.[3])?.type ?? null;
}

/**
 * The stored uploads whose names start with `prefix` (release artifacts and anything else in the store are not
 * uploads). A seller's names share a prefix, so the quota lists only theirs.
 */
async function listUploads(prefix = ""): Promise<StoredObjectInfo[]> {
  const found: StoredObjectInfo[] = [];
  for await (const item of objectStore().list(prefix)) if (NAME.test(item.key)) found.push(item);
  return found;
}

/** Bytes a seller's uploads take now. */
export async function uploadUsage(developerId: string): Promise<number> {
  let total = 0;
  for (const item of await listUploads(`${ownerTag(developerId)}-`)) total += item.size;
  return total;
}

/**
 * Stores a seller's images (checked again here) and returns their public paths, or stores none: the seller's quota
 * (UPLOAD_QUOTA_MB) counts what is stored already plus the new files, a file already stored counting once.
 */
export async function saveUploads(developerId: string, files: Uint8Array[]): Promise<string[]> {
  const named = files.map((bytes) => {
    const kind = kindOf(bytes);
    const name = `${ownerTag(developerId)}-${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}.${kind.ext}`;
    return { bytes, name, type: kind.type };
  });
  const distinct = [...new Map(named.map((f) => [f.name, f])).values()];
  const stored = new Map((await listUploads(`${ownerTag(developerId)}-`)).map((item) => [item.key, item.size]));
  const added = distinct.filter((f) => !stored.has(f.name)).reduce((sum, f) => sum + f.bytes.byteLength, 0);
  const usage = [...stored.values()].reduce((sum, size) => sum + size, 0);
  const quota = env().UPLOAD_QUOTA_MB * 1024 * 1024;
  if (added > 0 && usage + added > quota) {
    throw new AppError(
      "upload_quota_exceeded",
      413,
      `Your uploaded images may take at most ${env().UPLOAD_QUOTA_MB} MB in all. Remove images from your products to make room.`,
    );
  }
  const store = objectStore();
  for (const f of distinct) {
    // An object already stored is the same bytes; storing it again renews its date, as touching the file did, so the
    // clean-up's grace period starts from this upload (an object store has no way to only change the date).
    const body = Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
    await store.put(f.name, body, { size: body.byteLength, contentType: f.type });
  }
  return named.map((f) => `/uploads/${f.name}`);
}

/** The most images one product form stores at once: its icon and its screenshots (productInputSchema's images). */
const MAX_IMAGES_PER_FORM = 7;

/** Image files as a form sends them (the dashboard's product form), each within the size limit. */
export const imageFilesInputSchema = z.object({
  files: z
    .array(
      z
        .file()
        .min(1, "The file is empty.")
        .max(MAX_UPLOAD_BYTES, `Images may be at most ${MAX_UPLOAD_BYTES / 1024} KiB.`),
    )
    .min(1)
    .max(MAX_IMAGES_PER_FORM)
    .describe("The icon first, then the screenshots, as chosen"),
});

/**
 * Stores the image files a form chose (saveUploads), each checked by its bytes first: files that are no image we take
 * are refused together, each named in the problem's errors (`files.<i>`), and then none is stored.
 */
export async function saveImageFiles(developerId: string, files: readonly File[]): Promise<string[]> {
  const bytes = await Promise.all(files.map(async (file) => new Uint8Array(await file.arrayBuffer())));
  const errors: ProblemFieldError[] = [];
  let first: AppError | undefined;
  bytes.forEach((b, i) => {
    try {
      kindOf(b);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      first ??= error;
      errors.push({ in: "body", name: `files.${String(i)}`, message: error.detail });
    }
  });
  if (first) throw new AppError(first.code, first.status, first.detail, { errors });
  return saveUploads(developerId, bytes);
}

/** How long fetching one image given by URL may take, redirects included. */
const IMAGE_FETCH_TIMEOUT_MS = 10_000;

/** Is this an image field's address on another site (fetched and stored) rather than one of this site's images? */
const isRemote = (value: string) => /^https?:\/\//i.test(value) && siteImagePath(value) === null;

/**
 * A product's images with every one given by http(s) URL replaced by the path of its stored copy: each distinct URL is
 * fetched once, server-side (getFromTarget: the webhook SSRF rules, WEBHOOK_ALLOW_PRIVATE included, at most
 * MAX_UPLOAD_BYTES read, IMAGE_FETCH_TIMEOUT_MS), its bytes checked as an upload's, and all of them stored together
 * (saveUploads: the seller's quota, content-hash names). So no product keeps another site's address, and no page of
 * ours makes a visitor's browser contact it. A URL that cannot be fetched (400 `image_fetch_failed`), is no image we
 * take (415 `upload_type`, 400 `upload_empty`), is too large (413 `upload_too_large`) or would break the quota (413
 * `upload_quota_exceeded`) refuses the lot, each such field named in the problem's `errors` (`icon_url`,
 * `images.<i>`), and then nothing is stored.
 */
export async function storeImagesByUrl<T extends { icon_url: string; images: string[] }>(developerId: string, input: T): Promise<T> {
  const fields = [{ name: "icon_url", value: input.icon_url }, ...input.images.map((value, i) => ({ name: `images.${String(i)}`, value }))].filter(
    (f) => isRemote(f.value),
  );
  // This site's own image given as a full URL is kept as its path.
  const own = (value: string) => siteImagePath(value) ?? value;
  if (fields.length === 0) return { ...input, icon_url: own(input.icon_url), images: input.images.map(own) };
  const urls = [...new Set(fields.map((f) => f.value))];
  const fetched = new Map<string, Uint8Array | AppError>(
    await Promise.all(
      urls.map(async (url): Promise<[string, Uint8Array | AppError]> => {
        const got = await getFromTarget(url, {
          timeoutMs: IMAGE_FETCH_TIMEOUT_MS,
          maxBytes: MAX_UPLOAD_BYTES,
          accept: TYPES.map((t) => t.type).join(", "),
          what: "image URL",
        });
        if (!got.ok) {
          if (got.reason === "too_large")
            return [url, new AppError("upload_too_large", 413, `Images may be at most ${MAX_UPLOAD_BYTES / 1024} KiB.`)];
          const detail = got.reason === "refused" ? got.error : `Could not fetch the image at ${url}: ${got.error}.`;
          return [url, new AppError("image_fetch_failed", 400, detail)];
        }
        try {
          kindOf(got.bytes);
          return [url, got.bytes];
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return [url, error];
        }
      }),
    ),
  );
  const errors: ProblemFieldError[] = [];
  let first: AppError | undefined;
  for (const f of fields) {
    const got = fetched.get(f.value);
    if (got instanceof AppError) {
      first ??= got;
      errors.push({ in: "body", name: f.name, message: got.detail });
    }
  }
  if (first) throw new AppError(first.code, first.status, first.detail, { errors });
  const list = urls.map((url) => fetched.get(url) as Uint8Array);
  let paths: string[];
  try {
    paths = await saveUploads(developerId, list);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new AppError(error.code, error.status, error.detail, {
      errors: fields.map((f) => ({ in: "body", name: f.name, message: error.detail })),
    });
  }
  const stored = new Map(urls.map((url, i) => [url, paths[i] as string]));
  const local = (value: string) => stored.get(value) ?? own(value);
  return { ...input, icon_url: local(input.icon_url), images: input.images.map(local) };
}

/** One image, stored for a seller (see saveUploads). */
export async function saveUpload(bytes: Uint8Array, developerId: string): Promise<string> {
  const [path] = await saveUploads(developerId, [bytes]);
  if (!path) throw new Error("saveUploads returned no path");
  return path;
}

/** An uploaded image as a stream (for /uploads/<name>), or null when the name is no upload's or nothing is stored. */
export async function openUpload(name: string): Promise<{ body: Readable; size: number; type: string } | null> {
  const type = typeOf(name);
  if (!type) return null;
  const found = await objectStore().get(name);
  return found && { body: found.body, size: found.size, type };
}

/** The file name of an uploaded image's public path, or null for anything else (a URL, a bundled /icons/ image). */
function uploadName(path: string): string | null {
  const m = PUBLIC_PATH.exec(path);
  return m?.[1] && NAME.test(m[1]) ? m[1] : null;
}

/** The smallest icon the product form asks for ("Square, at least 128 × 128 pixels"), in pixels each way. */
const ICON_MIN_PX = 128;

/**
 * Holds an uploaded icon to ICON_MIN_PX each way, read from the stored image's header: 400 `icon_too_small` naming
 * the size read (field icon_url). Anything that is not an upload (the demo catalogue's bundled icons) is not checked.
 */
export async function assertIconSize(iconPath: string): Promise<void> {
  const name = uploadName(iconPath);
  if (!name) return;
  const found = await objectStore().get(name);
  if (!found) return;
  const chunks: Buffer[] = [];
  for await (const chunk of found.body) chunks.push(Buffer.from(chunk as Uint8Array));
  const size = imageSize(new Uint8Array(Buffer.concat(chunks)));
  if (size && size.width >= ICON_MIN_PX && size.height >= ICON_MIN_PX) return;
  const message = size
    ? `The icon is ${size.width} × ${size.height} pixels; it must be at least ${ICON_MIN_PX} × ${ICON_MIN_PX}.`
    : `The icon's size could not be read from the image; use a PNG, JPEG, WebP or GIF of at least ${ICON_MIN_PX} × ${ICON_MIN_PX} pixels.`;
  throw new AppError("icon_too_small", 400, message, { errors: [{ in: "body", name: "icon_url", message }] });
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
  const store = objectStore();
  let removed = 0;
  for (const name of new Set(names)) {
    if (referenced.has(name)) continue;
    // Gone already (another instance removed it): nothing to count.
    if (!(await store.head(name))) continue;
    await store.delete(name);
    removed++;
  }
  return removed;
}

/**
 * Removes uploaded files no product refers to and that are older than the grace period: a form refused after its
 * files were stored, an edit whose clean-up failed. Files younger than the grace period are left alone, because a
 * form on this or another instance sharing the store may be about to save a product that uses them.
 */
export async function sweepUploads(graceMs = UPLOAD_GRACE_MS, now = Date.now()): Promise<number> {
  const uploads = await listUploads();
  if (uploads.length === 0) return 0;
  const referenced = await referencedUploads();
  const store = objectStore();
  let removed = 0;
  for (const item of uploads) {
    if (referenced.has(item.key) || now - item.lastModified.getTime() < graceMs) continue;
    // Stored again since the listing (saveUploads renews the date): a form may be about to use it.
    const current = await store.head(item.key);
    if (!current || now - current.lastModified.getTime() < graceMs) continue;
    await store.delete(item.key);
    removed++;
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
