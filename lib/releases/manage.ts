import { z } from "zod";
import { dbEngine, getDb } from "../db.ts";
import { getSellerProduct } from "../selling/products.ts";
import { AppError } from "../http/errors.ts";
import { clearReadCache } from "../cache/read-cache.ts";
import { objectStore } from "../storage/index.ts";
import { NOTES_MAX_CHARS } from "./notes.ts";
import { CHANNELS } from "./platforms.ts";
import { allReleases, releaseView, type ReleaseView, type ReleaseWithArtifacts } from "./read.ts";
import { normaliseVersion, parseVersion, VERSION_MAX_CHARS } from "./version.ts";
import { emitSellerEvent } from "../seller-webhooks/events.ts";
import { releasePayload } from "../seller-webhooks/payloads.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";

/**
 * A seller's releases of their own products: the lifecycle is draft → published → yanked. A draft collects artifacts
 * (ingest.ts) and may change channel; publishing needs at least one artifact and makes the release visible to buyers,
 * update checks and feeds; yanking withdraws a published release (kept, so links in old e-mails answer a clear
 * problem instead of a missing file). Notes can be edited at any stage. Only drafts can be deleted, with their files.
 * Another seller's product is 404 `product_not_found`, the same answer as a product that does not exist.
 * The dashboard calls these functions directly; the REST operations (lib/operations/releases.ts) call them too.
 */

const releaseNotesSchema = z
  .string()
  .max(NOTES_MAX_CHARS, `Release notes have at most ${NOTES_MAX_CHARS} characters.`)
  .describe("Release notes in Markdown (no raw HTML; links get rel=nofollow ugc; images are shown as links).");
const channelSchema = z.enum(CHANNELS).describe("stable (default) or beta: apps on the beta channel see both.");

export const createReleaseInputSchema = z.object({
  version: z
    .string()
    .max(VERSION_MAX_CHARS)
    .describe("Semantic version, e.g. 1.2.0 or 2.0.0-beta.1 (no leading v, no +build metadata); unique per product."),
  channel: channelSchema.optional(),
  notes: releaseNotesSchema.optional(),
});
export type CreateReleaseInput = z.infer<typeof createReleaseInputSchema>;

export const updateReleaseInputSchema = z.object({
  notes: releaseNotesSchema.optional(),
  channel: channelSchema.optional().describe("Only while the release is a draft."),
});
export type UpdateReleaseInput = z.infer<typeof updateReleaseInputSchema>;

export const releaseNotDraft = (version: string) =>
  new AppError("release_not_draft", 409, `Release ${version} is no longer a draft: its artifacts and channel can't change, and it can't be deleted.`);
const releaseNotFound = () => new AppError("release_not_found", 404, "This product has no release with that version.");

/** A release of a product (already known to be the seller's) by version as written in a path; 404 otherwise. */
export async function findSellerRelease(productId: string, version: string): Promise<ReleaseWithArtifacts> {
  const normalised = normaliseVersion(version);
  if (!normalised) throw releaseNotFound();
  const row = await getDb().release.findUnique({ where: { productId_version: { productId, version: normalised } }, include: { artifacts: true } });
  if (!row) throw releaseNotFound();
  return row;
}

async function ownRelease(developerId: string, productId: string, version: string): Promise<ReleaseWithArtifacts> {
  await getSellerProduct(developerId, productId);
  return findSellerRelease(productId, version);
}

const reread = async (id: string) => releaseView(await getDb().release.findUniqueOrThrow({ where: { id }, include: { artifacts: true } }));

/** Every release of one of the seller's products, drafts and yanked ones included, newest first. */
export async function listSellerReleases(developerId: string, productId: string): Promise<ReleaseView[]> {
  await getSellerProduct(developerId, productId);
  return (await allReleases(productId)).map((r) => releaseView(r));
}

/**
 * How many draft releases one product may have at once: drafts hold files (counted in the seller's ARTIFACT_QUOTA_MB)
 * and rows nobody sees, so a runaway script stops here. Publishing or deleting a draft makes room.
 */
export const MAX_DRAFT_RELEASES_PER_PRODUCT = 20;

