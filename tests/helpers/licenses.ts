import { createHash, randomBytes } from "node:crypto";
import { getDb } from "@/lib/db";
import { issueLicense } from "@/lib/licensing/issue-license";

export const fingerprint = (label = randomBytes(8).toString("hex")) => createHash("sha256").update(`cpu:${label}|os:linux`).digest("hex");

/** A product of the seeded catalogue with at least `minMachines` seats and no trial. */
async function seededProduct(minMachines = 1) {
  return getDb().product.findFirstOrThrow({
    // A seller without webhook endpoints: an earlier file on the worker's database may have given one to a seeded
    // seller, and activations for such a seller take the general path (direct-activation.test.ts checks the direct one).
    where: { status: "active", maxMachines: { gte: minMachines }, trialAvailable: false, developer: { webhookEndpoints: { none: {} } } },
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
