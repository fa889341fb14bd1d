/**
 * The narrow copy of an uploaded picture (a cover or a screenshot): a WebP at most MEDIA_VARIANT_WIDTH pixels wide,
 * for the places that show a picture small (a card in a four-column listing, a gallery thumbnail 64 px high), so a
 * browser that needs no more than that does not fetch the original (up to 4 MiB). Served at
 * /uploads/media/<content hash>-w<width>.webp under the same rule as the original (lib/media/serve.ts), made on its
 * first request and kept in the object store. A `srcset` offers both; the browser picks by the width it shows.
 */
export const MEDIA_VARIANT_WIDTH = 640;

const ORIGINAL_PATH = /^\/uploads\/media\/([a-f0-9]{32})\.(?:png|jpg|webp)$/;

/** A narrow copy's public name, `<content hash>-w640.webp`: its hash, or null for any other name. */
export function variantHash(name: string): string | null {
  const match = new RegExp(`^([a-f0-9]{32})-w${String(MEDIA_VARIANT_WIDTH)}\\.webp$`).exec(name);
  return match?.[1] ?? null;
}

/** The object store key of a narrow copy. */
export const variantKey = (hash: string): string => `media/${hash}-w${String(MEDIA_VARIANT_WIDTH)}.webp`;

/** The narrow copy's key of an original's key (`media/<hash>.<png|jpg|webp>`), or null when it is not a picture. */
export function variantKeyOf(originalKey: string): string | null {
  const match = /^media\/([a-f0-9]{32})\.(?:png|jpg|webp)$/.exec(originalKey);
  return match?.[1] ? variantKey(match[1]) : null;
}

/**
 * A picture's `srcset`: the narrow copy and the original, each with its width; undefined when the original is no
 * wider than the copy would be (the original alone is then the right file).
 */
export function mediaSrcSet(media: { url: string; width: number | null }): string | undefined {
  const match = ORIGINAL_PATH.exec(media.url);
  const hash = match?.[1];
  if (!hash || media.width === null || media.width <= MEDIA_VARIANT_WIDTH) return undefined;
  const width = String(MEDIA_VARIANT_WIDTH);
  return `/uploads/media/${hash}-w${width}.webp ${width}w, ${media.url} ${String(media.width)}w`;
}
