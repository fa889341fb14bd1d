import { z } from "zod";
import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { CACHE } from "../http/headers.ts";
import { productIdSchema, productParamsSchema } from "../marketplace/schemas.ts";
import { FILENAME_MAX_CHARS, ingestArtifact } from "../releases/ingest.ts";
import {
  createRelease,
  createReleaseInputSchema,
  deleteArtifact,
  deleteRelease,
  listSellerReleases,
  MAX_DRAFT_RELEASES_PER_PRODUCT,
  publishRelease,
  updateReleaseInputSchema,
  updateRelease,
  yankRelease,
} from "../releases/manage.ts";
import { PLATFORMS, PLUGIN_FORMATS } from "../releases/platforms.ts";
import { publishedReleases, releaseView } from "../releases/read.ts";
import { artifactViewSchema, releaseViewSchema } from "../releases/schemas.ts";
import { VERSION_MAX_CHARS } from "../releases/version.ts";
import { operation, type Operation } from "./define.ts";

const releaseParams = productParamsSchema.extend({
  version: z.string().min(1).max(VERSION_MAX_CHARS).describe("The release's semantic version, e.g. 1.2.0."),
});
const artifactParams = releaseParams.extend({ artifact_id: z.string().min(1).max(64).describe("The artifact's id.") });

/**
 * Releases: a seller creates a draft version of one of their products, uploads its artifacts (one per platform, and
 * per plugin format), publishes it, edits its notes, yanks it; anyone lists a listed product's published releases.
 * Another seller's product is 404 `product_not_found`. Uploads stream (no buffering, refused past ARTIFACT_MAX_MB
 * or the seller's ARTIFACT_QUOTA_MB while they arrive, or before when Content-Length says so) and are served on the
 * lean path, outside Next. A product has at most MAX_DRAFT_RELEASES_PER_PRODUCT drafts.
 */
