import { z } from "zod";
import { CACHE } from "../http/headers.ts";
import { RULES } from "../http/rate-limit.ts";
import { CHANNELS } from "../releases/platforms.ts";
import { appCredentials, updateLimits } from "../updates/access.ts";
import {
  checkForUpdate,
  downloadQuerySchema,
  downloadUpdate,
  updateCheckSchema,
  updateKeys,
  updateKeysSchema,
  updateParamsSchema,
  updateQuerySchema,
} from "../updates/check.ts";
import {
  ELECTRON_FEED_FILES,
  electronFeed,
  feedArtifactLocation,
  feedArtifactNamedLocation,
  feedParamsSchema,
  feedQuerySchema,
  sparkleAppcast,
  tauriFeed,
  tauriFeedSchema,
} from "../updates/feeds.ts";
import { operation } from "./define.ts";

/**
 * What a licensed app calls to update itself: the JSON update check and its download (the license key in
 * `X-License-Key` or `Authorization: License <key>`, the machine in `X-Machine-Fingerprint` or `?fingerprint=`), the
 * feeds real updaters read (a per-machine capability token in the path instead of headers), and the keys apps embed
 * to verify what they download. Every call checks the license as /validate does (same verdicts, same rate limits).
 */

const LICENSE_ERRORS = [400, 403, 404, 429];
const redirectOutput = z.object({ location: z.string() });
const feedLimits = (_i: unknown, c: { client: string }) => [[RULES.validate, c.client]] as Array<[typeof RULES.validate, string]>;

const feedArtifactParams = feedParamsSchema.extend({
  artifact_id: z
    .string()
    .max(64)
    .regex(/^[a-z0-9]+$/),
});
const FEED_ARTIFACT_DESCRIPTION =
  "The download link every feed lists: re-checks the machine's license and entitlement, then redirects (302) to a short-lived signed URL of the file.";

