import { dbEngine, getDb } from "../db.ts";
import { env } from "../env.ts";
import { AppError } from "../http/errors.ts";

/**
 * A seller's release artifact storage: the sizes of the files of all their releases (drafts, published and yanked
 * alike, since all of them are stored) and of their blockmaps, summed from the Artifact rows, against ARTIFACT_QUOTA_MB. ingest.ts checks
 * it three times: before the body is read (what is used plus the declared Content-Length), while the body streams in
 * (no more than the room left), and in the transaction that writes the row, with the seller's row locked, so racing
 * uploads cannot together pass it.
 */

type Tx = Parameters<Parameters<ReturnType<typeof getDb>["$transaction"]>[0]>[0];
type Reader = Pick<Tx, "artifact">;

const MB = 1024 * 1024;

export const artifactQuotaBytes = () => env().ARTIFACT_QUOTA_MB * MB;

/** Bytes the seller's release files take, from the database. */
export async function artifactBytesUsed(developerId: string, db: Reader = getDb()): Promise<number> {
  const sum = await db.artifact.aggregate({ where: { release: { product: { developerId } } }, _sum: { size: true, blockmapSize: true } });
  return (sum._sum.size ?? 0) + (sum._sum.blockmapSize ?? 0);
}

/** What the dashboard shows: "Storage: 1.2 GB of 5.4 GB used". */
export interface ArtifactStorage {
  used_bytes: number;
  quota_bytes: number;
}

export async function artifactStorage(developerId: string): Promise<ArtifactStorage> {
  return { used_bytes: await artifactBytesUsed(developerId), quota_bytes: artifactQuotaBytes() };
}

const mb = (bytes: number) => (bytes / MB).toFixed(1);

/**
 * 413 `artifact_quota_exceeded`, naming what is used, the room left and the quota in MB; `adding` is the file's size
 * when known (null: a body without Content-Length that passed the room left while it streamed in).
 */
export function artifactQuotaExceeded(used: number, adding: number | null): AppError {
  const room = Math.max(0, artifactQuotaBytes() - used);
  const file = adding === null ? "this file is larger than that" : `this file (${mb(adding)} MB) does not fit`;
  return new AppError(
    "artifact_quota_exceeded",
    413,
    `Your release files take ${mb(used)} MB of your ${env().ARTIFACT_QUOTA_MB} MB of storage (ARTIFACT_QUOTA_MB), leaving ${mb(room)} MB; ${file}. Delete draft releases or their files to make room. Nothing was stored.`,
  );
}

/** Refuses when `used` plus `adding` bytes would pass the quota. */
export function checkArtifactQuota(used: number, adding: number): void {
  if (used + adding > artifactQuotaBytes()) throw artifactQuotaExceeded(used, adding);
}

/**
 * In the transaction that writes an artifact's row: locks the seller's row (PostgreSQL; SQLite runs one write
 * transaction at a time), so concurrent uploads of any of the seller's products count one after another, then
 * refuses when the stored files plus this one would pass the quota.
 */
export async function checkArtifactQuotaLocked(tx: Tx, developerId: string, adding: number): Promise<void> {
  if (dbEngine() === "postgresql") await tx.$queryRaw`SELECT 1 FROM "Developer" WHERE "id" = ${developerId} FOR UPDATE`;
  checkArtifactQuota(await artifactBytesUsed(developerId, tx), adding);
}