export const RELEASES: Operation[] = [
  operation({
    id: "listSellerReleases",
    summary: "Your product's releases",
    description: "Every release of one of your products, drafts and yanked ones included, newest first (semver order).",
    tag: "Releases",
    auth: "seller",
    sellerScope: "releases",
    http: { method: "GET", path: "/api/v1/products/{id}/releases" },
    input: { params: productParamsSchema },
    output: z.object({ releases: z.array(releaseViewSchema) }),
    errors: [401, 403, 404],
    handler: async (p, c) => ({ releases: await listSellerReleases(c.seller.developer.id, p.id) }),
  }),
  operation({
    id: "createRelease",
    summary: "Create a draft release",
    description: `A new version of one of your products, as a draft: upload its artifacts, then publish it. The version is strict semantic versioning (1.2.0, 2.0.0-beta.1; no leading v, no +build metadata: 400 \`invalid_version\`); a version the product already has is 409 \`release_exists\`. A product may have at most ${MAX_DRAFT_RELEASES_PER_PRODUCT} drafts at once (409 \`too_many_draft_releases\`): publish or delete one first.`,
    tag: "Releases",
    auth: "seller",
    sellerScope: "releases",
    http: { method: "POST", path: "/api/v1/products/{id}/releases", status: 201 },
    input: { params: productParamsSchema, body: createReleaseInputSchema },
    output: releaseViewSchema,
    errors: [401, 403, 404, 409],
    handler: async (i, c) => {
      const { id, ...body } = i;
      return createRelease(c.seller.developer.id, id, body);
    },
  }),
  operation({
    id: "updateRelease",
    summary: "Edit a release",
    description: "Notes can change at any time; the channel only while the release is a draft (409 `release_not_draft`).",
    tag: "Releases",
    auth: "seller",
    sellerScope: "releases",
    http: { method: "PATCH", path: "/api/v1/products/{id}/releases/{version}" },
    input: { params: releaseParams, body: updateReleaseInputSchema },
    output: releaseViewSchema,
    errors: [401, 403, 404, 409],
    handler: async (i, c) => {
      const { id, version, ...body } = i;
      return updateRelease(c.seller.developer.id, id, version, body);
    },
  }),
  operation({
    id: "deleteRelease",
    summary: "Delete a draft release",
    description: "Deletes a draft and its files. Published and yanked releases stay (409 `release_not_draft`): yank instead.",
    tag: "Releases",
    auth: "seller",
    sellerScope: "releases",
    http: { method: "DELETE", path: "/api/v1/products/{id}/releases/{version}" },
    input: { params: releaseParams },
    output: z.object({ deleted: z.literal(true) }),
    errors: [401, 403, 404, 409],
    handler: async (i, c) => {
      await deleteRelease(c.seller.developer.id, i.id, i.version);
      return { deleted: true as const };
    },
  }),
  operation({
    id: "publishRelease",
    summary: "Publish a release",
    description:
      "Makes a draft visible to buyers, update checks and feeds. It needs at least one artifact (409 `release_has_no_artifacts`); publishing again changes nothing; a yanked release can't be published again (409 `release_yanked`).",
    tag: "Releases",
    auth: "seller",
    sellerScope: "releases",
    http: { method: "POST", path: "/api/v1/products/{id}/releases/{version}/publish" },
    input: { params: releaseParams },
    output: releaseViewSchema,
    errors: [401, 403, 404, 409],
    handler: async (i, c) => publishRelease(c.seller.developer.id, i.id, i.version),
    tools: [
      {
        name: "seller_publish_release",
        title: "Publish a release",
        layer: 6,
        description:
          "Publishes a draft release of one of your products (id: the product id from seller_list_products; version: e.g. 1.2.0), making it visible to buyers, update checks and feeds. The draft must have at least one uploaded artifact (error release_has_no_artifacts); publishing again changes nothing; a yanked release cannot be published (release_yanked).",
        text: (r) =>
          `Release ${r.version} (${r.channel}) is ${r.status}${r.published_at ? ` since ${r.published_at}` : ""}, with ${r.artifacts.length} artifact${r.artifacts.length === 1 ? "" : "s"}.`,
      },
    ],
  }),
  operation({
    id: "yankRelease",
    summary: "Yank a release",
    description:
      "Withdraws a published release: it disappears from pages, update checks and feeds and can no longer be downloaded. Idempotent; a draft is 409 `release_not_published` (delete it instead).",
    tag: "Releases",
    auth: "seller",
    sellerScope: "releases",
    http: { method: "POST", path: "/api/v1/products/{id}/releases/{version}/yank" },
    input: { params: releaseParams },
    output: releaseViewSchema,
    errors: [401, 403, 404, 409],
    handler: async (i, c) => yankRelease(c.seller.developer.id, i.id, i.version),
  }),
  operation({
    id: "uploadArtifact",
    summary: "Upload an artifact",
    description: [
      "The request body is the file's bytes (any Content-Type; streamed, never buffered). One file of each type (.zip, .dmg, .exe, …) per platform and plugin format per release, drafts only (409 `artifact_exists`, 409 `release_not_draft`).",
      "Applications: windows .exe/.msi/.zip; macos .dmg/.pkg/.zip/.tar.gz; linux .AppImage/.deb/.rpm/.tar.gz/.zip. Plugins (format vst3, au (macOS only), aax (Windows, macOS), clap): .zip, or an installer (.exe/.msi, .pkg/.dmg, .deb/.tar.gz).",
      "The content must match the extension (415 `artifact_content_mismatch`); larger than ARTIFACT_MAX_MB is refused while it streams in (413 `artifact_too_large`); an empty body is 400 `artifact_empty`; a wrong optional `X-Checksum-SHA256` header (hex) is 422 `artifact_checksum_mismatch`.",
      "Your release files (all your products' releases, drafts included) may take at most ARTIFACT_QUOTA_MB in all: a file that would pass it is refused with 413 `artifact_quota_exceeded` (the detail names what you use and the quota in MB) before its body is read when Content-Length is given, while it streams in otherwise, and when racing uploads fill the quota first; nothing is stored. Delete drafts or their files to make room.",
      "The answer carries the file's size, SHA-256, SHA-512 and Ed25519 signature by the service key (verify with did.json).",
      "A `<filename>.blockmap` upload (same platform and format, after the file) is stored as that file's electron-builder blockmap (`blockmap_size`), served by the feeds at the file's link + `.blockmap`: 409 `blockmap_without_file` before the file, 422 `invalid_blockmap` unless its blocks add up to the file's size.",
    ].join(" "),
    tag: "Releases",
    auth: "seller",
    sellerScope: "releases",
    http: { method: "PUT", path: "/api/v1/products/{id}/releases/{version}/artifacts", status: 201, lean: true, bodyStream: true },
    input: {
      params: releaseParams,
      query: z.object({
        platform: z.enum(PLATFORMS).describe("The platform the file is for."),
        format: z
          .enum(["", ...PLUGIN_FORMATS])
          .optional()
          .describe("The audio plugin format; empty or omitted for an application."),
        filename: z
          .string()
          .min(1)
          .max(FILENAME_MAX_CHARS + ".blockmap".length)
          .describe(
            "The file's name as buyers download it: letters, digits, spaces and . _ + - ( ), not a Windows device name (CON, NUL, COM1, …); its extension must fit the platform. `<an uploaded file's name>.blockmap` stores electron-builder's blockmap of that file.",
          ),
      }),
    },
    output: artifactViewSchema,
    errors: [401, 403, 404, 409, 413, 415, 422],
    handler: async (i, c) =>
      ingestArtifact(c.seller.developer.id, i.id, i.version, {
        platform: i.platform,
        format: i.format ?? "",
        filename: i.filename,
        stream: c.bodyStream ?? new ReadableStream<Uint8Array>({ start: (ctl) => ctl.close() }),
        contentLength: c.contentLength ?? null,
        expectedSha256: c.headers.get("x-checksum-sha256") ?? undefined,
      }),
  }),
  operation({
    id: "deleteArtifact",
    summary: "Delete an artifact",
    description: "Removes one file from a draft release (409 `release_not_draft` once published), so another can be uploaded.",
    tag: "Releases",
    auth: "seller",
    sellerScope: "releases",
    http: { method: "DELETE", path: "/api/v1/products/{id}/releases/{version}/artifacts/{artifact_id}" },
    input: { params: artifactParams },
    output: z.object({ deleted: z.literal(true) }),
    errors: [401, 403, 404, 409],
    handler: async (i, c) => {
      await deleteArtifact(c.seller.developer.id, i.id, i.version, i.artifact_id);
      return { deleted: true as const };
    },
  }),
  operation({
    id: "listReleases",
    summary: "A product's releases",
    description:
      "The published releases of a listed product, newest first (semver order), with notes and per-platform artifacts (size, SHA-256, Ed25519 signature). Files are downloaded with a license, not from here.",
    tag: "Releases",
    auth: "public",
    http: { method: "GET", path: "/api/marketplace/product/{id}/releases", cache: CACHE.short },
    input: { params: productParamsSchema },
    output: z.object({ product_id: productIdSchema, releases: z.array(releaseViewSchema) }),
    errors: [404],
    handler: async (p) => {
      const product = await getDb().product.findFirst({ where: { id: p.id, status: "active" }, select: { id: true } });
      if (!product) throw notFound("product", "No listed product with this id.");
      return { product_id: product.id, releases: (await publishedReleases(product.id)).map((r) => releaseView(r)) };
    },
    tools: [
      {
        name: "list_releases",
        title: "List a product's releases",
        layer: 2,
        description:
          "Published versions of one product, newest first: version, channel, date, release notes and the platforms/plugin formats each version ships for, with file sizes and checksums. Use it to answer 'what's new', 'which version is current' or 'is there a Linux build'.",
        args: z.object({ product_id: productParamsSchema.shape.id.describe("Product id from browse_marketplace") }),
        toInput: (a) => ({ id: a.product_id as string }),
        text: (out) => {
          if (out.releases.length === 0) return `Product ${out.product_id} has no published releases yet.`;
          const lines = out.releases.map((r) => {
            const date = r.published_at ? r.published_at.slice(0, 10) : "unpublished";
            const files = r.artifacts.map((a) => `${a.platform}${a.format ? `/${a.format}` : ""} (${a.size} bytes)`).join(", ");
            return `- ${r.version} [${r.channel}] ${date}: ${files || "no files"}`;
          });
          return [`${out.releases.length} published release(s) of ${out.product_id}, newest first:`, ...lines].join("\n");
        },
      },
    ],
  }),
];