export const UPDATES = [
  operation({
    id: "checkForUpdate",
    summary: "Check for an update (licensed app)",
    description:
      "The newest release this license is entitled to on the channel, for the machine's platform (and plugin format), with size, SHA-256, SHA-512, the Ed25519 signature (verify with did.json) and a short-lived signed download URL; `up_to_date` when `version` is already the newest; `no_build_for_platform` (latest null) when releases exist but none has a build for the platform and format. The check counts as the machine's last seen, with `version` as its app version. Send the license key in `X-License-Key` (or `Authorization: License <key>`) and the activated machine's fingerprint in `X-Machine-Fingerprint` (or `?fingerprint=`). `feeds` gives this machine's electron-updater, Sparkle and Tauri feed URLs. Refusals: 404 license_not_found, 403 license_revoked, license_refunded, license_suspended, license_expired, trial_expired, machine_not_activated.",
    tag: "Updates",
    auth: "public",
    http: { method: "GET", path: "/api/updates/{plugin_id}" },
    input: { params: updateParamsSchema, query: updateQuerySchema },
    output: updateCheckSchema,
    limits: (_i, c) => updateLimits(c.headers, c.client),
    errors: LICENSE_ERRORS,
    handler: (i, c) => checkForUpdate(i.plugin_id, appCredentials(c.headers, i), i),
  }),
  operation({
    id: "downloadUpdate",
    summary: "Download a build (licensed app)",
    description:
      "Redirects (302) to a short-lived signed URL of the build for the platform (and plugin format): the named `version`, or the newest one the license is entitled to. Same credentials and refusals as the update check, plus 403 release_not_entitled for a version outside the license's update policy and 404 release_not_found / artifact_not_found.",
    tag: "Updates",
    auth: "public",
    http: { method: "GET", path: "/api/updates/{plugin_id}/download", redirect: true, status: 302 },
    input: { params: updateParamsSchema, query: downloadQuerySchema },
    output: redirectOutput,
    limits: (_i, c) => updateLimits(c.headers, c.client),
    errors: LICENSE_ERRORS,
    handler: (i, c) => downloadUpdate(i.plugin_id, appCredentials(c.headers, i), i),
  }),
  operation({
    id: "getUpdateKeys",
    summary: "Keys that verify builds (for apps to embed)",
    description:
      "The service's Ed25519 public keys, current first: `public_key_base64` is Sparkle's SUPublicEDKey and verifies every artifact's `signature`; `pubkey` is the same key as a minisign public key, Tauri's `plugins.updater.pubkey`. Retired keys stay listed so older builds keep verifying; the same keys are in /.well-known/did.json.",
    tag: "Updates",
    auth: "public",
    http: { method: "GET", path: "/api/updates/keys", cache: CACHE.document },
    output: updateKeysSchema,
    handler: () => updateKeys(),
  }),
  operation({
    id: "getElectronUpdateFeed",
    summary: "electron-updater feed (generic provider)",
    description:
      "latest.yml (Windows), latest-mac.yml (macOS .zip builds), latest-linux.yml and latest-linux-arm64.yml (AppImage), and beta.yml, beta-mac.yml, beta-linux.yml, beta-linux-arm64.yml for the beta channel, in electron-builder's format, listing the newest build this machine's license is entitled to. Configure `autoUpdater.setFeedURL({ provider: \"generic\", url: <feeds.electron> })`.",
    tag: "Updates",
    auth: "public",
    http: { method: "GET", path: "/api/updates/{plugin_id}/feeds/{token}/{file}", contentType: "text/yaml" },
    input: { params: feedParamsSchema.extend({ file: z.enum(ELECTRON_FEED_FILES) }), query: feedQuerySchema },
    output: z.string(),
    limits: feedLimits,
    errors: [403, 404, 429],
    handler: (i) => electronFeed(i.plugin_id, i.token, i.file, i.version),
  }),
  operation({
    id: "getSparkleAppcast",
    summary: "Sparkle appcast",
    description:
      "An RSS 2.0 appcast (Sparkle 2) with one item per macOS release this machine's license is entitled to: sparkle:version, sparkle:shortVersionString, sparkle:channel for betas, the notes as HTML, and an enclosure with length and sparkle:edSignature. Set SUFeedURL to <feeds.sparkle> and SUPublicEDKey to the key from /api/updates/keys.",
    tag: "Updates",
    auth: "public",
    http: { method: "GET", path: "/api/updates/{plugin_id}/feeds/{token}/appcast.xml", contentType: "application/rss+xml" },
    input: { params: feedParamsSchema, query: feedQuerySchema },
    output: z.string(),
    limits: feedLimits,
    errors: [403, 404, 429],
    handler: (i) => sparkleAppcast(i.plugin_id, i.token, i.version),
  }),
  operation({
    id: "getTauriUpdateFeed",
    summary: "Tauri v2 updater JSON",
    description:
      "Tauri v2's static update JSON (version, notes, pub_date, platforms {signature, url} per os-arch key) for the newest release this machine's license is entitled to; `?channel=beta` includes betas. Put <feeds.tauri> in plugins.updater.endpoints and the minisign key from /api/updates/keys in plugins.updater.pubkey.",
    tag: "Updates",
    auth: "public",
    http: { method: "GET", path: "/api/updates/{plugin_id}/feeds/{token}/tauri.json" },
    input: { params: feedParamsSchema, query: feedQuerySchema.extend({ channel: z.enum(CHANNELS).default("stable") }) },
    output: tauriFeedSchema,
    limits: feedLimits,
    errors: [403, 404, 429],
    handler: (i) => tauriFeed(i.plugin_id, i.token, i.channel, i.version),
  }),
  operation({
    id: "downloadFeedArtifact",
    summary: "Download a build from a feed",
    description: FEED_ARTIFACT_DESCRIPTION,
    tag: "Updates",
    auth: "public",
    http: { method: "GET", path: "/api/updates/{plugin_id}/feeds/{token}/artifacts/{artifact_id}", redirect: true, status: 302 },
    input: { params: feedArtifactParams },
    output: redirectOutput,
    limits: feedLimits,
    errors: [403, 404, 429],
    handler: (i) => feedArtifactLocation(i.plugin_id, i.token, i.artifact_id),
  }),
  operation({
    id: "downloadFeedArtifactNamed",
    summary: "Download a build from a feed (with its file name)",
    description: `${FEED_ARTIFACT_DESCRIPTION} The last segment names the file for updaters that read the URL's extension and architecture, and must be the build's own <platform>-<filename>; <platform>-<filename>.blockmap is its electron-builder blockmap (electron-updater's differential download) when the seller uploaded one. Any other name is 404 artifact_not_found.`,
    tag: "Updates",
    auth: "public",
    http: { method: "GET", path: "/api/updates/{plugin_id}/feeds/{token}/artifacts/{artifact_id}/{name}", redirect: true, status: 302 },
    input: {
      params: feedArtifactParams.extend({
        name: z
          .string()
          .max(300)
          .regex(/^[A-Za-z0-9._ +()-]+$/),
      }),
    },
    output: redirectOutput,
    limits: feedLimits,
    errors: [403, 404, 429],
    handler: (i) => feedArtifactNamedLocation(i.plugin_id, i.token, i.artifact_id, i.name),
  }),
];
