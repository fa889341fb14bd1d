import { kickWebhooks } from "../webhooks/deliver.ts";
import type { Db } from "../db.ts";
import { getDb } from "../db.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { trialEmail, trialNotNeededEmail } from "../email/templates.ts";
import { mailDownloads } from "../updates/mail-downloads.ts";
import { AppError, notFound } from "../http/errors.ts";
import { downloadPath } from "../marketplace/get-download.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { issueLicense } from "./issue-license.ts";
import { normaliseEmail } from "./trial-schemas.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

const DAY = 86_400_000;
/** A trial's key is mailed again at most once per this interval per address and product (no mail-bombing). */
export const TRIAL_RESEND_INTERVAL_MS = 10 * 60_000;
/** Trial mails to one address per hour, whatever the product; past this the request is answered but sends nothing. */
export const TRIAL_MAILS_PER_ADDRESS_PER_HOUR = 5;

/** What happened, for tests and logs; the API answers the same for all three. */
type TrialOutcome = "created" | "existing" | "owned";

export interface TrialResult {
  product: { id: string; name: string; pluginId: string; trialDays: number };
  outcome: TrialOutcome;
  /** The trial license (absent when the address owns the product). Never shown to an anonymous caller. */
  license?: { id: string; key: string; buyerEmail: string; expiresAt: Date | null; issuedAt: Date; trial: boolean };
  /** Whether a message was queued (false within the resend interval or past the per-address cap). */
  mailed: boolean;
}

const isUniqueViolation = (e: unknown) => (e as { code?: string } | null)?.code === "P2002";

/**
 * Gives an address a time-limited trial license for a product that offers one, and e-mails it the key: the key
 * never goes back to the caller, who may not own the address. One trial per mailbox and product: the address is
 * normalised (lower case; Gmail dots and provider tags dropped, see normaliseEmail) before it is counted, so
 * variants of one mailbox share the trial. Asking again re-sends the same key (at most once per
 * TRIAL_RESEND_INTERVAL_MS), never a fresh trial; an address that bought the product gets a short note instead.
 * The trial and its message commit in one transaction.
 */
export async function startTrial(input: { productId: string; buyerEmail: string }, now = Date.now()): Promise<TrialResult> {
  const db = getDb();
  const email = input.buyerEmail.trim().toLowerCase();
  const mailbox = normaliseEmail(email);
  const product = await db.product.findFirst({
    where: { id: input.productId, status: "active" },
    select: {
      id: true,
      name: true,
      pluginId: true,
      trialAvailable: true,
      trialDays: true,
      maxMachines: true,
      developer: { select: { name: true } },
    },
  });
  if (!product) throw notFound("product", `No listed product has the id "${input.productId}".`);
  if (!product.trialAvailable || product.trialDays <= 0) {
    throw new AppError("trial_not_available", 409, `${product.name} does not offer a trial.`);
  }
  const trialOf = `${product.id}:${mailbox}`;
  // Trials started before addresses were normalised are keyed by the lower-cased address.
  const keys = [...new Set([trialOf, `${product.id}:${email}`])];
  const window = Math.floor(now / TRIAL_RESEND_INTERVAL_MS);

  /** Queues a message unless the address had too many trial mails this hour; a dedupe key per window limits resends. */
  const queue = async (tx: Tx, to: string, mail: { subject: string; html: string; text: string }, dedupeKey: string) => {
    const recent = await tx.emailMessage.count({ where: { to, kind: "trial", createdAt: { gte: new Date(now - 3_600_000) } } });
    if (recent >= TRIAL_MAILS_PER_ADDRESS_PER_HOUR) return false;
    const before = await tx.emailMessage.findUnique({ where: { dedupeKey }, select: { id: true } });
    if (before) return false;
    await enqueueEmail(tx, { to, ...mail, kind: "trial", dedupeKey });
    return true;
  };

  // The download goes through this site's license-gated link, never straight to the seller's URL.
  const sendKey = async (tx: Tx, license: { id: string; key: string; buyerEmail: string; expiresAt: Date | null }) =>
    queue(
      tx,
      license.buyerEmail,
      trialEmail({
        buyerEmail: license.buyerEmail,
        productName: product.name,
        developerName: product.developer.name,
        licenseKey: license.key,
        maxMachines: product.maxMachines,
        pluginId: product.pluginId,
        downloadUrl: absoluteUrl(downloadPath(product.id, license)),
        // The product's release builds when it has any (each link checks the trial key), else the single link above.
        release: await mailDownloads(tx, license.id),
        productPageUrl: absoluteUrl(paths.product(product.id)),
        expiresAt: license.expiresAt ?? new Date(now + product.trialDays * DAY),
      }),
      `trial:${license.id}:${window}`,
    );

  const attempt = () =>
    db.$transaction(
      async (tx): Promise<TrialResult> => {
        const existing = await tx.license.findFirst({ where: { trialOf: { in: keys } }, orderBy: { issuedAt: "asc" } });
        if (existing) return { product, outcome: "existing", license: existing, mailed: await sendKey(tx, existing) };
        const owned = await tx.license.count({
          where: { productId: product.id, buyerEmail: { in: [...new Set([email, mailbox])] }, trial: false, isActive: true },
        });
        if (owned > 0) {
          const note = trialNotNeededEmail({ buyerEmail: email, productName: product.name });
          return { product, outcome: "owned", mailed: await queue(tx, email, note, `trial-owned:${product.id}:${mailbox}:${window}`) };
        }
        const license = await issueLicense(tx, {
          productId: product.id,
          buyerEmail: email,
          maxMachines: product.maxMachines,
          source: "trial",
          trial: true,
          expiresAt: new Date(now + product.trialDays * DAY),
          trialOf,
        });
        return { product, outcome: "created", license, mailed: await sendKey(tx, license) };
      },
      { maxWait: 10_000, timeout: 20_000 },
    );

  let result: TrialResult;
  try {
    result = await attempt();
  } catch (error) {
    // A concurrent request for the same mailbox and product won (the unique trialOf, or the same message's
    // dedupe key); its trial is the one, and this request is answered like a repeat.
    if (!isUniqueViolation(error)) throw error;
    result = await attempt();
  }
  if (result.mailed) kickOutbox();
  if (result.outcome === "created") kickWebhooks(); // license.created to the seller's endpoints
  return result;
}
