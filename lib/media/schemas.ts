import { z } from "zod";
import { CONTROL_CHARACTER_MESSAGE, singleLineText } from "../http/input.ts";
import { productParamsSchema } from "../marketplace/schemas.ts";
import { ALT_MAX_CHARS, CAPTION_MAX_CHARS, MEDIA_KINDS, MEDIA_RULES } from "./limits.ts";

const text = (max: number) => z.string().trim().max(max).refine(singleLineText, CONTROL_CHARACTER_MESSAGE);

const mediaKindSchema = z.enum(MEDIA_KINDS);
const altSchema = text(ALT_MAX_CHARS).describe("What the image shows, for people who cannot see it (required for cover and image)");
const captionSchema = text(CAPTION_MAX_CHARS).describe("A title shown with the item (an audio demo's name, e.g. “Drum bus, before and after”)");

export const mediaParamsSchema = productParamsSchema.extend({
  media_id: z.string().min(1).max(64).describe("The media item's id"),
});

/** The upload's query: the kind, and the alt text and caption (the body is the file). */
export const mediaUploadQuerySchema = z.object({
  kind: mediaKindSchema.describe(
    `cover (${MEDIA_RULES.cover.typeWords}, wide; a new cover replaces the old), image (a screenshot), audio (${MEDIA_RULES.audio.typeWords}) or video (${MEDIA_RULES.video.typeWords})`,
  ),
  alt: altSchema.default(""),
  caption: captionSchema.default(""),
});

export const mediaUpdateBodySchema = z
  .object({ alt: altSchema.optional(), caption: captionSchema.optional() })
  .refine((b) => b.alt !== undefined || b.caption !== undefined, "give alt, caption or both");

export const mediaOrderBodySchema = z.object({
  ids: z
    .array(z.string().min(1).max(64))
    .max(40)
    .describe("Every media item of the product but the cover, in the order to show them (each kind keeps its own order)"),
});

export const mediaViewSchema = z.object({
  id: z.string(),
  kind: mediaKindSchema,
  url: z.string().describe("Where the file is served while the product is listed (/uploads/media/…, content-addressed)"),
  content_type: z.string(),
  size: z.int().describe("Bytes"),
  width: z.int().nullable(),
  height: z.int().nullable(),
  duration_ms: z.int().nullable().describe("Audio and video, when known (WAV); else null"),
  alt: z.string(),
  caption: z.string(),
  position: z.int(),
});
export type MediaView = z.infer<typeof mediaViewSchema>;

export const mediaListSchema = z.object({ media: z.array(mediaViewSchema) });