/**
 * Creates a draft release; the version must be new for the product (409 `release_exists`, decided by the unique index),
 * and the product may have at most MAX_DRAFT_RELEASES_PER_PRODUCT drafts (409 `too_many_draft_releases`), counted in
 * the creating transaction with the product's row locked (PostgreSQL; SQLite runs one write transaction at a time),
 * so racing creates cannot pass it.
 */
export async function createRelease(developerId: string, productId: string, input: CreateReleaseInput): Promise<ReleaseView> {
  await getSellerProduct(developerId, productId);
  const v = parseVersion(input.version);
  try {
    const row = await getDb().$transaction(async (tx) => {
      if (dbEngine() === "postgresql") await tx.$queryRaw`SELECT 1 FROM "Product" WHERE "id" = ${productId} FOR UPDATE`;
      const drafts = await tx.release.count({ where: { productId, status: "draft" } });
      if (drafts >= MAX_DRAFT_RELEASES_PER_PRODUCT) {
        throw new AppError(
          "too_many_draft_releases",
          409,
          `This product already has ${drafts} draft releases, the most it may have (${MAX_DRAFT_RELEASES_PER_PRODUCT}): publish or delete a draft first.`,
        );
      }
      return tx.release.create({
        data: {
          productId,
          version: v.version,
          major: v.major,
          minor: v.minor,
          patch: v.patch,
          prerelease: v.prerelease,
          channel: input.channel ?? "stable",
          notes: input.notes ?? "",
        },
        include: { artifacts: true },
      });
    });
    return releaseView(row);
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") {
      throw new AppError("release_exists", 409, `This product already has a release ${v.version}; edit it, or choose another version.`);
    }
    throw error;
  }
}

/** Edits notes (any status) and channel (drafts only: 409 `release_not_draft`). */
export async function updateRelease(developerId: string, productId: string, version: string, input: UpdateReleaseInput): Promise<ReleaseView> {
  const release = await ownRelease(developerId, productId, version);
  const db = getDb();
  if (input.channel !== undefined && input.channel !== release.channel) {
    const changed = await db.release.updateMany({ where: { id: release.id, status: "draft" }, data: { channel: input.channel } });
    if (changed.count === 0) throw releaseNotDraft(release.version);
  }
  if (input.notes !== undefined) await db.release.update({ where: { id: release.id }, data: { notes: input.notes } });
  if (release.status !== "draft") clearReadCache();
  return reread(release.id);
}

/**
 * Publishes a draft: it needs at least one artifact (409 `release_has_no_artifacts`). Publishing a published release
 * again changes nothing; a yanked one can't come back (409 `release_yanked`: publish a new version instead).
 */
export async function publishRelease(developerId: string, productId: string, version: string): Promise<ReleaseView> {
  const release = await ownRelease(developerId, productId, version);
  if (release.status === "published") return releaseView(release);
  if (release.status === "yanked") throw new AppError("release_yanked", 409, `Release ${release.version} was yanked; publish a new version instead.`);
  const db = getDb();
  // One statement decides: still a draft, and has an artifact (an upload racing with this waits for its row, see ingest.ts).
  // The seller's `release.published` webhook is queued in the same transaction: exactly when the release is published.
  const publishedAt = new Date();
  const done = await db.$transaction(async (tx) => {
    const changed = await tx.release.updateMany({
      where: { id: release.id, status: "draft", artifacts: { some: {} } },
      data: { status: "published", publishedAt },
    });
    if (changed.count === 1) {
      const row = await tx.release.findUniqueOrThrow({
        where: { id: release.id },
        include: { artifacts: true, product: { select: { id: true, name: true, pluginId: true } } },
      });
      await emitSellerEvent(tx, developerId, "release.published", releasePayload({ ...row, publishedAt, yankedAt: undefined }), row.id, publishedAt);
    }
    return changed;
  });
  if (done.count === 1) kickWebhooks();
  if (done.count === 0) {
    const now = await db.release.findUnique({ where: { id: release.id }, include: { artifacts: true } });
    if (!now) throw releaseNotFound();
    if (now.status === "published") return releaseView(now);
    if (now.status !== "draft") throw releaseNotDraft(now.version);
    throw new AppError("release_has_no_artifacts", 409, `Release ${now.version} has no artifacts yet: upload at least one file before publishing.`);
  }
  clearReadCache();
  return reread(release.id);
}

