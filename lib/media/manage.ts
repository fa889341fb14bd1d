import { createHash } from "node:crypto";
import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { objectStore } from "../storage/index.ts";
import { MEDIA_QUOTA_BYTES, MEDIA_RULES, type MediaKind } from "./limits.ts";
import { MEDIA_KEY_PREFIX, productMedia, toMediaView } from "./read.ts";
import { variantKeyOf } from "./variant.ts";
import type { MediaView } from "./schemas.ts";
import { sniffMedia, tooLarge } from "./sniff.ts";

/**
 * A seller's product media: the cover, screenshots, audio and video demos. Each file is checked by its bytes
 * (lib/media/sniff.ts), stored once in the object store under its content hash (`media/<hash>.<ext>`, whichever
 * products use it) and described by a ProductMedia row. Another seller's product is 404 `product_not_found`.
 */

async function ownProduct(developerId: string, productId: string): Promise<{ id: string }> {
  const product = await getDb().product.findFirst({ where: { id: productId, developerId }, select: { id: true } });
  if (!product) throw notFound("product", "You have no product with this id.");
  return product;
}

async function ownMedia(developerId: string, productId: string, mediaId: string) {
  await ownProduct(developerId, productId);
  const row = await getDb().productMedia.findFirst({ where: { id: mediaId, productId } });
  if (!row) throw notFound("media", "This product has no media item with this id.");
  return row;
}

const isImage = (kind: MediaKind) => kind === "cover" || kind === "image";
const altRequired = () =>
  new AppError("media_alt_required", 400, "Describe what the image shows in its alt text (for people who cannot see it).", {
    errors: [{ in: "query", name: "alt", message: "required for images" }],
  });

/**
 * Reads an upload's body, at most the kind's largest file: refused before reading when Content-Length says it is too
 * large, and as soon as more arrives than allowed.
 */
export async function readUpload(kind: MediaKind, stream: ReadableStream<Uint8Array>, contentLength: number | null): Promise<Uint8Array> {
  const max = MEDIA_RULES[kind].maxBytes;
  if (contentLength !== null && contentLength > max) {
    await stream.cancel().catch(() => undefined);
    throw tooLarge(kind);
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(kind);
    }
    parts.push(value);
  }
  return Buffer.concat(parts, total);
}

/** One of the seller's products' media (another seller's product is 404). */
export async function sellerProductMedia(developerId: string, productId: string): Promise<MediaView[]> {
  await ownProduct(developerId, productId);
  return productMedia(productId);
}

/** Bytes a seller's media files take (each distinct file once). */
async function mediaUsage(developerId: string): Promise<number> {
  const rows = await getDb().productMedia.findMany({ where: { product: { developerId } }, select: { key: true, size: true } });
  return [...new Map(rows.map((r) => [r.key, r.size])).values()].reduce((sum, size) => sum + size, 0);
}

/**
 * Deletes stored files no media row refers to any more, with a picture's narrow copy (lib/media/variant.ts); best
 * effort: a file left behind is only space.
 */
async function releaseObjects(keys: string[]): Promise<void> {
  for (const key of new Set(keys)) {
    if ((await getDb().productMedia.count({ where: { key } })) > 0) continue;
    const variant = variantKeyOf(key);
    for (const gone of variant ? [key, variant] : [key]) {
      await objectStore()
        .delete(gone)
        .catch((error: unknown) => {
          console.error("media: could not delete", gone, error);
        });
    }
  }
}

/**
 * Adds one file to a product's media. Images need alt text (400 `media_alt_required`); a product holds at most the
 * kind's count (409 `media_limit`), except that a new cover replaces the old one; a seller's media at most
 * MEDIA_QUOTA_BYTES (413 `media_quota_exceeded`). The same file added again to the same product and kind answers the
 * item it already is (a retry adds nothing).
 */
