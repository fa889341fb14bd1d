import { getDb } from "../db.ts";
import { licenseDownloads } from "../updates/downloads.ts";

/** What lib/updates/downloads.ts answers for one license: entitled releases with links, updates_until, newer_not_entitled. */
export type LicenseDownloads = Awaited<ReturnType<typeof licenseDownloads>>;

/** The products among `productIds` with at least one published release (one query for a whole page of licenses). */
export async function productsWithReleases(productIds: readonly string[]): Promise<Set<string>> {
  if (productIds.length === 0) return new Set();
  const rows = await getDb().release.findMany({
    where: { productId: { in: [...new Set(productIds)] }, status: "published" },
    select: { productId: true },
    distinct: ["productId"],
  });
  return new Set(rows.map((r) => r.productId));
}

/**
 * The downloads a license's pages show (the checkout success page, My licenses): the releases the license is
 * entitled to, newest first, each file with its license-gated link. Null when the product has no published release:
 * those pages keep the product's single download link, as before releases existed. `withReleases` is the answer of
 * productsWithReleases when the caller already has it for many licenses.
 */
export async function downloadsForLicense(
  license: { id: string; productId: string },
  withReleases?: ReadonlySet<string>,
): Promise<LicenseDownloads | null> {
  const has = withReleases ? withReleases.has(license.productId) : (await productsWithReleases([license.productId])).size > 0;
  return has ? licenseDownloads(license.id) : null;
}

/** The same by license key (the checkout success page knows the key); null for an unknown key too. */
export async function downloadsForLicenseKey(key: string): Promise<LicenseDownloads | null> {
  const license = await getDb().license.findUnique({ where: { key }, select: { id: true, productId: true } });
  return license ? downloadsForLicense(license) : null;
}
