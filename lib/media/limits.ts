/**
 * What a product's media may be, written once: the kinds, the file types each takes (recognised by their bytes), the
 * largest file, how many a product may have, the image sizes, and what a seller's media may take in all. The upload
 * operation, the dashboard's form and the documents all read these.
 */
export const MEDIA_KINDS = ["cover", "image", "audio", "video"] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

const MIB = 1024 * 1024;

export interface MediaRule {
  /** Content types accepted, by the file's bytes (never its name or declared type). */
  types: readonly string[];
  /** The largest file, in bytes. */
  maxBytes: number;
  /** How many a product may have (a new cover replaces the old one). */
  maxCount: number;
  /** Plain words for the types, for messages and forms. */
  typeWords: string;
}

export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;
export const AUDIO_TYPES = ["audio/mpeg", "audio/ogg", "audio/wav", "audio/mp4"] as const;
export const VIDEO_TYPES = ["video/mp4", "video/webm"] as const;

export const MEDIA_RULES: Record<MediaKind, MediaRule> = {
  cover: { types: IMAGE_TYPES, maxBytes: 4 * MIB, maxCount: 1, typeWords: "PNG, JPEG or WebP" },
  image: { types: IMAGE_TYPES, maxBytes: 4 * MIB, maxCount: 12, typeWords: "PNG, JPEG or WebP" },
  audio: { types: AUDIO_TYPES, maxBytes: 16 * MIB, maxCount: 8, typeWords: "MP3, OGG, WAV or M4A" },
  video: { types: VIDEO_TYPES, maxBytes: 64 * MIB, maxCount: 4, typeWords: "MP4 or WebM" },
};

/**
 * The cover is the wide picture at the top of the product page and on cards: at least 1200 × 600 pixels, and between
 * 1.5 and 2.5 times as wide as it is high (1200 × 630, 1920 × 1080 and 1600 × 800 all pass).
 */
export const COVER_MIN_WIDTH = 1200;
export const COVER_MIN_HEIGHT = 600;
export const COVER_MIN_RATIO = 1.5;
export const COVER_MAX_RATIO = 2.5;
export const COVER_RULE = `at least ${String(COVER_MIN_WIDTH)} × ${String(COVER_MIN_HEIGHT)} pixels and between ${String(COVER_MIN_RATIO)} and ${String(COVER_MAX_RATIO)} times as wide as high`;
/** A screenshot: at least 320 × 200 pixels. Any image: at most 8000 pixels a side. */
export const IMAGE_MIN_WIDTH = 320;
export const IMAGE_MIN_HEIGHT = 200;
export const IMAGE_MAX_SIDE = 8000;

/** All of a seller's media files (every product, each distinct file once): at most this many bytes. */
export const MEDIA_QUOTA_BYTES = 512 * MIB;

/** Alt text (required for images) and captions. */
export const ALT_MAX_CHARS = 300;
export const CAPTION_MAX_CHARS = 200;
