import { Readable } from "node:stream";
import { notFound } from "../http/errors.ts";
import { objectStore } from "../storage/index.ts";
import { parseRange } from "../storage/serve.ts";
import { signedInSellerEmail } from "../auth/sign-in.ts";
import { listedMediaFile, ownedMediaFile } from "./read.ts";

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
