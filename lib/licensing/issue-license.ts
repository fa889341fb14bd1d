import type { Db } from "../db.ts";
import { LICENSE_FACTS } from "../seller-webhooks/payloads.ts";
import { generateLicenseKey } from "./keys.ts";
import { licenseChanged } from "./license-change.ts";
import type { Actor } from "./license-events.ts";

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
  /** A license a bundle's order issued (one per included product): that order, and the bundle's name for the log. */
  bundle?: { orderId: string; productId: string; name: string } | null;
}

type IssuedLicense = Awaited<ReturnType<typeof createLicense>>;

const createLicense = (tx: Tx, data: Parameters<Tx["license"]["create"]>[0]["data"]) =>
  tx.license.create({ include: { product: { select: LICENSE_FACTS.product.select } }, data });

/** Who issues a license when the caller does not say: the payment (a purchase), the buyer (a trial), the seller. */
function defaultActor(input: IssueLicenseInput): Actor {
  if (input.source === "purchase") return { type: "payment", name: null };
  if (input.source === "trial") return { type: "buyer", name: input.buyerEmail.trim().toLowerCase() };
  return { type: "seller", name: null };
}

/**
 * Creates a license with a fresh key. Runs inside the caller's transaction (fulfilment, trial, complimentary
 * grant) so the license exists only together with what caused it, and so does its "issued" event and the seller's
 * license.created webhook: the caller calls kickWebhooks() after its commit.
 */
export async function issueLicense(db: Tx | Db, input: IssueLicenseInput, actor: Actor = defaultActor(input)): Promise<IssuedLicense> {
  // Outside a transaction (scripts, tests): one of its own, so the license and its event still go together.
  if ("$connect" in db) return db.$transaction((tx) => issueLicense(tx, input, actor));
  const tx = db;
  // 80 random bits make a collision practically impossible; checking first keeps even that from failing the
  // caller's transaction (PostgreSQL aborts a transaction on a unique violation, so a retry after one cannot work).
  let key = generateLicenseKey();
  while (await tx.license.findUnique({ where: { key }, select: { id: true } })) key = generateLicenseKey();
  const license = await createLicense(tx, {
    key,
    productId: input.productId,
    buyerEmail: input.buyerEmail.trim().toLowerCase(),
    maxMachines: input.maxMachines,
    source: input.source,
    trial: input.trial ?? false,
    expiresAt: input.expiresAt ?? null,
    orderId: input.orderId ?? null,
    trialOf: input.trialOf ?? null,
    bundleOrderId: input.bundle?.orderId ?? null,
  });
  await licenseChanged(tx, license, "issued", actor, {
    detail: {
      source: license.source,
      order_id: license.orderId,
      ...(input.bundle ? { bundle_order_id: input.bundle.orderId, bundle_product_id: input.bundle.productId, bundle: input.bundle.name } : {}),
    },
    webhook: "license.created",
    at: license.issuedAt,
  });
  return license;
}