export async function addProductMedia(
  developerId: string,
  productId: string,
  input: { kind: MediaKind; alt: string; caption: string; bytes: Uint8Array },
): Promise<MediaView> {
  const { kind } = input;
  await ownProduct(developerId, productId);
  if (isImage(kind) && !input.alt) throw altRequired();
  const sniffed = sniffMedia(kind, input.bytes);
  const key = `${MEDIA_KEY_PREFIX}${createHash("sha256").update(input.bytes).digest("hex").slice(0, 32)}.${sniffed.ext}`;
  const db = getDb();
  const same = await db.productMedia.findFirst({ where: { productId, kind, key } });
  if (same) return toMediaView(same);
  const existing = await db.productMedia.findMany({ where: { productId, kind }, orderBy: { position: "asc" } });
  if (kind !== "cover" && existing.length >= MEDIA_RULES[kind].maxCount) {
    throw new AppError("media_limit", 409, `A product may have at most ${String(MEDIA_RULES[kind].maxCount)} ${kind} items; delete one first.`);
  }
  const storedAlready = (await db.productMedia.count({ where: { key, product: { developerId } } })) > 0;
  if (!storedAlready && (await mediaUsage(developerId)) + input.bytes.byteLength > MEDIA_QUOTA_BYTES) {
    throw new AppError(
      "media_quota_exceeded",
      413,
      `Your product media may take at most ${String(MEDIA_QUOTA_BYTES / (1024 * 1024))} MiB in all. Delete media you no longer show to make room.`,
    );
  }
  const store = objectStore();
  if (!(await store.head(key))) {
    const body = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
    await store.put(key, body, { size: body.byteLength, contentType: sniffed.contentType });
  }
  const replaced = kind === "cover" ? existing : [];
  const created = await db.$transaction(async (tx) => {
    if (replaced.length) await tx.productMedia.deleteMany({ where: { id: { in: replaced.map((r) => r.id) } } });
    return tx.productMedia.create({
      data: {
        productId,
        kind,
        key,
        contentType: sniffed.contentType,
        size: input.bytes.byteLength,
        width: sniffed.width,
        height: sniffed.height,
        durationMs: sniffed.durationMs,
        alt: input.alt,
        caption: input.caption,
        position: kind === "cover" ? 0 : (existing.at(-1)?.position ?? -1) + 1,
      },
    });
  });
  await releaseObjects(replaced.map((r) => r.key));
  return toMediaView(created);
}

/** Changes an item's alt text and/or caption; an image's alt text cannot be emptied (400 `media_alt_required`). */
export async function updateProductMedia(
  developerId: string,
  productId: string,
  mediaId: string,
  input: { alt?: string | undefined; caption?: string | undefined },
): Promise<MediaView> {
  const row = await ownMedia(developerId, productId, mediaId);
  if (input.alt !== undefined && !input.alt && isImage(row.kind as MediaKind)) throw altRequired();
  const updated = await getDb().productMedia.update({
    where: { id: row.id },
    data: { ...(input.alt !== undefined ? { alt: input.alt } : {}), ...(input.caption !== undefined ? { caption: input.caption } : {}) },
  });
  return toMediaView(updated);
}

/**
 * Puts a product's media in a new order: `ids` names every item but the cover, once each (400
 * `media_order_mismatch` otherwise); each kind keeps its own order.
 */
export async function reorderProductMedia(developerId: string, productId: string, ids: string[]): Promise<MediaView[]> {
  await ownProduct(developerId, productId);
  const db = getDb();
  const rows = await db.productMedia.findMany({ where: { productId, kind: { not: "cover" } }, select: { id: true, kind: true } });
  const known = new Set(rows.map((r) => r.id));
  if (ids.length !== known.size || new Set(ids).size !== ids.length || ids.some((id) => !known.has(id))) {
    throw new AppError("media_order_mismatch", 400, "List every media item of the product but the cover, each once, in the new order.", {
      errors: [{ in: "body", name: "ids", message: "must name every media item but the cover, each once" }],
    });
  }
  const kindOf = new Map(rows.map((r) => [r.id, r.kind]));
  const next = new Map<string, number>();
  await db.$transaction(
    ids.map((id) => {
      const kind = kindOf.get(id) ?? "";
      const position = next.get(kind) ?? 0;
      next.set(kind, position + 1);
      return db.productMedia.update({ where: { id }, data: { position } });
    }),
  );
  return productMedia(productId);
}

/** Moves one item a place earlier or later among the items of its kind (the dashboard's buttons). */
export async function moveProductMedia(developerId: string, productId: string, mediaId: string, direction: "up" | "down"): Promise<MediaView[]> {
  const row = await ownMedia(developerId, productId, mediaId);
  const all = (await productMedia(productId)).filter((m) => m.kind !== "cover");
  const ofKind = all.filter((m) => m.kind === row.kind);
  const at = ofKind.findIndex((m) => m.id === mediaId);
  const to = direction === "up" ? at - 1 : at + 1;
  if (at < 0 || to < 0 || to >= ofKind.length) return all;
  [ofKind[at], ofKind[to]] = [ofKind[to] as MediaView, ofKind[at] as MediaView];
  const order = [...all.filter((m) => m.kind !== row.kind), ...ofKind].map((m) => m.id);
  return reorderProductMedia(developerId, productId, order);
}

/** Deletes an item; its file goes too unless another product shows the same file. */
export async function deleteProductMedia(developerId: string, productId: string, mediaId: string): Promise<void> {
  const row = await ownMedia(developerId, productId, mediaId);
  await getDb().productMedia.delete({ where: { id: row.id } });
  await releaseObjects([row.key]);
}
