import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";

/**
 * electron-builder's blockmap of a file, for tests: the format builder-util-runtime declares (`BlockMap`: version "2",
 * one file named "file" at offset 0 with its chunks' `checksums` and `sizes`), gzipped as electron-updater reads it.
 * app-builder (app-builder-bin, the Go tool electron-builder runs) is not installed here and builder-util-runtime ships
 * only the format's types, so the chunks are cut the way app-builder cuts them in kind: content-defined (a rolling
 * gear hash picks the boundaries, so an edit moves only the chunks around it), 2–32 KiB, about 8 KiB on average,
 * each named by a truncated BLAKE2b-512 digest. electron-updater only compares checksums and sizes.
 */

const GEAR = Array.from({ length: 256 }, (_, i) => createHash("sha256").update(`gear:${i}`).digest().readUInt32LE(0));
const MIN = 2 * 1024;
const MAX = 32 * 1024;
const MASK = (1 << 13) - 1;

/** The chunk sizes of `bytes`, cut where the gear hash's low 13 bits are zero (between MIN and MAX bytes). */
function chunkSizes(bytes: Buffer): number[] {
  const sizes: number[] = [];
  let start = 0;
  let hash = 0;
  for (let i = 0; i < bytes.length; i++) {
    hash = ((hash << 1) + (GEAR[bytes[i] ?? 0] ?? 0)) >>> 0;
    const length = i - start + 1;
    if ((length >= MIN && (hash & MASK) === 0) || length >= MAX) {
      sizes.push(length);
      start = i + 1;
      hash = 0;
    }
  }
  if (start < bytes.length) sizes.push(bytes.length - start);
  return sizes;
}

/** The blockmap JSON of `bytes`. */
export function blockmapOf(bytes: Buffer): { version: "2"; files: Array<{ name: string; offset: number; checksums: string[]; sizes: number[] }> } {
  const sizes = chunkSizes(bytes);
  const checksums: string[] = [];
  let at = 0;
  for (const size of sizes) {
    checksums.push(
      createHash("blake2b512")
        .update(bytes.subarray(at, at + size))
        .digest()
        .subarray(0, 18)
        .toString("base64"),
    );
    at += size;
  }
  return { version: "2", files: [{ name: "file", offset: 0, checksums, sizes }] };
}

/** The `.blockmap` file of `bytes`: its blockmap as gzipped JSON. */
export function blockmapFile(bytes: Buffer): Buffer {
  return gzipSync(JSON.stringify(blockmapOf(bytes)));
}
