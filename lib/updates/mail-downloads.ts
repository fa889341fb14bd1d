import type { Db } from "../db.ts";
import { entitledReleases } from "../releases/entitlement.ts";
import { FORMAT_LABELS, isPlatform, isPluginFormat, PLATFORM_LABELS } from "../releases/platforms.ts";
import { compareReleases } from "../releases/read.ts";
import { absoluteUrl } from "../urls.ts";
import { artifactDownloadPath } from "./downloads.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** The release builds a license e-mail links: one release's files, each with its license-gated link. */
export interface MailDownloads {
  version: string;
  files: Array<{ label: string; url: string }>;
}

/** "macOS (Universal) · VST3 · Tape-1.2.0.dmg": what a build is, then its file's name. */
function fileLabel(a: { platform: string; format: string; filename: string }): string {
  const platform = isPlatform(a.platform) ? PLATFORM_LABELS[a.platform] : a.platform;
  const format = isPluginFormat(a.format) ? ` · ${FORMAT_LABELS[a.format]}` : "";
  return `${platform}${format} · ${a.filename}`;
}

/**
 * For a license e-mail, read in the transaction that issues the license (so the new license is seen): the newest
 * release the license is entitled to (stable first; a beta only when there is no stable one), each of its builds with
 * the license-gated download link (`/downloads/<product>/<artifact>?t=…`, lib/updates/downloads.ts). Null when the
 * product has no published release with a file: the mail keeps the product's single download link then.
 */
export async function mailDownloads(tx: Tx, licenseId: string): Promise<MailDownloads | null> {
  const license = await tx.license.findUnique({
    where: { id: licenseId },
    select: {
      id: true,
      key: true,
      productId: true,
      issuedAt: true,
      updatesUntil: true,
      product: { select: { updatePolicy: true, updateDays: true } },
    },
  });
  if (!license) return null;
  const { product } = license;
  const rows = await tx.release.findMany({ where: { productId: license.productId, status: "published" }, include: { artifacts: true } });
  const entitled = entitledReleases(product, license, rows)
    .filter((r) => r.artifacts.length > 0)
    .sort((a, b) => compareReleases(b, a));
  const release = entitled.find((r) => r.channel === "stable") ?? entitled[0];
  if (!release) return null;
  const files = [...release.artifacts]
    .sort((a, b) => a.platform.localeCompare(b.platform) || a.format.localeCompare(b.format) || a.filename.localeCompare(b.filename))
    .map((a) => ({ label: fileLabel(a), url: absoluteUrl(artifactDownloadPath(license.productId, a.id, license)) }));
  return { version: release.version, files };
}
