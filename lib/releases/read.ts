import semver from "semver";
import type { Artifact, Release } from "../generated/sqlite/client.ts";
import { getDb } from "../db.ts";
import { serviceDid } from "../identity/did.ts";
import { renderNotes } from "./notes.ts";
import type { Channel, Platform, PluginFormat } from "./platforms.ts";

/** A release with its artifacts, as read from the database. */
export type ReleaseWithArtifacts = Release & { artifacts: Artifact[] };

/** One artifact as every API shows it. */
export interface ArtifactView {
  id: string;
  platform: Platform;
  /** The plugin format; null for an application. */
  format: PluginFormat | null;
  /** The file type, from its extension ("zip", "dmg", "tar.gz", …); a release has one of each per platform and format. */
  file_type: string;
  filename: string;
  content_type: string;
  /** Bytes. */
  size: number;
  /** Hex SHA-256 of the file. */
  sha256: string;
  /** Base64 SHA-512 of the file (electron-updater's `sha512`). */
  sha512: string;
  /** Base64 Ed25519 signature over the file's bytes, verifiable with `signature_key_id` from did.json. */
  signature: string;
  /** The did.json verification method that signed: `did:web:<host>#ed25519-1`. */
  signature_key_id: string;
  /** Bytes of the electron-builder blockmap uploaded with the file (served at its feed URL + ".blockmap"); null without one. */
  blockmap_size: number | null;
}

/** One release as every API shows it. */
export interface ReleaseView {
  version: string;
  channel: Channel;
  status: "draft" | "published" | "yanked";
  /** Markdown as written. */
  notes: string;
  /** The notes rendered to safe HTML (no raw HTML, links rel="nofollow ugc", images as links). */
  notes_html: string;
  published_at: string | null;
  yanked_at: string | null;
  artifacts: ArtifactView[];
}

/** Semver precedence of two releases (ascending); sort newest first with `(a, b) => -compareReleases(a, b)`. */
export function compareReleases(a: { version: string }, b: { version: string }): number {
  return semver.compare(a.version, b.version);
}

const newestFirst = <R extends { version: string }>(rows: R[]): R[] => rows.sort((a, b) => compareReleases(b, a));

const ARTIFACT_ORDER = (a: Artifact, b: Artifact) =>
  a.platform === b.platform ? a.format.localeCompare(b.format) : a.platform.localeCompare(b.platform);

export function artifactView(a: Artifact, did = serviceDid()): ArtifactView {
  return {
    id: a.id,
    platform: a.platform as Platform,
    format: a.format ? (a.format as PluginFormat) : null,
    file_type: a.fileType,
    filename: a.filename,
    content_type: a.contentType,
    size: a.size,
    sha256: a.sha256,
    sha512: a.sha512,
    signature: a.signature,
    signature_key_id: `${did}#${a.keyId}`,
    blockmap_size: a.blockmapSize,
  };
}

/** The public shape of a release; `did` defaults to this service's did:web. */
export function releaseView(r: ReleaseWithArtifacts, did = serviceDid()): ReleaseView {
  return {
    version: r.version,
    channel: r.channel as Channel,
    status: r.status as ReleaseView["status"],
    notes: r.notes,
    notes_html: renderNotes(r.notes),
    published_at: r.publishedAt?.toISOString() ?? null,
    yanked_at: r.yankedAt?.toISOString() ?? null,
    artifacts: [...r.artifacts].sort(ARTIFACT_ORDER).map((a) => artifactView(a, did)),
  };
}

/** Published, not yanked releases of a product, newest first (semver order). */
export async function publishedReleases(productId: string): Promise<ReleaseWithArtifacts[]> {
  const rows = await getDb().release.findMany({ where: { productId, status: "published" }, include: { artifacts: true } });
  return newestFirst(rows);
}

/** Every release of a product, drafts and yanked included, newest first: the seller's view. */
export async function allReleases(productId: string): Promise<ReleaseWithArtifacts[]> {
  const rows = await getDb().release.findMany({ where: { productId }, include: { artifacts: true } });
  return newestFirst(rows);
}

/** Newest published stable release per product: for catalogs and listings. Products without one are absent. */
export async function latestReleases(productIds: string[]): Promise<Map<string, { version: string; published_at: string }>> {
  const out = new Map<string, { version: string; published_at: string }>();
  if (!productIds.length) return out;
  const rows = await getDb().release.findMany({
    where: { productId: { in: [...new Set(productIds)] }, status: "published", channel: "stable" },
    select: { productId: true, version: true, publishedAt: true },
  });
  const best = new Map<string, (typeof rows)[number]>();
  for (const row of rows) {
    const current = best.get(row.productId);
    if (!current || compareReleases(row, current) > 0) best.set(row.productId, row);
  }
  for (const [id, row] of best) out.set(id, { version: row.version, published_at: (row.publishedAt ?? new Date(0)).toISOString() });
  return out;
}
