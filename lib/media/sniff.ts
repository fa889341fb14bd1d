import { AppError } from "../http/errors.ts";
import { imageSize } from "../selling/image-size.ts";
import {
  COVER_MAX_RATIO,
  COVER_MIN_HEIGHT,
  COVER_MIN_RATIO,
  COVER_MIN_WIDTH,
  COVER_RULE,
  IMAGE_MAX_SIDE,
  IMAGE_MIN_HEIGHT,
  IMAGE_MIN_WIDTH,
  MEDIA_RULES,
  type MediaKind,
} from "./limits.ts";

/** What a file's bytes say it is. */
export interface Sniffed {
  contentType: string;
  ext: string;
  width: number | null;
  height: number | null;
  durationMs: number | null;
}

const ascii = (b: Uint8Array, from: number, to: number) => Buffer.from(b.subarray(from, to)).toString("latin1");
const startsWith = (b: Uint8Array, bytes: number[]) => b.byteLength >= bytes.length && bytes.every((x, i) => b[i] === x);

/** WAV: the duration from the format chunk's byte rate and the data chunk's size (null when the chunks are odd). */
function wavDurationMs(b: Uint8Array): number | null {
  const v = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  let i = 12;
  let byteRate = 0;
  while (i + 8 <= v.length) {
    const id = ascii(b, i, i + 4);
    const size = v.readUInt32LE(i + 4);
    if (id === "fmt " && i + 16 <= v.length) byteRate = v.readUInt32LE(i + 16);
    if (id === "data") return byteRate > 0 ? Math.round((Math.min(size, v.length - i - 8) / byteRate) * 1000) : null;
    i += 8 + size + (size % 2);
  }
  return null;
}

const refuseType = (kind: MediaKind) =>
  new AppError(
    "media_type",
    415,
    `A ${kind === "cover" ? "cover" : kind} must be a ${MEDIA_RULES[kind].typeWords} file (recognised by its content).`,
  );

/**
 * The type of an uploaded media file, recognised by its bytes (not its name or declared type), with an image's size
 * and a WAV file's duration; refuses a file that is not one the kind takes (415 `media_type`), an empty one (400
 * `media_empty`), one too large (413 `media_too_large`) and an image of the wrong size (422 `media_dimensions`).
 */
export function sniffMedia(kind: MediaKind, b: Uint8Array): Sniffed {
  const rule = MEDIA_RULES[kind];
  if (b.byteLength === 0) throw new AppError("media_empty", 400, "The file is empty.");
  if (b.byteLength > rule.maxBytes) throw tooLarge(kind);
  let found: Sniffed | null = null;
  const size = imageSize(b);
  const image = (contentType: string, ext: string): Sniffed | null =>
    size ? { contentType, ext, width: size.width, height: size.height, durationMs: null } : null;
  const timed = (contentType: string, ext: string, durationMs: number | null = null): Sniffed => ({
    contentType,
    ext,
    width: null,
    height: null,
    durationMs,
  });
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) found = image("image/png", "png");
  else if (startsWith(b, [0xff, 0xd8, 0xff])) found = image("image/jpeg", "jpg");
  else if (ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP") found = image("image/webp", "webp");
  else if (ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WAVE") found = timed("audio/wav", "wav", wavDurationMs(b));
  else if (ascii(b, 0, 4) === "OggS") found = timed("audio/ogg", "ogg");
  else if (ascii(b, 0, 3) === "ID3" || (b.byteLength > 2 && b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0 && ((b[1] ?? 0) & 0x06) !== 0))
    found = timed("audio/mpeg", "mp3");
  else if (ascii(b, 4, 8) === "ftyp") found = kind === "audio" ? timed("audio/mp4", "m4a") : timed("video/mp4", "mp4");
  else if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) found = timed("video/webm", "webm");
  if (!found || !rule.types.includes(found.contentType)) throw refuseType(kind);
  if (found.width !== null && found.height !== null) checkDimensions(kind, found.width, found.height);
  return found;
}

export const tooLarge = (kind: MediaKind) =>
  new AppError("media_too_large", 413, `A ${kind} file may be at most ${String(MEDIA_RULES[kind].maxBytes / (1024 * 1024))} MiB.`);

function checkDimensions(kind: MediaKind, width: number, height: number): void {
  const size = `${String(width)} × ${String(height)}`;
  if (width < 1 || height < 1 || width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE)
    throw new AppError("media_dimensions", 422, `This image is ${size} pixels; images may be at most ${String(IMAGE_MAX_SIDE)} pixels a side.`);
  if (kind === "cover") {
    const ratio = width / height;
    if (width < COVER_MIN_WIDTH || height < COVER_MIN_HEIGHT || ratio < COVER_MIN_RATIO || ratio > COVER_MAX_RATIO)
      throw new AppError("media_dimensions", 422, `This image is ${size} pixels; a cover must be ${COVER_RULE}.`);
  } else if (width < IMAGE_MIN_WIDTH || height < IMAGE_MIN_HEIGHT) {
    throw new AppError(
      "media_dimensions",
      422,
      `This image is ${size} pixels; a screenshot must be at least ${String(IMAGE_MIN_WIDTH)} × ${String(IMAGE_MIN_HEIGHT)} pixels.`,
    );
  }
}
