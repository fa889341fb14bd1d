import { Readable } from "node:stream";
import { AppError, notFound } from "../http/errors.ts";
import { objectStore, verifyLocalSignature } from "./index.ts";
import { attachmentDisposition, isSafeKey } from "./keys.ts";
import { LocalObjectStore } from "./local.ts";

/**
 * Serving the local driver's signed download links (/api/files/<key>?exp=&name=&type=&sig=). The link is the only
 * authority: no session, no cookie. It is refused unless our signature covers this key, expiry, file name and type
 * (403 download_link_invalid), and once it expired (410 download_link_expired). With the S3 driver links point at the
 * bucket and this path answers 404.
 */

/**
 * A single byte range of a `size`-byte object from a Range header (RFC 9110 §14.1.2): `bytes=a-b`, `bytes=a-` or
 * `bytes=-n`. null means "send the whole object": no header, another unit, a malformed value or several ranges (a
 * server may always ignore Range; clients that asked for several fall back to a whole download). "unsatisfiable" is
 * a range that starts past the end (416).
 */
export function parseRange(header: string | null, size: number): { start: number; end: number } | "unsatisfiable" | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null;
  const [first, last] = [m[1] ?? "", m[2] ?? ""];
  if (first === "") {
    // The last n bytes.
    const n = Number(last);
    if (n === 0) return "unsatisfiable";
    return size === 0 ? "unsatisfiable" : { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== "" && Number(last) < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end };
}

const linkInvalid = () =>
  new AppError(
    "download_link_invalid",
    403,
    "This download link is not valid. Ask for a new link where you got this one (your license page or the app).",
  );
const linkExpired = () =>
  new AppError(
    "download_link_expired",
    410,
    "This download link has expired. Ask for a new link where you got this one (your license page or the app).",
  );

/** Answers GET or HEAD for a signed local download link. */
export async function serveSignedFile(input: {
  key: string;
  url: URL;
  method: string;
  range: string | null;
  ifRange: string | null;
}): Promise<Response> {
  const local = objectStore();
  if (!(local instanceof LocalObjectStore)) throw notFound("file");
  const q = input.url.searchParams;
  const params = { exp: q.get("exp"), name: q.get("name"), type: q.get("type"), sig: q.get("sig") };
  if (!isSafeKey(input.key)) throw linkInvalid();
  const verdict = await verifyLocalSignature(input.key, params);
  if (verdict === "invalid") throw linkInvalid();
  if (verdict === "expired") throw linkExpired();
  const file = await local.openFile(input.key);
  if (!file) throw notFound("file", "The file of this download link is no longer stored.");
  const etag = `"${file.size.toString(16)}-${file.lastModified.getTime().toString(16)}"`;
  const headers: Record<string, string> = {
    "Content-Type": params.type ?? file.contentType,
    "Content-Disposition": attachmentDisposition(params.name ?? "download"),
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
    "Accept-Ranges": "bytes",
    "Last-Modified": file.lastModified.toUTCString(),
    ETag: etag,
  };
  // If-Range: a range of the object the client already has part of; if it changed since, the whole new one.
  const ifRange = input.ifRange;
  const sameObject = !ifRange || ifRange === etag || ifRange === headers["Last-Modified"];
  const range = sameObject ? parseRange(input.range, file.size) : null;
  if (range === "unsatisfiable") {
    await file.close();
    return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${String(file.size)}`, "Content-Length": "0" } });
  }
  const status = range ? 206 : 200;
  const length = range ? range.end - range.start + 1 : file.size;
  if (range) headers["Content-Range"] = `bytes ${String(range.start)}-${String(range.end)}/${String(file.size)}`;
  headers["Content-Length"] = String(length);
  if (input.method === "HEAD" || length === 0) {
    await file.close();
    return new Response(null, { status, headers });
  }
  return new Response(Readable.toWeb(file.read(range ?? undefined)) as ReadableStream<Uint8Array>, { status, headers });
}
