import fc from "fast-check";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { imageSize } from "@/lib/selling/image-size";

/** A real image of the given size and format, encoded by sharp (libvips), so the reader is checked against an encoder it did not write. */
async function encoded(format: "png" | "jpeg" | "webp" | "gif", width: number, height: number, options: { lossless?: boolean } = {}) {
  const img = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } });
  const out = format === "webp" ? img.webp({ lossless: options.lossless ?? false }) : img.toFormat(format);
  return new Uint8Array(await out.toBuffer());
}

describe("imageSize reads the pixel size from the header", () => {
  it.each([
    ["png", 128, 128],
    ["png", 1, 4000],
    ["jpeg", 127, 300],
    ["jpeg", 2048, 16],
    ["webp", 129, 64],
    ["gif", 640, 129],
  ] as const)("%s %i × %i", async (format, width, height) => {
    expect(imageSize(await encoded(format, width, height))).toEqual({ width, height });
  });

  it("lossless WebP (VP8L) and extended WebP (VP8X, with alpha)", async () => {
    expect(imageSize(await encoded("webp", 300, 17, { lossless: true }))).toEqual({ width: 300, height: 17 });
    const alpha = await sharp({ create: { width: 200, height: 130, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } })
      .webp()
      .toBuffer();
    expect(imageSize(new Uint8Array(alpha))).toEqual({ width: 200, height: 130 });
  });

  it("a JPEG whose frame header comes after EXIF and other segments", async () => {
    const bytes = await sharp({ create: { width: 150, height: 90, channels: 3, background: "#123456" } })
      .jpeg()
      .withMetadata({ exif: { IFD0: { Copyright: "x".repeat(2000) } } })
      .toBuffer();
    expect(imageSize(new Uint8Array(bytes))).toEqual({ width: 150, height: 90 });
  });

  it("any size sharp can encode as PNG, JPEG and WebP (and GIF) is read back exactly (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("png" as const, "jpeg" as const, "webp" as const, "gif" as const),
        fc.integer({ min: 1, max: 900 }),
        fc.integer({ min: 1, max: 900 }),
        async (format, width, height) => {
          expect(imageSize(await encoded(format, width, height))).toEqual({ width, height });
        },
      ),
      { numRuns: 20 },
    );
  });

  it("null for anything else, and never throws on arbitrary or truncated bytes (property)", async () => {
    expect(imageSize(new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>"))).toBeNull();
    expect(imageSize(new Uint8Array())).toBeNull();
    const png = await encoded("png", 256, 256);
    expect(imageSize(png.subarray(0, 20))).toBeNull();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const size = imageSize(bytes);
        expect(size === null || (Number.isInteger(size.width) && Number.isInteger(size.height))).toBe(true);
      }),
    );
    const jpeg = await encoded("jpeg", 300, 300);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: jpeg.length }), (cut) => {
        const size = imageSize(jpeg.subarray(0, cut));
        expect(size === null || (size.width === 300 && size.height === 300)).toBe(true);
      }),
    );
  });
});
