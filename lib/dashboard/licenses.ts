import { z } from "zod";
import { getDb } from "../db.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { licenseEmail } from "../email/templates.ts";
import { notFound } from "../http/errors.ts";
import { deactivateMachine } from "../licensing/deactivate-machine.ts";
import { issueLicense } from "../licensing/issue-license.ts";
import { normalizeKey } from "../licensing/keys.ts";
import { setLicenseStatus } from "../licensing/set-license-status.ts";
import { emailSchema } from "../licensing/trial-schemas.ts";
import { licenseIsActive } from "../receipts/issue-receipt.ts";
import { absoluteUrl, paths } from "../urls.ts";

const licenseView = {
  id: true,
  key: true,
  buyerEmail: true,
  maxMachines: true,
  activeMachines: true,
  isActive: true,
  revokedAt: true,
  revokedReason: true,
  trial: true,
  source: true,
  issuedAt: true,
  expiresAt: true,
  orderId: true,
  product: { select: { id: true, name: true, pluginId: true, developerId: true } },
  activations: { select: { id: true, fingerprint: true, activatedAt: true, lastValidatedAt: true }, orderBy: { activatedAt: "asc" as const } },
} as const;

/** A seller's licenses, newest first, optionally matching a key (exact) or a buyer's e-mail (substring). */
export async function searchSellerLicenses(developerId: string, query = "", take = 50) {
  const q = query.trim();
  const byKey = /^[A-Za-z0-9]{4}-/.test(q);
  const licenses = await getDb().license.findMany({
    where: {
      product: { developerId },
      ...(q ? (byKey ? { key: normalizeKey(q) } : { buyerEmail: { contains: q.toLowerCase().slice(0, 254) } }) : {}),
    },
    orderBy: { issuedAt: "desc" },
    take,
    select: licenseView,
  });
  return licenses.map((l) => ({ ...l, active: licenseIsActive(l) }));
}

async function sellerLicense(developerId: string, licenseId: string) {
  const license = await getDb().license.findFirst({ where: { id: licenseId, product: { developerId } }, select: licenseView });
  if (!license) throw notFound("license", "You have no license with this id.");
  return license;
}

export async function getSellerLicense(developerId: string, licenseId: string) {
  const l = await sellerLicense(developerId, licenseId);
  return { ...l, active: licenseIsActive(l) };
}

/** Releases one machine of one of the seller's licenses (a buyer who reinstalled and wrote in, say). */
export async function sellerReleaseMachine(developerId: string, licenseId: string, activationId: string) {
  const license = await sellerLicense(developerId, licenseId);
  const activation = license.activations.find((a) => a.id === activationId);
  if (!activation) throw notFound("activation", "This license has no such machine.");
  return deactivateMachine({ license_key: license.key, machine_fingerprint: activation.fingerprint });
}

export async function sellerSetLicenseStatus(developerId: string, licenseId: string, active: boolean, reason?: string) {
  await sellerLicense(developerId, licenseId);
  return setLicenseStatus({ licenseId, active, reason });
}

export const complimentaryInputSchema = z.object({
  product_id: z.string().min(1).max(64),
  buyer_email: emailSchema,
  max_machines: z.int().min(1).max(100).optional(),
});

/** A free license for one of the seller's products (press, giveaways, support), e-mailed like a purchase. */
export async function issueComplimentaryLicense(developerId: string, input: z.infer<typeof complimentaryInputSchema>) {
  const db = getDb();
  const product = await db.product.findFirst({ where: { id: input.product_id, developerId }, include: { developer: { select: { name: true } } } });
  if (!product) throw notFound("product", "You have no product with this id.");
  const license = await db.$transaction(async (tx) => {
    const l = await issueLicense(tx, {
      productId: product.id,
      buyerEmail: input.buyer_email,
      maxMachines: input.max_machines ?? product.maxMachines,
      source: "complimentary",
    });
    const mail = licenseEmail({
      buyerEmail: l.buyerEmail,
      productName: product.name,
      developerName: product.developer.name,
      licenseKey: l.key,
      maxMachines: l.maxMachines,
      pluginId: product.pluginId,
      downloadUrl: absoluteUrl(product.downloadUrl),
      receiptUrl: absoluteUrl(`/api/receipt?key=${l.key}`),
      productPageUrl: absoluteUrl(paths.product(product.id)),
      orderId: `complimentary-${l.id}`,
      amountDisplay: "Complimentary",
    });
    await enqueueEmail(tx, { to: l.buyerEmail, ...mail, kind: "license", dedupeKey: `license:complimentary:${l.id}` });
    return l;
  });
  kickOutbox();
  return license;
}
