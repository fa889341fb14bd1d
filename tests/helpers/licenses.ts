import { createHash, randomBytes } from "node:crypto";
import { getDb } from "@/lib/db";
import { issueLicense } from "@/lib/licensing/issue-license";

export const fingerprint = (label = randomBytes(8).toString("hex")) => createHash("sha256").update(`cpu:${label}|os:linux`).digest("hex");

/** A product of the seeded catalogue with at least `minMachines` seats and no trial. */
async function seededProduct(minMachines = 1) {
  return getDb().product.findFirstOrThrow({
    where: { status: "active", maxMachines: { gte: minMachines }, trialAvailable: false },
    orderBy: { id: "asc" },
  });
}

export async function newLicense(opts: { maxMachines?: number; expiresAt?: Date | null; productId?: string } = {}) {
  const product = opts.productId
    ? await getDb().product.findUniqueOrThrow({ where: { id: opts.productId } })
    : await seededProduct(opts.maxMachines ?? 1);
  const license = await issueLicense(getDb(), {
    productId: product.id,
    buyerEmail: `buyer-${randomBytes(4).toString("hex")}@example.com`,
    maxMachines: opts.maxMachines ?? product.maxMachines,
    source: "complimentary",
    expiresAt: opts.expiresAt ?? null,
  });
  return { license, product };
}
