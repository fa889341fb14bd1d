import { Readable } from "node:stream";
import { notFound } from "../http/errors.ts";
import { objectStore } from "../storage/index.ts";
import { parseRange } from "../storage/serve.ts";
import { signedInSellerEmail } from "../auth/sign-in.ts";
import { listedMediaFile, listedPicture, ownedMediaFile, ownedPicture } from "./read.ts";
import { MEDIA_VARIANT_WIDTH, variantHash, variantKey } from "./variant.ts";

/**
 * Answers GET or HEAD for /uploads/media/<name>: a listed product's media file from the object store, with single
 * byte ranges (206 with Content-Range; 416 past the end; anything else the whole file, as a server may), so audio
 * and video players seek. The name is the content's hash: cached for good (`immutable`), ETag the hash. A product
 * that is not listed (unlisted, removed, suspended, a draft) has its media answer 404 like an unknown name, except
 * to its own seller signed in to the dashboard (`cookie`): their preview and Media section show it, and the answer
 * is private to them (`private, no-store`: no shared cache keeps a file nobody else may see).
 */
export async function serveMedia(input: {
  name: string;
  method: string;
  range: string | null;
  ifRange: string | null;
  cookie: string | null;
}): Promise<Response> {
  const hash = variantHash(input.name);
  if (hash) return serveVariant(hash, input);
  const listed = await listedMediaFile(input.name);
  const seller = listed ? null : await signedInSellerEmail(input.cookie);
  const file = listed ?? (seller ? await ownedMediaFile(input.name, seller) : null);
  if (!file) throw notFound("media", "No listed product shows this file.");
  const etag = `"${input.name.slice(0, input.name.indexOf("."))}"`;
  const headers: Record<string, string> = {
    "Content-Type": file.contentType,
    "Cache-Control": listed ? "public, max-age=31536000, immutable" : "private, no-store",
    "X-Content-Type-Options": "nosniff",
    "Accept-Ranges": "bytes",
    ETag: etag,
  };
  // If-Range names another version: the whole file (a content-addressed name never changes, so this is rare).
  const range = !input.ifRange || input.ifRange === etag ? parseRange(input.range, file.size) : null;
  if (range === "unsatisfiable") {
    return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${String(file.size)}`, "Content-Length": "0" } });
  }
  const status = range ? 206 : 200;
  const length = range ? range.end - range.start + 1 : file.size;
  if (range) headers["Content-Range"] = `bytes ${String(range.start)}-${String(range.end)}/${String(file.size)}`;
  headers["Content-Length"] = String(length);
  if (input.method === "HEAD" || length === 0) return new Response(null, { status, headers });
  const found = await objectStore().get(file.key, range ? { range } : undefined);
  if (!found) throw notFound("media", "This file is no longer stored.");
  return new Response(Readable.toWeb(found.body) as ReadableStream<Uint8Array>, { status, headers });
}

/** Readable to bytes (a narrow copy is small: tens of KB). */
async function bytesOf(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/**
 * The original, at most MEDIA_VARIANT_WIDTH wide, as WebP; null when it cannot be made (sharp's native build missing
 * on this platform, or a file it cannot decode): the caller then answers with the original itself.
 */
async function shrink(original: Buffer): Promise<Buffer | null> {
  try {
    const { default: sharp } = await import("sharp");
    return await sharp(original, { limitInputPixels: 50_000_000 })
      .rotate()
      .resize({ width: MEDIA_VARIANT_WIDTH, withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
  } catch (error) {
    console.error("media: could not make a narrow copy", error instanceof Error ? error.message : error);
    return null;
  }
}

/** Copies being made in this process, by key: requests that arrive meanwhile wait for the same one (one decode). */
const making = new Map<string, Promise<Buffer | null>>();
/** Copies this process could not make (a file sharp cannot decode): not tried again on every request. */
const cannotMake = new Set<string>();

/** Makes and stores the narrow copy of the original at `originalKey`; null when it cannot be made. */
function makeVariant(originalKey: string, key: string): Promise<Buffer | null> {
  if (cannotMake.has(key)) return Promise.resolve(null);
  const pending = making.get(key);
  if (pending) return pending;
  const made = (async () => {
    const store = objectStore();
    const source = await store.get(originalKey);
    if (!source) throw notFound("media", "This file is no longer stored.");
    const bytes = await shrink(await bytesOf(source.body));
    if (bytes) await store.put(key, bytes, { size: bytes.byteLength, contentType: "image/webp" });
    else cannotMake.add(key);
    return bytes;
  })().finally(() => making.delete(key));
  making.set(key, made);
  return made;
}

/**
 * /uploads/media/<hash>-w640.webp (lib/media/variant.ts): the narrow copy of a picture, under the original's rule
 * (a listed product's, or the signed-in seller's own), made from the original on its first request and kept in the
 * object store; the same bytes every time (requests arriving while it is made wait for it; another instance racing
 * this one writes the same bytes). Always the whole file: a picture this small is not read in ranges. Where no copy
 * can be made, the original is the answer.
 */
async function serveVariant(hash: string, input: { method: string; cookie: string | null }): Promise<Response> {
  const listed = await listedPicture(hash);
  const seller = listed ? null : await signedInSellerEmail(input.cookie);
  const original = listed ?? (seller ? await ownedPicture(hash, seller) : null);
  if (!original) throw notFound("media", "No listed product shows this file.");
  const key = variantKey(hash);
  const stored = await objectStore().get(key);
  let bytes = stored ? await bytesOf(stored.body) : null;
  if (!bytes) {
    bytes = await makeVariant(original.key, key);
    if (!bytes) {
      const name = original.key.slice(original.key.indexOf("/") + 1);
      return serveMedia({ name, method: input.method, range: null, ifRange: null, cookie: input.cookie });
    }
  }
  const headers: Record<string, string> = {
    "Content-Type": "image/webp",
    "Cache-Control": listed ? "public, max-age=31536000, immutable" : "private, no-store",
    "X-Content-Type-Options": "nosniff",
    ETag: `"${hash}-w${String(MEDIA_VARIANT_WIDTH)}"`,
    "Content-Length": String(bytes.byteLength),
  };
  if (input.method === "HEAD") return new Response(null, { status: 200, headers });
  return new Response(new Uint8Array(bytes), { status: 200, headers });
}