/**
 * Withdraws a published release (idempotent); a draft can't be yanked (409 `release_not_published`: delete it). The
 * seller's `release.yanked` webhook is queued in the same transaction, so it goes out once, when the release is yanked.
 */
export async function yankRelease(developerId: string, productId: string, version: string): Promise<ReleaseView> {
  const release = await ownRelease(developerId, productId, version);
  if (release.status === "yanked") return releaseView(release);
  const yankedAt = new Date();
  const done = await getDb().$transaction(async (tx) => {
    const changed = await tx.release.updateMany({ where: { id: release.id, status: "published" }, data: { status: "yanked", yankedAt } });
    if (changed.count === 1) {
      const row = await tx.release.findUniqueOrThrow({
        where: { id: release.id },
        include: { artifacts: true, product: { select: { id: true, name: true, pluginId: true } } },
      });
      await emitSellerEvent(tx, developerId, "release.yanked", releasePayload(row), row.id, yankedAt);
    }
    return changed;
  });
  if (done.count === 1) kickWebhooks();
  if (done.count === 0) {
    const now = await reread(release.id);
    if (now.status === "yanked") return now;
    throw new AppError("release_not_published", 409, `Release ${release.version} is a draft: delete it instead of yanking.`);
  }
  clearReadCache();
  return reread(release.id);
}

/** Deletes a draft release with its artifacts' files (published and yanked releases stay: 409 `release_not_draft`). */
export async function deleteRelease(developerId: string, productId: string, version: string): Promise<void> {
  const release = await ownRelease(developerId, productId, version);
  const keys = await getDb().$transaction(async (tx) => {
    // Locks the row so an upload finishing now either lands before (and is deleted with it) or finds no release.
    const locked = await tx.release.updateMany({ where: { id: release.id, status: "draft" }, data: { updatedAt: new Date() } });
    if (locked.count === 0) {
      if (await tx.release.findUnique({ where: { id: release.id }, select: { id: true } })) throw releaseNotDraft(release.version);
      throw releaseNotFound();
    }
    const artifacts = await tx.artifact.findMany({ where: { releaseId: release.id }, select: { storageKey: true, blockmapKey: true } });
    await tx.release.delete({ where: { id: release.id } });
    return artifacts.flatMap((a) => (a.blockmapKey ? [a.storageKey, a.blockmapKey] : [a.storageKey]));
  });
  await deleteObjects(keys);
}

/** Deletes one artifact of a draft release, row first, then its file and its blockmap. */
export async function deleteArtifact(developerId: string, productId: string, version: string, artifactId: string): Promise<void> {
  const release = await ownRelease(developerId, productId, version);
  const artifact = release.artifacts.find((a) => a.id === artifactId);
  if (!artifact) throw new AppError("artifact_not_found", 404, `Release ${release.version} has no artifact with this id.`);
  const key = await getDb().$transaction(async (tx) => {
    const locked = await tx.release.updateMany({ where: { id: release.id, status: "draft" }, data: { updatedAt: new Date() } });
    if (locked.count === 0) throw releaseNotDraft(release.version);
    const gone = await tx.artifact.deleteMany({ where: { id: artifactId, releaseId: release.id } });
    if (gone.count === 0) throw new AppError("artifact_not_found", 404, `Release ${release.version} has no artifact with this id.`);
    return artifact.storageKey;
  });
  await deleteObjects(artifact.blockmapKey ? [key, artifact.blockmapKey] : [key]);
}

/** Best effort: a file left behind has no row any more, so the artifact sweep removes it. */
async function deleteObjects(keys: string[]): Promise<void> {
  const store = objectStore();
  for (const key of keys) await store.delete(key).catch((e: unknown) => console.error("artifact file not deleted; the sweep will remove", key, e));
}
