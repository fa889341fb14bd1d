import { z } from "zod";
import { CHANNELS, PLATFORMS, PLUGIN_FORMATS } from "./platforms.ts";

/** Zod shapes of ArtifactView and ReleaseView (read.ts), for the operations' outputs and OpenAPI. */
export const artifactViewSchema = z.object({
  id: z.string(),
  platform: z.enum(PLATFORMS),
  format: z.enum(PLUGIN_FORMATS).nullable().describe("The audio plugin format; null for an application."),
  file_type: z.string().describe('The file type, from its extension: "exe", "msi", "zip", "dmg", "pkg", "tar.gz", "appimage", "deb" or "rpm".'),
  filename: z.string(),
  content_type: z.string(),
  size: z.number().int().describe("Bytes."),
  sha256: z.string().describe("Hex SHA-256 of the file."),
  sha512: z.string().describe("Base64 SHA-512 of the file (electron-updater's sha512)."),
  signature: z.string().describe("Base64 Ed25519 signature over the file's bytes by the service key signature_key_id (did.json)."),
  signature_key_id: z.string().describe("The did.json verification method that signed, e.g. did:web:example.com#ed25519-1."),
  blockmap_size: z
    .number()
    .int()
    .nullable()
    .describe(
      'Bytes of the electron-builder blockmap uploaded with the file (as "<filename>.blockmap"); electron-updater reads it at the feed URL + ".blockmap". null without one.',
    ),
});

export const releaseViewSchema = z.object({
  version: z.string().describe("Semantic version."),
  channel: z.enum(CHANNELS),
  status: z.enum(["draft", "published", "yanked"]),
  notes: z.string().describe("Release notes, Markdown as written."),
  notes_html: z.string().describe("The notes rendered to safe HTML (raw HTML escaped, links rel=nofollow ugc, images as links)."),
  published_at: z.iso.datetime().nullable(),
  yanked_at: z.iso.datetime().nullable(),
  artifacts: z.array(artifactViewSchema),
});
