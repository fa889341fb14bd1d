import { AppError } from "../http/errors.ts";

/**
 * What an object key may be, checked by every driver before it touches the disk or the bucket: one to 1024
 * characters of `A–Z a–z 0–9 . _ / -`, segments separated by single slashes, no leading or trailing slash, no `..`
 * anywhere and no `.` segment. On the local driver a key is a path below UPLOAD_DIR, so this is what keeps a key
 * from naming any other file; on S3 it keeps keys portable between providers (and between the two drivers).
 */
const KEY = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;
const MAX_KEY_LENGTH = 1024;
/** A file name on common file systems (the local driver stores each segment as one). */
const MAX_SEGMENT_LENGTH = 255;

/** Whether `key` is a safe object key (see above). */
export function isSafeKey(key: string): boolean {
  return (
    key.length > 0 &&
    key.length <= MAX_KEY_LENGTH &&
    KEY.test(key) &&
    !key.includes("..") &&
    key.split("/").every((segment) => segment !== "." && segment.length <= MAX_SEGMENT_LENGTH)
  );
}

/** Throws `storage_key_invalid` (400) unless `key` is safe. */
export function checkKey(key: string): string {
  if (!isSafeKey(key)) {
    throw new AppError(
      "storage_key_invalid",
      400,
      "A stored file's name may only use letters, digits, '.', '_', '-' and '/' between segments, without '..', at most 1024 characters.",
    );
  }
  return key;
}

/** Whether `prefix` may start keys: empty, or a safe key optionally ending in "/". */
export function isSafePrefix(prefix: string): boolean {
  return prefix === "" || isSafeKey(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix);
}

/** The type the local driver serves a key with when nothing else says it: from the extension. */
const TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  zip: "application/zip",
  gz: "application/gzip",
  tgz: "application/gzip",
  dmg: "application/x-apple-diskimage",
  pkg: "application/octet-stream",
  exe: "application/vnd.microsoft.portable-executable",
  msi: "application/x-msi",
  deb: "application/vnd.debian.binary-package",
  rpm: "application/x-rpm",
  appimage: "application/octet-stream",
  json: "application/json",
  yml: "text/yaml",
  yaml: "text/yaml",
  txt: "text/plain",
  sig: "application/octet-stream",
};

export function contentTypeFor(key: string): string {
  const dot = key.lastIndexOf(".");
  const ext = dot >= 0 && dot > key.lastIndexOf("/") ? key.slice(dot + 1).toLowerCase() : "";
  return TYPES[ext] ?? "application/octet-stream";
}

/**
 * A Content-Disposition that makes a browser save the response as `filename`: an ASCII fallback for old clients and
 * the exact name in RFC 8187 encoding (`filename*=UTF-8''…`). Quotes, backslashes and control characters never reach
 * the header.
 */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%]/g, "_").trim() || "download";
  // Percent-encodes the UTF-8 bytes (a lone surrogate becomes U+FFFD instead of throwing, as encodeURIComponent would).
  let encoded = "";
  for (const byte of Buffer.from(filename, "utf8")) {
    const c = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9!#$&+.^_`|~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded || "download"}`;
}

/** Whether `type` can go into a Content-Type header as it is: a type/subtype with optional parameters, printable ASCII. */
export function isHeaderSafeType(type: string): boolean {
  return type.length <= 200 && /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(?:\s*;[\x20-\x7e]*)?$/.test(type);
}
