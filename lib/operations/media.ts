import { z } from "zod";
import { productParamsSchema } from "../marketplace/schemas.ts";
import { COVER_RULE, MEDIA_QUOTA_BYTES, MEDIA_RULES } from "../media/limits.ts";
import {
  addProductMedia,
  deleteProductMedia,
  moveProductMedia,
  readUpload,
  reorderProductMedia,
  sellerProductMedia,
  updateProductMedia,
} from "../media/manage.ts";
import {
  mediaListSchema,
  mediaOrderBodySchema,
  mediaParamsSchema,
  mediaUpdateBodySchema,
  mediaUploadQuerySchema,
  mediaViewSchema,
} from "../media/schemas.ts";
import { operation, type Operation } from "./define.ts";

const mib = (bytes: number) => `${String(bytes / (1024 * 1024))} MiB`;

/**
 * A product's media (lib/media): its wide cover, screenshots, and audio and video demos, uploaded by the seller (never
 * fetched from a URL) and played on the product page. The upload streams on the lean path (its body is the file, up
 * to the kind's limit, which Next's proxy would buffer); the rest is JSON. The dashboard's Media section runs the
 * same operations (its upload sends the file to the same route; alt text, order and deletion are server actions).
 */
export const MEDIA: Operation[] = [
  operation({
    id: "listProductMedia",
    summary: "Your product's media",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "GET", path: "/api/v1/products/{id}/media" },
    input: { params: productParamsSchema },
    output: mediaListSchema,
    errors: [401, 403, 404],
    handler: async (i, c) => ({ media: await sellerProductMedia(c.seller.developer.id, i.id) }),
  }),
  operation({
    id: "uploadProductMedia",
    summary: "Upload a cover, screenshot or demo",
    description: [
      "The request body is the file's bytes (any Content-Type; only the bytes decide); `kind`, `alt` and `caption` go in the query.",
      `cover and image: ${MEDIA_RULES.image.typeWords}, at most ${mib(MEDIA_RULES.image.maxBytes)}, alt text required (400 \`media_alt_required\`); a cover is ${COVER_RULE} and replaces the product's cover; a screenshot at least 320 × 200 (422 \`media_dimensions\`).`,
      `audio: ${MEDIA_RULES.audio.typeWords}, at most ${mib(MEDIA_RULES.audio.maxBytes)}; video: ${MEDIA_RULES.video.typeWords}, at most ${mib(MEDIA_RULES.video.maxBytes)}.`,
      `Another type is 415 \`media_type\`; too large 413 \`media_too_large\` (before the body is read when Content-Length says so); empty 400 \`media_empty\`. A product has at most ${String(MEDIA_RULES.image.maxCount)} images, ${String(MEDIA_RULES.audio.maxCount)} audio and ${String(MEDIA_RULES.video.maxCount)} video items (409 \`media_limit\`); all your media at most ${mib(MEDIA_QUOTA_BYTES)} (413 \`media_quota_exceeded\`).`,
      "The same file uploaded again for the same product and kind answers the item it already is. Files are served at the answer's `url` while the product is listed, with byte ranges.",
    ].join(" "),
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    // PUT, as uploadArtifact: served on the lean path, which reads no Idempotency-Key; the same file for the same
    // product and kind answers the item it already is (stored under its content hash), so a retry adds nothing.
    http: { method: "PUT", path: "/api/v1/products/{id}/media/upload", status: 201, lean: true, bodyStream: true },
    input: { params: productParamsSchema, query: mediaUploadQuerySchema },
    output: mediaViewSchema,
    errors: [401, 403, 404, 409, 413, 415, 422],
    handler: async (i, c) => {
      const stream = c.bodyStream ?? new ReadableStream<Uint8Array>({ start: (ctl) => ctl.close() });
      const bytes = await readUpload(i.kind, stream, c.contentLength ?? null);
      return addProductMedia(c.seller.developer.id, i.id, { kind: i.kind, alt: i.alt, caption: i.caption, bytes });
    },
  }),
  operation({
    id: "updateProductMedia",
    summary: "Change a media item's alt text or caption",
    description: "An image's alt text cannot be emptied (400 `media_alt_required`).",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "PATCH", path: "/api/v1/products/{id}/media/{media_id}" },
    input: { params: mediaParamsSchema, body: mediaUpdateBodySchema },
    output: mediaViewSchema,
    errors: [401, 403, 404],
    handler: async (i, c) => updateProductMedia(c.seller.developer.id, i.id, i.media_id, { alt: i.alt, caption: i.caption }),
  }),
  operation({
    id: "reorderProductMedia",
    summary: "Put your product's media in order",
    description:
      "`ids` names every media item of the product but the cover, once each, in the order to show them (400 `media_order_mismatch` otherwise); each kind keeps its own order.",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "PUT", path: "/api/v1/products/{id}/media" },
    input: { params: productParamsSchema, body: mediaOrderBodySchema },
    output: mediaListSchema,
    errors: [401, 403, 404],
    handler: async (i, c) => ({ media: await reorderProductMedia(c.seller.developer.id, i.id, i.ids) }),
  }),
  // The dashboard's buttons (no REST route or tool): one item a place earlier or later.
  operation({
    id: "moveProductMedia",
    summary: "Move a media item earlier or later",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    readOnly: false,
    input: { params: mediaParamsSchema, body: z.object({ direction: z.enum(["up", "down"]) }) },
    output: mediaListSchema,
    errors: [401, 403, 404],
    handler: async (i, c) => ({ media: await moveProductMedia(c.seller.developer.id, i.id, i.media_id, i.direction) }),
  }),
  operation({
    id: "deleteProductMedia",
    summary: "Delete a media item",
    description: "Removes the item from the product; its file is deleted unless another of your products shows the same file.",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "DELETE", path: "/api/v1/products/{id}/media/{media_id}" },
    input: { params: mediaParamsSchema },
    output: z.object({ deleted: z.literal(true) }),
    errors: [401, 403, 404],
    handler: async (i, c) => {
      await deleteProductMedia(c.seller.developer.id, i.id, i.media_id);
      return { deleted: true as const };
    },
  }),
];
