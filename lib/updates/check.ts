import semver from "semver";
import { z } from "zod";
import type { Artifact } from "../generated/sqlite/client.ts";
import { AppError } from "../http/errors.ts";
import { serviceDid } from "../identity/did.ts";
import { signingKeys } from "../identity/service-keys.ts";
import { pluginIdSchema } from "../licensing/schemas.ts";
import { CHANNELS, FILE_TYPES, PLATFORMS, PLUGIN_FORMATS, type Channel } from "../releases/platforms.ts";
import { artifactView, type ReleaseWithArtifacts } from "../releases/read.ts";
import { artifactViewSchema } from "../releases/schemas.ts";
import { minisignPublicKey } from "../releases/sign.ts";
import { objectStore } from "../storage/index.ts";
import { checkLicensedMachine, recordSeen, type LicensedMachine } from "./access.ts";
import { feedToken, feedUrls } from "./feed-token.ts";
import { artifactFor, channelSees, entitlementOf, newerNotEntitled, pick, type Entitlement, type Wanted } from "./select.ts";

/**
 * The update check an app makes with its license key and machine: GET /api/updates/{plugin_id}. It answers the newest
 * release the license is entitled to on the app's channel, for its platform (and plugin format), with size, hashes,
 * the Ed25519 signature and a short-lived signed download URL, or "up_to_date"; plus until when the license gets
 * updates, the newest version it is not entitled to, and this machine's updater feed URLs.
 */

/** A version an app reports: semver, a leading "v" and build metadata tolerated (apps send what they were built with). */
export const appVersionSchema = z
  .string()
  .trim()
  .max(64)
  .transform((v, ctx) => {
    const parsed = semver.parse(v.replace(/^v/i, ""));
    if (parsed) return parsed.version;
    ctx.addIssue({ code: "custom", message: "must be a semantic version, e.g. 1.2.0" });
    return z.NEVER;
  })
  .describe("The app's current version (semver), e.g. 1.2.0");

export const updateParamsSchema = z.object({ plugin_id: pluginIdSchema });

const platformSchema = z.enum(PLATFORMS).describe(`The machine's platform: ${PLATFORMS.join(", ")}`);
const formatSchema = z.enum(PLUGIN_FORMATS).describe("For audio plugins: the plugin format (vst3, au, aax, clap); omit for an application");
const fileTypeSchema = z
  .enum(FILE_TYPES)
  .describe(
    "Which file when a release has several for the platform (zip, dmg, exe, msi, tar.gz, …); omitted: the one updaters install (.zip on macOS, the installer on Windows, the AppImage on Linux)",
  );
const fingerprintQuery = z.string().max(200).optional().describe("The machine fingerprint, when the X-Machine-Fingerprint header cannot be sent");

export const updateQuerySchema = z.object({
  version: appVersionSchema.optional(),
  platform: platformSchema,
  format: formatSchema.optional(),
  file_type: fileTypeSchema.optional(),
  channel: z.enum(CHANNELS).default("stable").describe("stable (default), or beta: beta and stable releases, the newest wins"),
  fingerprint: fingerprintQuery,
});
export type UpdateQuery = z.infer<typeof updateQuerySchema>;

export const downloadQuerySchema = z.object({
  version: appVersionSchema.optional().describe("The version to download; the newest entitled one when omitted"),
  platform: platformSchema,
  format: formatSchema.optional(),
  file_type: fileTypeSchema.optional(),
  channel: z.enum(CHANNELS).default("stable").describe("When no version is named: stable (default) or beta"),
  fingerprint: fingerprintQuery,
});
export type DownloadQuery = z.infer<typeof downloadQuerySchema>;

export const updateCheckSchema = z.object({
  status: z
    .enum(["update_available", "up_to_date", "no_build_for_platform"])
    .describe(
      "update_available: `latest` is newer than `version`; up_to_date: it is not (or nothing is released yet); no_build_for_platform: releases this license may have exist on the channel, but none has a build for this platform (and format): `latest` is null and the app should not read that as up to date.",
    ),
  current_version: z.string().nullable(),
  channel: z.enum(CHANNELS),
  latest: z
    .object({
      version: z.string(),
      channel: z.enum(CHANNELS),
      notes: z.string(),
      published_at: z.string(),
      artifact: artifactViewSchema.extend({ url: z.string(), url_expires_at: z.string() }),
    })
    .nullable(),
  updates_until: z.string().nullable().describe("When the license's updates end (update policy 'days'); null when they do not"),
  newer_not_entitled: z.string().nullable().describe("The newest version out that this license is not entitled to, if newer"),
  feeds: z.object({ electron: z.string(), sparkle: z.string(), tauri: z.string() }).describe("This machine's updater feed URLs"),
});
export type UpdateCheck = z.infer<typeof updateCheckSchema>;

/** A short-lived signed URL of an artifact's bytes, named as the seller uploaded it. */
export async function signedArtifactUrl(artifact: Artifact): Promise<{ url: string; expiresAt: Date }> {
  return objectStore().signedUrl(artifact.storageKey, { filename: artifact.filename, contentType: artifact.contentType });
}

/** A short-lived signed URL of an artifact's blockmap (stored under `key`), named `<filename>.blockmap`. */
export async function blockmapUrl(key: string, filename: string): Promise<{ url: string; expiresAt: Date }> {
  return objectStore().signedUrl(key, { filename: `${filename}.blockmap`, contentType: "application/octet-stream" });
}

