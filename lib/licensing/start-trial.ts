import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { issueLicense } from "./issue-license.ts";

const DAY = 86_400_000;

/**
 * Gives a buyer a time-limited trial license for a product that offers one. One trial per buyer and product:
 * asking again returns the same license (expired or not), never a fresh trial.
 */
export async function startTrial(input: { productId: string; buyerEmail: string }, now = Date.now()) {
  const db = getDb();
  const email = input.buyerEmail.trim().toLowerCase();
  const product = await db.product.findFirst({
    where: { id: input.productId, status: "active" },
    select: { id: true, name: true, pluginId: true, trialAvailable: true, trialDays: true, maxMachines: true },
  });
  if (!product) throw notFound("product", `No listed product has the id "${input.productId}".`);
  if (!product.trialAvailable || product.trialDays <= 0) {
    throw new AppError("trial_not_available", 409, `${product.name} does not offer a trial.`);
  }
  const trialOf = `${product.id}:${email}`;
  const existing = await db.license.findUnique({ where: { trialOf } });
  if (!existing && (await db.license.count({ where: { productId: product.id, buyerEmail: email, trial: false, isActive: true } })) > 0) {
    throw new AppError("already_licensed", 409, `This address already has a license for ${product.name}; no trial is needed.`);
  }
  const license =
    existing ??
    (await issueLicense(db, {
      productId: product.id,
      buyerEmail: email,
      maxMachines: product.maxMachines,
      source: "trial",
      trial: true,
      expiresAt: new Date(now + product.trialDays * DAY),
      trialOf,
    }).catch(async (error: unknown) => {
      // A concurrent request for the same buyer and product won; its trial is the one.
      if ((error as { code?: string }).code !== "P2002") throw error;
      return db.license.findUniqueOrThrow({ where: { trialOf } });
    }));
  return { license, product, created: !existing };
}
