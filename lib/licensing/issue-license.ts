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
  for (let attempt = 0; ; attempt++) {
    try {
      return await tx.license.create({
        data: {
          key: generateLicenseKey(),
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
    } catch (error) {
      // 80 random bits make a key collision practically impossible; if one happens, draw again.
      const target = String((error as { meta?: { target?: unknown } }).meta?.target ?? "");
      if ((error as { code?: string }).code !== "P2002" || !/key/.test(target) || attempt >= 3) throw error;
    }
  }
}