export async function checkForUpdate(pluginId: string, creds: { key: string; fingerprint: string }, q: UpdateQuery): Promise<UpdateCheck> {
  const who = await checkLicensedMachine(pluginId, creds.key, creds.fingerprint);
  await recordSeen(who, q.version);
  const ent = await entitlementOf(who);
  const wanted: Wanted = { platform: q.platform, format: q.format ?? null, fileType: q.file_type ?? null, channel: q.channel };
  const hit = pick(ent, wanted);
  const release = hit.release;
  const current = q.version ?? null;
  const newest = release?.version ?? null;
  const available = release !== null && (current === null || semver.gt(release.version, current));
  let latest: UpdateCheck["latest"] = null;
  if (hit.release) {
    const { release, artifact } = hit;
    const signed = await signedArtifactUrl(artifact);
    latest = {
      version: release.version,
      channel: release.channel as Channel,
      notes: release.notes,
      published_at: (release.publishedAt ?? release.createdAt).toISOString(),
      artifact: { ...artifactView(artifact, serviceDid()), url: signed.url, url_expires_at: signed.expiresAt.toISOString() },
    };
  }
  const than = [newest, current].filter((v): v is string => v !== null).sort(semver.rcompare)[0] ?? null;
  return {
    status: available
      ? "update_available"
      : release === null && ent.entitled.some((r) => channelSees(q.channel, r))
        ? "no_build_for_platform"
        : "up_to_date",
    current_version: current,
    channel: q.channel,
    latest,
    updates_until: ent.updatesUntil?.toISOString() ?? null,
    newer_not_entitled: newerNotEntitled(ent, wanted, than),
    feeds: feedUrls(who.product.pluginId, await feedToken(who.activationId)),
  };
}

/**
 * The release and artifact a download asks for: a named version (404 release_not_found when there is no such
 * published release, 403 release_not_entitled when it is outside the license's entitlement) or the newest entitled one.
 */
function downloadTarget(
  ent: Entitlement,
  q: Pick<DownloadQuery, "version" | "platform" | "format" | "file_type" | "channel">,
): { release: ReleaseWithArtifacts; artifact: Artifact } {
  const wanted: Wanted = { platform: q.platform, format: q.format ?? null, fileType: q.file_type ?? null, channel: q.channel };
  if (q.version === undefined) {
    const hit = pick(ent, wanted);
    if (!hit.release) throw new AppError("release_not_found", 404, "No release this license is entitled to has a build for this platform.");
    return hit;
  }
  const release = ent.all.find((r) => r.version === q.version);
  if (!release) throw new AppError("release_not_found", 404, `No published release ${q.version}.`);
  if (!ent.entitled.some((r) => r.id === release.id)) {
    // An updates plan that has lapsed: the refusal says so, and where to renew it.
    const until = ent.updatesUntil;
    const lapsedOn = ent.renewUrl !== null && until !== null && release.publishedAt !== null && release.publishedAt > until ? until : null;
    throw new AppError(
      "release_not_entitled",
      403,
      lapsedOn
        ? `This license's updates ended on ${lapsedOn.toISOString().slice(0, 10)}, before ${release.version} was published. Renew them for another year at ${ent.renewUrl ?? ""} (the license keeps working either way).`
        : `This license is not entitled to ${release.version} (see the product's update policy).`,
    );
  }
  const artifact = artifactFor(release, q.platform, q.format ?? null, q.file_type ?? null);
  if (!artifact)
    throw new AppError("artifact_not_found", 404, `Release ${release.version} has no build for ${q.platform}${q.format ? ` (${q.format})` : ""}.`);
  return { release, artifact };
}

/** GET /api/updates/{plugin_id}/download: where to redirect a licensed app for a build. */
export async function downloadUpdate(pluginId: string, creds: { key: string; fingerprint: string }, q: DownloadQuery): Promise<{ location: string }> {
  const who = await checkLicensedMachine(pluginId, creds.key, creds.fingerprint);
  await recordSeen(who);
  const { artifact } = downloadTarget(await entitlementOf(who), q);
  return { location: (await signedArtifactUrl(artifact)).url };
}

/**
 * An artifact by id for a licensed machine (the feeds' download links): it must belong to a release the license is
 * entitled to (403 release_not_entitled otherwise; 404 artifact_not_found when it is not one of this product's
 * published artifacts).
 */
export async function entitledArtifact(who: LicensedMachine, artifactId: string): Promise<Artifact> {
  const ent = await entitlementOf(who);
  for (const release of ent.all) {
    const artifact = release.artifacts.find((a) => a.id === artifactId);
    if (!artifact) continue;
    if (!ent.entitled.some((r) => r.id === release.id)) {
      throw new AppError("release_not_entitled", 403, `This license is not entitled to ${release.version} (see the product's update policy).`);
    }
    return artifact;
  }
  throw new AppError("artifact_not_found", 404, "No published build of this product has that id.");
}

/** The verification keys apps embed: Ed25519 (Sparkle's SUPublicEDKey) and minisign (Tauri's pubkey), current first. */
export const updateKeysSchema = z.object({
  ed25519: z.array(z.object({ key_id: z.string(), public_key_base64: z.string() })),
  minisign: z.array(z.object({ key_id: z.string(), pubkey: z.string() })),
});

export async function updateKeys(): Promise<z.infer<typeof updateKeysSchema>> {
  const { current, all } = await signingKeys();
  const did = serviceDid();
  const ordered = [current, ...all.filter((k) => k.id !== current.id)];
  return {
    ed25519: ordered.map((k) => ({ key_id: `${did}#${k.id}`, public_key_base64: k.raw.toString("base64") })),
    minisign: ordered.map((k) => ({ key_id: `${did}#${k.id}`, pubkey: minisignPublicKey(k) })),
  };
}
