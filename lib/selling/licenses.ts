import { z } from "zod";
import { dbEngine, getDb } from "../db.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { licenseEmail } from "../email/templates.ts";
import { env } from "../env.ts";
import { AppError, notFound } from "../http/errors.ts";
import { CONTROL_CHARACTER_MESSAGE, singleLineText } from "../http/input.ts";
import { deactivateMachine } from "../licensing/deactivate-machine.ts";
import { issueLicense } from "../licensing/issue-license.ts";
import type { Actor } from "../licensing/license-events.ts";
import { setLicenseStatus } from "../licensing/set-license-status.ts";
import { emailSchema } from "../licensing/trial-schemas.ts";
import { downloadPath } from "../marketplace/get-download.ts";
import { mailDownloads } from "../updates/mail-downloads.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";

/** What the seller's actions on a license need: its key and its machines. */
const licenseView = { id: true, key: true, activations: { select: { id: true, fingerprint: true } } } as const;

async function sellerLicense(developerId: string, licenseId: string) {
  const license = await getDb().license.findFirst({ where: { id: licenseId, product: { developerId } }, select: licenseView });
  if (!license) throw notFound("license", "You have no license with this id.");
  return license;
}

/** A seller acting without a name: callers that know who it is pass `{ type: "seller", name: ctx.seller.actor }`. */
const SELLER: Actor = { type: "seller", name: null };

/**
 * Releases one machine of one of the seller's licenses (a buyer who reinstalled and wrote in, say): logged as
 * "released" by the seller, undoable for a minute (lib/licensing/restore-machine.ts).
 */
export async function sellerReleaseMachine(developerId: string, licenseId: string, activationId: string, actor: Actor = SELLER) {
  const license = await sellerLicense(developerId, licenseId);
  const activation = license.activations.find((a) => a.id === activationId);
  if (!activation) throw notFound("activation", "This license has no such machine.");
  return deactivateMachine({ license_key: license.key, machine_fingerprint: activation.fingerprint }, actor);
}

export async function sellerSetLicenseStatus(developerId: string, licenseId: string, active: boolean, reason?: string, actor: Actor = SELLER) {
  await sellerLicense(developerId, licenseId);
  return setLicenseStatus({ licenseId, active, reason, actor });
}

export const complimentaryInputSchema = z.object({
  product_id: z.string().min(1).max(64).refine(singleLineText, CONTROL_CHARACTER_MESSAGE),
  buyer_email: emailSchema,
  max_machines: z.int().min(1).max(100).optional(),
});

/** At most this many complimentary licenses to one address per seller in 24 hours. */
export const COMPLIMENTARY_PER_RECIPIENT_PER_DAY = 2;
const DAY_MS = 24 * 60 * 60 * 1000;
/** A seller is new for this long after signing up, until a first paid sale. */
const NEW_SELLER_MS = 7 * DAY_MS;

type Tx = Parameters<Parameters<ReturnType<typeof getDb>["$transaction"]>[0]>[0];

function quotaExceeded(detail: string, oldest: Date | undefined, now: number): AppError {
  const retry = oldest ? Math.max(1, Math.ceil((oldest.getTime() + DAY_MS - now) / 1000)) : 3600;
  return new AppError("complimentary_quota_exceeded", 429, detail, { headers: { "Retry-After": String(retry) } });
}

/**
 * Refuses a complimentary license beyond the seller's quotas: COMPLIMENTARY_PER_DAY in 24 hours (a new seller:
 * COMPLIMENTARY_NEW_SELLER_PER_DAY), and COMPLIMENTARY_PER_RECIPIENT_PER_DAY to one address. Counted in the database
 * in the transaction that issues the license, after the seller's row is locked (PostgreSQL; SQLite runs one write
 * transaction at a time), so the quotas hold across instances, restarts and concurrent requests.
 */
