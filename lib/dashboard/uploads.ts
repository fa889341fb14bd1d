import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { env } from "../env.ts";
import { AppError } from "../http/errors.ts";

/** Uploaded images (product icons and screenshots) live on local disk under UPLOAD_DIR (default ./data/uploads). */
export const MAX_UPLOAD_BYTES = 512 * 1024;
const TYPES = [
  { ext: "png", type: "image/png", magic: [0x89, 0x50, 0x4e, 0x47] },
  { ext: "jpg", type: "image/jpeg", magic: [0xff, 0xd8, 0xff] },
  { ext: "webp", type: "image/webp", magic: [0x52, 0x49, 0x46, 0x46] },
] as const;

// The directory comes from the environment at run time: nothing for the bundler to trace (turbopackIgnore below).
const dir = () => env().UPLOAD_DIR;

/**
 * Stores an image under its content hash and returns its public path. Only PNG, JPEG and WebP, recognised by their
 * bytes (not the name or the declared type); SVG is refused because it can carry script.
 */
export async function saveUpload(bytes: Uint8Array): Promise<string> {
  if (bytes.byteLength === 0) throw new AppError("upload_empty", 400, "The file is empty.");
  if (bytes.byteLength > MAX_UPLOAD_BYTES) throw new AppError("upload_too_large", 413, `Images may be at most ${MAX_UPLOAD_BYTES / 1024} KiB.`);
  const kind = TYPES.find((t) => t.magic.every((b, i) => bytes[i] === b));
  if (!kind || (kind.ext === "webp" && Buffer.from(bytes.subarray(8, 12)).toString("latin1") !== "WEBP")) {
    throw new AppError("upload_type", 415, "Upload a PNG, JPEG or WebP image.");
  }
  const name = `${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}.${kind.ext}`;
  await mkdir(/*turbopackIgnore: true*/ dir(), { recursive: true });
  await writeFile(join(/*turbopackIgnore: true*/ dir(), name), bytes);
  return `/uploads/${name}`;
}

export async function readUpload(name: string): Promise<{ bytes: Buffer; type: string } | null> {
  const m = /^([a-f0-9]{32})\.(png|jpg|webp)$/.exec(name);
  if (!m) return null;
  try {
    const bytes = await readFile(join(/*turbopackIgnore: true*/ dir(), name));
    const kind = TYPES.find((t) => t.ext === m[2]);
    if (!kind) return null;
    return { bytes, type: kind.type };
  } catch {
    return null;
  }
}
