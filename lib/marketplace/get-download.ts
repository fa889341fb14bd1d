import { safeDownloadTarget } from "../selling/download-url.ts";
import { getDb } from "../db.ts";
import { capabilityToken, capabilityTokenId, capabilityTokenValid } from "../http/capability-token.ts";
import { AppError, notFound } from "../http/errors.ts";
import { licenseIsActive } from "../receipts/issue-receipt.ts";
import { absoluteUrl, paths } from "../urls.ts";

export type Download = { kind: "redirect"; url: string } | { kind: "file"; filename: string; body: string };

/**
 * Download links are capabilities: `/downloads/<product id>?t=<license id>.<mac>`, the mac an HMAC-SHA256 keyed with
 * the license key, so only someone who holds the key (or was sent the link) can make one, no server secret is needed
 * to write it inside a transaction, and the key itself never appears in a URL. The link works while the license does.
 */
const purpose = (productId: string, licenseId: string) => `download:v1:${productId}:${licenseId}`;

/** The path of a license holder's download link for a product (what license e-mails and pages link to). */
export function downloadPath(productId: string, license: { id: string; key: string }): string {
  return `${paths.download(productId)}?t=${capabilityToken(license.id, license.key, purpose(productId, license.id))}`;
}

const licenseRequired = () =>
  new AppError(
    "download_license_required",
    403,
    "Downloads are for license holders: use the download link in your license e-mail or on your licenses page.",
  );

/** Whether a download token is genuine, for this product, and its license in force. */
async function licenseOfToken(productId: string, token: string | undefined): Promise<boolean> {
  const id = capabilityTokenId(token);
  if (!token || !id) return false;
  const license = await getDb().license.findUnique({
    where: { id },
    select: { id: true, key: true, productId: true, isActive: true, expiresAt: true },
  });
  if (!license || license.productId !== productId) return false;
  return capabilityTokenValid(token, license.key, purpose(productId, license.id)) && licenseIsActive(license);
}

/**
 * Where a product's download lives. Sellers host their builds and give an absolute URL, which is only ever
 * redirected to for a holder of a license in force (a download link from a license e-mail or page), after the URL
 * is checked again (a value stored before the rule existed is refused, not followed). The demo catalogue's products
 * point here, and get a small read-me file in place of a real installer, to anyone.
 */
export async function getDownload(productId: string, token?: string): Promise<Download> {
  const product = await getDb().product.findFirst({
    where: { id: productId },
    select: { id: true, name: true, status: true, downloadUrl: true, pluginId: true, developer: { select: { name: true } } },
  });
  const missing = () => notFound("product", `No listed product has the id "${productId}".`);
  if (!product) throw missing();
  if (product.downloadUrl !== paths.download(product.id)) {
    // An unlisted product's holders keep their download; everyone else learns nothing about it.
    const licensed = await licenseOfToken(product.id, token);
    if (!licensed) {
      if (product.status !== "active") throw missing();
      throw licenseRequired();
    }
    // No download URL: the product ships its files through Releases, which My licenses lists for the key's holder.
    if (!product.downloadUrl) return { kind: "redirect", url: absoluteUrl(paths.myLicenses) };
    const target = safeDownloadTarget(product.downloadUrl, product.id);
    if (!target) {
      throw new AppError("download_unavailable", 410, "The seller's download link for this product is not usable. Please contact the seller.");
    }
    return { kind: "redirect", url: target };
  }
  if (product.status !== "active") throw missing();
  return {
    kind: "file",
    filename: `${product.id}-README.txt`,
    body: [
      `${product.name} by ${product.developer.name}`,
      "",
      "This listing is part of the demo catalogue, so there is no installer behind it.",
      "A real listing links to the seller's own build here.",
      "",
      `The licensed app identifies itself with plugin_id "${product.pluginId}" when it calls /activate and /validate.`,
      "",
    ].join("\n"),
  };
}
