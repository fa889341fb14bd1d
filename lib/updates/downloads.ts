import { getDb } from "../db.ts";
import { capabilityToken, capabilityTokenId, capabilityTokenValid } from "../http/capability-token.ts";
import { AppError, notFound } from "../http/errors.ts";
import { licenseStanding } from "../licensing/evaluate.ts";
import { compareReleases, releaseView, type ArtifactView, type ReleaseView } from "../releases/read.ts";
import { serviceDid } from "../identity/did.ts";
import { licenseProblem } from "./access.ts";
import { signedArtifactUrl, entitledArtifact } from "./check.ts";
import { entitlementOf } from "./select.ts";

/**
 * A buyer's downloads of release builds, from the checkout success page, My licenses and license e-mails. Links are
 * capabilities like the product download links (lib/marketplace/get-download.ts): `/downloads/<product id>/<artifact
 * id>?t=<license id>.<mac>`, the mac an HMAC-SHA256 keyed with the license key, so only someone who holds the key (or
 * was sent the link) can make one, and the key itself never appears in a URL. Following one checks the license is in
 * force and entitled to that build, then redirects to a short-lived signed URL of the file. An unlisted product's
 * holders keep their downloads.
 */

const purpose = (productId: string, licenseId: string) => `artifact-download:v1:${productId}:${licenseId}`;

/** A license holder's download link for one artifact (pages and e-mails): /downloads/<productId>/<artifactId>?t=<license id>.<mac> → 302 to a signed URL. */
export function artifactDownloadPath(productId: string, artifactId: string, license: { id: string; key: string }): string {
  return `/downloads/${encodeURIComponent(productId)}/${encodeURIComponent(artifactId)}?t=${capabilityToken(license.id, license.key, purpose(productId, license.id))}`;
}

const licenseSelect = {
  id: true,
  key: true,
  productId: true,
  isActive: true,
  revocation: true,
  billing: true,
  trial: true,
  issuedAt: true,
  updatesUntil: true,
  expiresAt: true,
  product: { select: { id: true, pluginId: true, name: true, status: true, updatePolicy: true, updateDays: true, pricingModel: true } },
} as const;

type LicenseRow = NonNullable<Awaited<ReturnType<typeof loadLicense>>>;

function loadLicense(where: { id: string }) {
  return getDb().license.findUnique({ where, select: licenseSelect });
}

const standingOf = (l: LicenseRow, now = Date.now()) =>
  licenseStanding(
    {
      pluginId: l.product.pluginId,
      isActive: l.isActive,
      revocation: l.revocation,
      billing: l.billing,
      trial: l.trial,
      expiresAt: l.expiresAt?.getTime() ?? null,
    },
    l.product.pluginId,
    now,
  );

const who = (l: LicenseRow) => ({
  license: { id: l.id, key: l.key, issuedAt: l.issuedAt, trial: l.trial, expiresAt: l.expiresAt, updatesUntil: l.updatesUntil },
  product: l.product,
  activationId: "",
});

/** One release as a license holder sees it: its builds with their download links. */
export type LicenseDownloadRelease = Omit<ReleaseView, "artifacts"> & { artifacts: Array<ArtifactView & { download_path: string }> };

/**
 * What a license may download: the entitled releases newest first, each build with its download link, plus when the
 * license's updates end and the newest version it is not entitled to. A license not in force (revoked, refunded,
 * suspended, expired) has nothing to download: empty lists. An unknown license id is 404 license_not_found.
 */
export async function licenseDownloads(
  licenseId: string,
): Promise<{ releases: LicenseDownloadRelease[]; updates_until: string | null; newer_not_entitled: string | null }> {
  const license = await loadLicense({ id: licenseId });
  if (!license) throw new AppError("license_not_found", 404, "No license has that id.");
  const ent = await entitlementOf(who(license));
  const inForce = standingOf(license) === "VALID";
  const did = serviceDid();
  const releases = inForce
    ? ent.entitled.map((r) => {
        const view = releaseView(r, did);
        return {
          ...view,
          artifacts: view.artifacts.map((a) => ({ ...a, download_path: artifactDownloadPath(license.productId, a.id, license) })),
        };
      })
    : [];
  const entitled = new Set(ent.entitled.map((r) => r.id));
  const newestEntitled = ent.entitled[0];
  const newer = ent.all.find((r) => !entitled.has(r.id) && (!newestEntitled || compareReleases(r, newestEntitled) > 0));
  return {
    releases,
    updates_until: ent.updatesUntil?.toISOString() ?? null,
    newer_not_entitled: inForce ? (newer?.version ?? null) : null,
  };
}

/**
 * Follows a buyer's download link: the token must be genuine and for this product (otherwise 403
 * download_license_required, or 404 product_not_found when the product is not listed, so nothing is learned about
 * unlisted products), the license in force (403 license_revoked, license_refunded, license_suspended,
 * license_expired, trial_expired) and entitled to the build (403 release_not_entitled; 404 artifact_not_found).
 * Returns the short-lived signed URL to redirect to.
 */
export async function artifactDownloadLocation(productId: string, artifactId: string, token: string | undefined): Promise<string> {
  const id = capabilityTokenId(token);
  const license = id ? await loadLicense({ id }) : null;
  const genuine =
    license !== null &&
    token !== undefined &&
    license.productId === productId &&
    capabilityTokenValid(token, license.key, purpose(productId, license.id));
  if (!license || !genuine) {
    const product = await getDb().product.findUnique({ where: { id: productId }, select: { status: true } });
    if (!product || product.status !== "active") throw notFound("product", `No listed product has the id "${productId}".`);
    throw new AppError(
      "download_license_required",
      403,
      "Downloads are for license holders: use the download link on your licenses page or in your license e-mail.",
    );
  }
  const code = standingOf(license);
  if (code !== "VALID") throw licenseProblem(code);
  const artifact = await entitledArtifact(who(license), artifactId);
  return (await signedArtifactUrl(artifact)).url;
}
