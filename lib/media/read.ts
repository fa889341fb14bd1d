import { getDb } from "../db.ts";
import { MEDIA_KINDS, type MediaKind } from "./limits.ts";
import type { MediaView } from "./schemas.ts";

/** Object store keys of media: `media/<content hash>.<ext>`, served at /uploads/media/<content hash>.<ext>. */
export const MEDIA_KEY_PREFIX = "media/";
const MEDIA_NAME = /^[a-f0-9]{32}\.(?:png|jpg|webp|wav|ogg|mp3|m4a|mp4|webm)$/;

/** The public path of a stored media object. */
const mediaPath = (key: string): string => `/uploads/media/${key.slice(MEDIA_KEY_PREFIX.length)}`;

export interface MediaRow {
  id: string;
  kind: string;
  key: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  alt: string;
  caption: string;
  position: number;
}

export function toMediaView(m: MediaRow): MediaView {
  return {
    id: m.id,
    kind: m.kind as MediaKind,
    url: mediaPath(m.key),
    content_type: m.contentType,
    size: m.size,
    width: m.width,
    height: m.height,
    duration_ms: m.durationMs,
    alt: m.alt,
    caption: m.caption,
    position: m.position,
  };
}

const kindOrder = (kind: string) => MEDIA_KINDS.indexOf(kind as MediaKind);

/** A product's media, cover first, then images, audio and video, each kind in its order. */
export async function productMedia(productId: string): Promise<MediaView[]> {
  const rows = await getDb().productMedia.findMany({ where: { productId }, orderBy: [{ position: "asc" }, { createdAt: "asc" }] });
  return rows.sort((a, b) => kindOrder(a.kind) - kindOrder(b.kind)).map(toMediaView);
}

/** A product page's media, grouped by kind. */
export interface ProductMediaSet {
  cover: MediaView | null;
  images: MediaView[];
  audio: MediaView[];
  video: MediaView[];
}

export async function productMediaSet(productId: string): Promise<ProductMediaSet> {
  const all = await productMedia(productId);
  return {
    cover: all.find((m) => m.kind === "cover") ?? null,
    images: all.filter((m) => m.kind === "image"),
    audio: all.filter((m) => m.kind === "audio"),
    video: all.filter((m) => m.kind === "video"),
  };
}

/** The cover of each product that has one (cards: one query for a page of products). */
export async function coversOf(productIds: readonly string[]): Promise<Map<string, MediaView>> {
  if (productIds.length === 0) return new Map();
  const rows = await getDb().productMedia.findMany({ where: { productId: { in: [...new Set(productIds)] }, kind: "cover" } });
  return new Map(rows.map((r) => [r.productId, toMediaView(r)]));
}

/** The stored media file behind a public name, when a listed product shows it (null otherwise: not served). */
export async function listedMediaFile(name: string): Promise<{ key: string; size: number; contentType: string } | null> {
  if (!MEDIA_NAME.test(name)) return null;
  const row = await getDb().productMedia.findFirst({
    where: { key: `${MEDIA_KEY_PREFIX}${name}`, product: { status: "active" } },
    select: { key: true, size: true, contentType: true },
  });
  return row;
}

/** The stored picture (a cover or a screenshot) with this content hash, when a listed product shows it. */
export async function listedPicture(hash: string): Promise<{ key: string; size: number; contentType: string } | null> {
  return getDb().productMedia.findFirst({
    where: { key: { startsWith: `${MEDIA_KEY_PREFIX}${hash}.` }, kind: { in: ["cover", "image"] }, product: { status: "active" } },
    select: { key: true, size: true, contentType: true },
  });
}

/** The stored picture with this content hash when a product of this seller holds it, listed or not. */
export async function ownedPicture(hash: string, sellerEmail: string): Promise<{ key: string; size: number; contentType: string } | null> {
  return getDb().productMedia.findFirst({
    where: { key: { startsWith: `${MEDIA_KEY_PREFIX}${hash}.` }, kind: { in: ["cover", "image"] }, product: { developer: { email: sellerEmail } } },
    select: { key: true, size: true, contentType: true },
  });
}

/**
 * The stored media file behind a public name when a product of this seller (by the address they signed in with)
 * holds it, listed or not: the owner's preview of a draft and the dashboard's Media section show it. Null otherwise.
 */
export async function ownedMediaFile(name: string, sellerEmail: string): Promise<{ key: string; size: number; contentType: string } | null> {
  if (!MEDIA_NAME.test(name)) return null;
  return getDb().productMedia.findFirst({
    where: { key: `${MEDIA_KEY_PREFIX}${name}`, product: { developer: { email: sellerEmail } } },
    select: { key: true, size: true, contentType: true },
  });
}
