import type { Readable } from "node:stream";

/** One stored object as `list` reports it. */
export interface StoredObjectInfo {
  key: string;
  size: number;
  lastModified: Date;
}

/**
 * Where uploaded files live (product images, release artifacts): the local disk under UPLOAD_DIR, or an
 * S3-compatible bucket every instance shares. Keys are checked by the driver (see keys.ts): an unsafe key is a
 * `storage_key_invalid` (400) AppError, never a path outside the store.
 */
export interface ObjectStore {
  readonly driver: "local" | "s3";
  /**
   * Stores `size` bytes under `key`, replacing what was there. `body`: a Buffer, or a Readable (e.g.
   * fs.createReadStream(tempFile)) yielding exactly `size` bytes. Readers never see a half-written object: the
   * local driver writes a temporary file and renames it, S3 makes an object visible only once it is complete.
   */
  put(key: string, body: Buffer | Readable, opts: { size: number; contentType: string }): Promise<void>;
  /**
   * The object's bytes as a stream (the caller must consume or destroy it), or null when there is none. With `range`
   * (inclusive byte offsets within the object), only those bytes; `size` is still the whole object's.
   */
  get(key: string, opts?: { range?: { start: number; end: number } }): Promise<{ body: Readable; size: number; contentType: string } | null>;
  head(key: string): Promise<{ size: number; contentType: string; lastModified: Date } | null>;
  /** Deleting an absent key is not an error. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix` ("" for all), in no particular order. */
  list(prefix: string): AsyncIterable<StoredObjectInfo>;
  /**
   * An absolute URL serving the object as an attachment named `filename`, valid `expiresInSeconds`
   * (default DOWNLOAD_URL_TTL_SECONDS). S3: a presigned GET (ResponseContentDisposition/ResponseContentType).
   * local: `${BASE_URL}/api/files/<key>?exp=<unix s>&name=<filename>&type=<content type>&sig=<hmac>`.
   */
  signedUrl(key: string, opts: { filename: string; contentType: string; expiresInSeconds?: number }): Promise<{ url: string; expiresAt: Date }>;
}
