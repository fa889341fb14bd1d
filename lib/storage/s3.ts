import type { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import type { Env } from "../env.ts";
import { attachmentDisposition, checkKey, contentTypeFor, isHeaderSafeType } from "./keys.ts";
import type { ObjectStore, StoredObjectInfo } from "./types.ts";

/** The settings the S3 driver reads (a subset of Env, so tests can build one directly). */
export type S3Settings = Pick<
  Env,
  | "S3_BUCKET"
  | "S3_REGION"
  | "S3_ENDPOINT"
  | "S3_FORCE_PATH_STYLE"
  | "S3_ACCESS_KEY_ID"
  | "S3_SECRET_ACCESS_KEY"
  | "S3_PREFIX"
  | "DOWNLOAD_URL_TTL_SECONDS"
>;

/**
 * The S3 driver (AWS S3, Cloudflare R2, MinIO and other S3-compatible services): every instance shares the bucket.
 * Keys are stored under S3_PREFIX. The SDK is loaded on first use, so a deployment on the local driver never loads it.
 */
export class S3ObjectStore implements ObjectStore {
  readonly driver = "s3" as const;
  private readonly bucket: string;
  private readonly prefix: string;
  private clientPromise: Promise<S3Client> | undefined;

  constructor(
    private readonly settings: S3Settings,
    /** Keys per ListObjectsV2 page (S3's maximum is 1000; tests use a small page to exercise pagination). */
    private readonly listPageSize = 1000,
  ) {
    if (!settings.S3_BUCKET) throw new Error("STORAGE_DRIVER=s3 needs S3_BUCKET");
    this.bucket = settings.S3_BUCKET;
    this.prefix = settings.S3_PREFIX;
  }

  private client(): Promise<S3Client> {
    this.clientPromise ??= (async () => {
      const { S3Client } = await import("@aws-sdk/client-s3");
      const s = this.settings;
      return new S3Client({
        region: s.S3_REGION,
        ...(s.S3_ENDPOINT ? { endpoint: s.S3_ENDPOINT } : {}),
        forcePathStyle: s.S3_FORCE_PATH_STYLE === "on",
        ...(s.S3_ACCESS_KEY_ID && s.S3_SECRET_ACCESS_KEY
          ? { credentials: { accessKeyId: s.S3_ACCESS_KEY_ID, secretAccessKey: s.S3_SECRET_ACCESS_KEY } }
          : {}),
        // Since 3.729 the SDK adds CRC32 checksums to every upload and validates them on downloads by default.
        // Cloudflare R2, MinIO releases and most other S3-compatible servers reject or mangle those (R2 refuses
        // PutObject with x-amz-checksum-* on streaming bodies; multipart and presigned URLs break elsewhere), so
        // checksums are only sent and checked where an operation requires them, as before.
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
      });
    })();
    return this.clientPromise;
  }

  private full(key: string): string {
    return this.prefix + checkKey(key);
  }

  async put(key: string, body: Buffer | Readable, opts: { size: number; contentType: string }): Promise<void> {
    const { PutObjectCommand } = await import("@aws-sdk/client-s3");
    const client = await this.client();
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: this.full(key),
      Body: body,
      ContentLength: opts.size,
      ContentType: opts.contentType,
    });
    // A body of known length goes up in one PutObject (no multipart, no chunked encoding): S3 makes the object
    // visible only once all of it arrived, and refuses a body shorter or longer than ContentLength.
    if (Buffer.isBuffer(body)) {
      await client.send(command);
      return;
    }
    // The SDK pipes a stream into the request, and a pipe does not pass errors on: a body that fails (an upload cut
    // short, a size limit) would leave the request waiting for bytes that never come. Abort it with the body's error.
    const abort = new AbortController();
    let failure: unknown;
    const onError = (error: unknown) => {
      failure ??= error;
      abort.abort(error);
    };
    body.once("error", onError);
    try {
      await client.send(command, { abortSignal: abort.signal });
      body.off("error", onError);
    } catch (error) {
      // The request failed (the body's error, or the connection's own: a reset, a refusal) and nothing reads the
      // body any more: release it, and keep a listener so an error it raises later cannot go unhandled.
      body.off("error", onError);
      body.on("error", () => {});
      body.destroy();
      throw failure ?? error;
    }
  }

  async get(key: string, opts?: { range?: { start: number; end: number } }) {
    const { GetObjectCommand } = await import("@aws-sdk/client-s3");
    const client = await this.client();
    const range = opts?.range;
    try {
      const out = await client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.full(key),
          ...(range ? { Range: `bytes=${String(range.start)}-${String(range.end)}` } : {}),
        }),
      );
      if (!out.Body) return null;
      // A ranged answer's length is the range's; the whole object's size is in Content-Range (`bytes a-b/size`).
      const total = range ? Number(/\/(\d+)$/.exec(out.ContentRange ?? "")?.[1] ?? Number.NaN) : Number.NaN;
      return {
        body: out.Body as Readable,
        size: Number.isFinite(total) ? total : (out.ContentLength ?? 0),
        contentType: out.ContentType ?? contentTypeFor(key),
      };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async head(key: string) {
    const { HeadObjectCommand } = await import("@aws-sdk/client-s3");
    const client = await this.client();
    try {
      const out = await client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.full(key) }));
      return { size: out.ContentLength ?? 0, contentType: out.ContentType ?? contentTypeFor(key), lastModified: out.LastModified ?? new Date(0) };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const { DeleteObjectCommand } = await import("@aws-sdk/client-s3");
    const client = await this.client();
    try {
      await client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.full(key) }));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObjectInfo> {
    const { ListObjectsV2Command } = await import("@aws-sdk/client-s3");
    const client = await this.client();
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, MaxKeys: this.listPageSize, ContinuationToken: token }),
      );
      for (const item of page.Contents ?? []) {
        if (!item.Key?.startsWith(this.prefix)) continue;
        yield { key: item.Key.slice(this.prefix.length), size: item.Size ?? 0, lastModified: item.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async signedUrl(key: string, opts: { filename: string; contentType: string; expiresInSeconds?: number }) {
    const [{ GetObjectCommand }, { getSignedUrl }] = await Promise.all([import("@aws-sdk/client-s3"), import("@aws-sdk/s3-request-presigner")]);
    if (!isHeaderSafeType(opts.contentType)) throw new Error(`storage signedUrl: not a content type: ${JSON.stringify(opts.contentType)}`);
    const client = await this.client();
    const expiresIn = opts.expiresInSeconds ?? this.settings.DOWNLOAD_URL_TTL_SECONDS;
    const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 + expiresIn * 1000);
    const url = await getSignedUrl(
      client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.full(key),
        ResponseContentDisposition: attachmentDisposition(opts.filename),
        ResponseContentType: opts.contentType,
        ResponseCacheControl: "private, no-store",
      }),
      { expiresIn },
    );
    return { url, expiresAt };
  }

  /** Closes the client's connections (tests; a server keeps its store for its lifetime). */
  async close(): Promise<void> {
    if (this.clientPromise) (await this.clientPromise).destroy();
    this.clientPromise = undefined;
  }
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404;
}
