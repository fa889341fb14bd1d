import type { Db } from "../db.ts";
import { generateLicenseKey } from "./keys.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

export interface IssueLicenseInput {
  productId: string;
  buyerEmail: string;
  maxMachines: number;
  source: "purchase" | "trial" | "complimentary";
  trial?: boolean;
  expiresAt?: Date | null;
  orderId?: string | null;
  trialOf?: string | null;
}

/**
 * Creates a license with a fresh key. Runs inside the caller's transaction (fulfilment, trial, complimentary
 * grant) so the license exists only together with what caused it.
 */
export async function issueLicense(tx: Tx | Db, input: IssueLicenseInput) {
  // 80 random bits make a collision practically impossible; checking first keeps even that from failing the
  // caller's transaction (PostgreSQL aborts a transaction on a unique violation, so a retry after one cannot work).
  let key = generateLicenseKey();
  while (await tx.license.findUnique({ where: { key }, select: { id: true } })) key = generateLicenseKey();
  return tx.license.create({
    data: {
      key,
      productId: input.productId,
      buyerEmail: input.buyerEmail.trim().toLowerCase(),
      maxMachines: input.maxMachines,
      source: input.source,
      trial: input.trial ?? false,
      expiresAt: input.expiresAt ?? null,
      orderId: input.orderId ?? null,
      trialOf: input.trialOf ?? null,
    },
  });
}