async function checkComplimentaryQuota(tx: Tx, developerId: string, buyerEmail: string, now: number): Promise<void> {
  if (dbEngine() === "postgresql") await tx.$queryRaw`SELECT 1 FROM "Developer" WHERE "id" = ${developerId} FOR UPDATE`;
  const since = new Date(now - DAY_MS);
  const developer = await tx.developer.findUniqueOrThrow({ where: { id: developerId }, select: { createdAt: true } });
  const young = developer.createdAt.getTime() > now - NEW_SELLER_MS;
  const isNew = young && (await tx.order.count({ where: { product: { developerId }, paidAt: { not: null } } })) === 0;
  const { COMPLIMENTARY_PER_DAY, COMPLIMENTARY_NEW_SELLER_PER_DAY } = env();
  const limit = isNew ? Math.min(COMPLIMENTARY_NEW_SELLER_PER_DAY, COMPLIMENTARY_PER_DAY) : COMPLIMENTARY_PER_DAY;
  const recent = { source: "complimentary", product: { developerId }, issuedAt: { gte: since } };
  const sent = await tx.license.findMany({
    where: recent,
    orderBy: { issuedAt: "asc" },
    take: limit + 1,
    select: { issuedAt: true, buyerEmail: true },
  });
  if (sent.length >= limit) {
    const why = isNew
      ? `New sellers may send ${String(limit)} complimentary licenses a day (for the first 7 days, or until a first sale).`
      : `You may send ${String(limit)} complimentary licenses a day.`;
    throw quotaExceeded(`${why} You have reached that limit; try again later.`, sent[0]?.issuedAt, now);
  }
  const toRecipient = await tx.license.findMany({
    where: { ...recent, buyerEmail },
    orderBy: { issuedAt: "asc" },
    take: COMPLIMENTARY_PER_RECIPIENT_PER_DAY,
    select: { issuedAt: true },
  });
  if (toRecipient.length >= COMPLIMENTARY_PER_RECIPIENT_PER_DAY) {
    throw quotaExceeded(
      `You may send at most ${String(COMPLIMENTARY_PER_RECIPIENT_PER_DAY)} complimentary licenses a day to the same address; try again later.`,
      toRecipient[0]?.issuedAt,
      now,
    );
  }
}

/**
 * A free license for one of the seller's products (press, giveaways, support), e-mailed like a purchase but sent
 * on the seller's behalf, within the seller's daily quotas (see checkComplimentaryQuota): a refused request issues
 * no license and sends no mail.
 */
export async function issueComplimentaryLicense(
  developerId: string,
  input: z.infer<typeof complimentaryInputSchema>,
  now = Date.now(),
  actor: Actor = SELLER,
) {
  const db = getDb();
  const product = await db.product.findFirst({ where: { id: input.product_id, developerId }, include: { developer: { select: { name: true } } } });
  if (!product) throw notFound("product", "You have no product with this id.");
  const buyerEmail = input.buyer_email.trim().toLowerCase();
  const license = await db.$transaction(async (tx) => {
    await checkComplimentaryQuota(tx, developerId, buyerEmail, now);
    const l = await issueLicense(
      tx,
      { productId: product.id, buyerEmail, maxMachines: input.max_machines ?? product.maxMachines, source: "complimentary" },
      actor,
    );
    const mail = licenseEmail({
      buyerEmail: l.buyerEmail,
      productName: product.name,
      developerName: product.developer.name,
      licenseKey: l.key,
      maxMachines: l.maxMachines,
      pluginId: product.pluginId,
      downloadUrl: absoluteUrl(downloadPath(product.id, l)),
      release: await mailDownloads(tx, l.id),
      receiptUrl: absoluteUrl(`/api/receipt?key=${l.key}`),
      productPageUrl: absoluteUrl(paths.product(product.id)),
      orderId: `complimentary-${l.id}`,
      amountDisplay: "Complimentary",
      source: "complimentary",
    });
    await enqueueEmail(tx, { to: l.buyerEmail, ...mail, kind: "license", dedupeKey: `license:complimentary:${l.id}` });
    return l;
  });
  kickOutbox();
  kickWebhooks(); // license.created to the seller's endpoints
  return license;
}
