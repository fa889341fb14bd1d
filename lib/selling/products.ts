import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { PRODUCT_STATUSES, type ProductStatus } from "../marketplace/constants.ts";
import { assertMayPublish, publishBlocker, publishing } from "./publish-gate.ts";
import { assertReady, platformWarnings, productReadiness, releaseBuilds } from "./publish.ts";
import type { ProductInput } from "../marketplace/schemas.ts";
import { buildSearchText } from "../marketplace/search-text.ts";
import { syncProductSearch } from "../marketplace/search-index.ts";
import { demoLinks, stringList, updatePolicyOf } from "../marketplace/serialize.ts";
import { slugify } from "./developer-profile.ts";
import { assertDownloadUrl } from "./download-url.ts";
import { assertIconSize, droppedUploads, releaseUploads, storeImagesByUrl } from "./uploads.ts";

/**
 * A seller's products. Every operation is scoped to the seller's developer id on the server: another seller's
 * product is "not found", whatever the UI shows.
 */

export async function listSellerProducts(developerId: string) {
  const db = getDb();
  const products = await db.product.findMany({
    where: { developerId },
    orderBy: { createdAt: "desc" },
    select: {
      id: true,
      name: true,
      tagline: true,
      priceCents: true,
      currency: true,
      category: true,
      status: true,
      salesCount: true,
      iconUrl: true,
      maxMachines: true,
      trialAvailable: true,
      createdAt: true,
    },
  });
  // Counted per product through the (productId, issuedAt) index: Prisma's `_count` of a relation counts every
  // seller's licenses first (tests/integration/query-plans.test.ts).
  // 500 ids per query: databases cap the parameters of one statement.
  const licenses = new Map<string, number>();
  for (let i = 0; i < products.length; i += 500) {
    const ids = products.slice(i, i + 500).map((p) => p.id);
    for (const c of await db.license.groupBy({ by: ["productId"], where: { productId: { in: ids } }, _count: { _all: true } }))
      licenses.set(c.productId, c._count._all);
  }
  return products.map((p) => ({ ...p, _count: { licenses: licenses.get(p.id) ?? 0 } }));
}

export async function getSellerProduct(developerId: string, productId: string) {
  const product = await getDb().product.findFirst({ where: { id: productId, developerId } });
  if (!product) throw notFound("product", "You have no product with this id.");
  return product;
}

/** The form's starting values for an existing product. */
export function productToInput(p: Awaited<ReturnType<typeof getSellerProduct>>): ProductInput {
  return {
    name: p.name,
    tagline: p.tagline,
    description: p.description,
    plugin_id: p.pluginId,
    price_cents: p.priceCents,
    currency: p.currency as ProductInput["currency"],
    category: p.category as ProductInput["category"],
    max_machines: p.maxMachines,
    seat_model: p.seatModel as ProductInput["seat_model"],
    trial_available: p.trialAvailable,
    trial_days: p.trialDays,
    allow_transfers: p.allowTransfers,
    platforms: stringList(p.platforms) as ProductInput["platforms"],
    compatibility: stringList(p.compatibility),
    inputs: stringList(p.inputs),
    outputs: stringList(p.outputs),
    min_version: p.minVersion,
    download_url: p.downloadUrl,
    icon_url: p.iconUrl,
    images: stringList(p.images),
    update_policy: updatePolicyOf(p.updatePolicy),
    update_days: p.updatePolicy === "days" ? p.updateDays : null,
    system_requirements: p.systemRequirements,
    demo_links: demoLinks(p.demoLinks),
    pricing_model: p.pricingModel === "subscription" ? "subscription" : p.pricingModel === "updates_plan" ? "updates_plan" : "one_time",
    renewal_price_cents: p.renewalPriceCents,
    monthly_price_cents: p.monthlyPriceCents,
    yearly_price_cents: p.yearlyPriceCents,
    subscription_trial_days: p.subscriptionTrialDays,
    grace_days: p.graceDays,
    fallback_after_months: p.fallbackAfterMonths,
  };
}

/**
 * The update policy, system requirements and demo links: each written only when the input has it, so a client that
 * leaves them out (one written before they existed) neither fails nor resets them. A policy other than "days" clears
 * the day count.
 */
function releaseColumns(input: ProductInput) {
  return {
    ...(input.update_policy
      ? { updatePolicy: input.update_policy, updateDays: input.update_policy === "days" ? (input.update_days ?? null) : null }
      : {}),
    ...(input.system_requirements !== undefined ? { systemRequirements: input.system_requirements } : {}),
    ...(input.demo_links !== undefined ? { demoLinks: input.demo_links } : {}),
  };
}

/**
 * How the product is sold. A subscription's listed price is its lowest period price (monthly when offered), so the
 * catalogue sorts and filters it with the rest. Left out (a client written before subscriptions): a new product is
 * sold once and an update keeps the product's model and terms; only the one-time price is written.
 */
function pricingColumns(input: ProductInput) {
  if (input.pricing_model === "subscription") {
    const monthly = input.monthly_price_cents ?? null;
    const yearly = input.yearly_price_cents ?? null;
    return {
      pricingModel: "subscription",
      priceCents: monthly ?? yearly ?? input.price_cents,
      monthlyPriceCents: monthly,
      yearlyPriceCents: yearly,
      ...(input.subscription_trial_days !== undefined ? { subscriptionTrialDays: input.subscription_trial_days } : {}),
      ...(input.grace_days !== undefined ? { graceDays: input.grace_days } : {}),
      fallbackAfterMonths: input.fallback_after_months ?? null,
    };
  }
  if (input.pricing_model === "updates_plan") {
    return {
      pricingModel: "updates_plan",
      priceCents: input.price_cents,
      renewalPriceCents: input.renewal_price_cents ?? null,
      monthlyPriceCents: null,
      yearlyPriceCents: null,
      fallbackAfterMonths: null,
    };
  }
  if (input.pricing_model === "one_time") {
    return {
      pricingModel: "one_time",
      priceCents: input.price_cents,
      monthlyPriceCents: null,
      yearlyPriceCents: null,
      renewalPriceCents: null,
      fallbackAfterMonths: null,
    };
  }
  return { priceCents: input.price_cents };
}

function columns(input: ProductInput, developerName: string) {
  return {
    name: input.name,
    tagline: input.tagline,
    description: input.description,
    pluginId: input.plugin_id,
    ...pricingColumns(input),
    // Absent: a new product takes the column's default (usd), an update keeps the product's currency.
    ...(input.currency ? { currency: input.currency } : {}),
    category: input.category,
    maxMachines: input.max_machines,
    seatModel: input.seat_model,
    trialAvailable: input.trial_available,
    trialDays: input.trial_available ? input.trial_days : 0,
    ...(input.allow_transfers !== undefined ? { allowTransfers: input.allow_transfers } : {}),
    platforms: input.platforms,
    compatibility: input.compatibility,
    inputs: input.inputs,
    outputs: input.outputs,
    minVersion: input.min_version || null,
    downloadUrl: input.download_url,
    iconUrl: input.icon_url,
    images: input.images,
    ...releaseColumns(input),
    searchText: buildSearchText({ ...input, pluginId: input.plugin_id, developerName }),
  };
}

async function pluginIdFree(pluginId: string, exceptProductId?: string) {
  const owner = await getDb().product.findUnique({ where: { pluginId }, select: { id: true } });
  if (owner && owner.id !== exceptProductId) {
    throw new AppError("plugin_id_taken", 409, `The plugin_id "${pluginId}" is already used by another product; choose your own reverse-domain id.`);
  }
}

/**
 * A new product of the seller's: a draft, shown to no buyer until its seller publishes it (publishProduct), or, with
 * `publish`, listed at once under the same checks (409 product_not_ready naming what is missing).
 */
export async function createProduct(developerId: string, given: ProductInput, options: { publish?: boolean } = {}) {
  const db = getDb();
  const developer = await db.developer.findUniqueOrThrow({ where: { id: developerId } });
  // A new product has no demo read-me of its own: only a seller's absolute URL (or none: files through Releases).
  if (given.download_url) assertDownloadUrl(given.download_url, null);
  // Checked early for a quick answer; a publishing write checks the seller again, under the seller's lock.
  if (options.publish) {
    const pricing = pricingColumns(given);
    assertReady(
      await productReadiness({
        id: null,
        developerId,
        name: given.name,
        description: given.description,
        pricingModel: pricing.pricingModel ?? "one_time",
        priceCents: pricing.priceCents,
        monthlyPriceCents: pricing.monthlyPriceCents ?? null,
        yearlyPriceCents: pricing.yearlyPriceCents ?? null,
        iconUrl: given.icon_url,
        downloadUrl: given.download_url,
        platforms: given.platforms,
      }),
    );
  } else {
    // A suspended seller starts nothing new, not even a draft.
    const blocker = await publishBlocker(developerId, 0);
    if (blocker) throw new AppError(blocker.code, blocker.status, blocker.message);
  }
  await pluginIdFree(given.plugin_id);
  // Images given by URL, fetched once and stored as uploads, once the cheaper checks passed: only paths are saved.
  const input = await storeImagesByUrl(developerId, given);
  await assertIconSize(input.icon_url);
  const base = slugify(input.name);
  for (let n = 1; n <= 50; n++) {
    const id = n === 1 ? base : `${base}-${n}`;
    if (await db.product.findUnique({ where: { id }, select: { id: true } })) continue;
    try {
      const write = async (tx: Parameters<Parameters<typeof db.$transaction>[0]>[0]) => {
        const status = options.publish ? "active" : "draft";
        const created = await tx.product.create({ data: { id, developerId, status, ...columns(input, developer.name) } });
        await syncProductSearch(tx, { productIds: [id] });
        return created;
      };
      return await (options.publish ? publishing(developerId, input.price_cents, write) : db.$transaction(write));
    } catch (error) {
      if ((error as { code?: string }).code !== "P2002") throw error;
      await pluginIdFree(input.plugin_id);
    }
  }
  throw new AppError("product_id_taken", 409, "Could not find a free address for this product name; try another name.");
}

export async function updateProduct(developerId: string, productId: string, given: ProductInput) {
  const product = await getSellerProduct(developerId, productId);
  const developer = await getDb().developer.findUniqueOrThrow({ where: { id: developerId } });
  // A demo product keeps its own read-me path; any other relative path would send buyers elsewhere on this site.
  if (given.download_url) assertDownloadUrl(given.download_url, product.id);
  // A listed product keeps a way to its files: a download URL or a published release with one.
  if (product.status === "active" && !given.download_url && !(await releaseBuilds(product.id)).any) {
    throw new AppError(
      "invalid_body",
      400,
      'Invalid field "download_url": a listed product needs a download URL until a published release has a file',
      {
        errors: [{ in: "body", name: "download_url", message: "a listed product needs a download URL until a published release has a file" }],
      },
    );
  }
  // Turning a listed free product into a paid one is publishing a paid listing.
  if (product.status === "active" && given.price_cents > 0 && product.priceCents === 0) await assertMayPublish(developerId, given.price_cents);
  await pluginIdFree(given.plugin_id, product.id);
  // As for a new product: images given by URL are fetched once and saved as the paths of their stored copies.
  const input = await storeImagesByUrl(developerId, given);
  // A new icon is held to the stated minimum size; one saved before the rule stays until it is replaced.
  if (input.icon_url !== product.iconUrl) await assertIconSize(input.icon_url);
  let updated: typeof product;
  try {
    // The search index is written in the same transaction as the product: a search never finds the old words.
    updated = await getDb().$transaction(async (tx) => {
      const saved = await tx.product.update({ where: { id: product.id }, data: columns(input, developer.name) });
      await syncProductSearch(tx, { productIds: [product.id] });
      return saved;
    });
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") await pluginIdFree(input.plugin_id, product.id);
    throw error;
  }
  // A replaced icon or screenshot is deleted now (unless another product uses the same file) rather than left behind.
  const dropped = droppedUploads([product.iconUrl, ...stringList(product.images)], [updated.iconUrl, ...stringList(updated.images)]);
  if (dropped.length > 0) await releaseUploads(dropped).catch((error: unknown) => console.error("releasing replaced uploads failed", error));
  return updated;
}

function heldByOperator(product: { status: string; moderationReason: string | null }): AppError {
  return new AppError(
    "listing_held_by_operator",
    409,
    product.status === "removed"
      ? `The operator removed this listing${product.moderationReason ? `: ${product.moderationReason}` : ""}. Contact the operator to have it restored.`
      : "Your seller account is suspended, so this listing is hidden until the operator reinstates it.",
  );
}

/**
 * Publishes a draft (or relists an unlisted product) once it has what a buyer needs, else 409 product_not_ready
 * naming each missing thing; a listed product is answered as it is (publishing twice changes nothing). The warnings
 * name listed platforms no published release has a file for. A listing the operator holds: 409 listing_held_by_operator.
 */
export async function publishProduct(developerId: string, productId: string) {
  const product = await getSellerProduct(developerId, productId);
  if (product.status === "active") return { product, warnings: platformWarnings(stringList(product.platforms), await releaseBuilds(product.id)) };
  if (!(PRODUCT_STATUSES as readonly string[]).includes(product.status)) throw heldByOperator(product);
  const readiness = await productReadiness(product);
  assertReady(readiness);
  // Conditional on the status read above (an operator's change in between is not overwritten), under the seller's lock.
  const { count } = await publishing(developerId, product.priceCents, (tx) =>
    tx.product.updateMany({ where: { id: product.id, status: product.status }, data: { status: "active" } }),
  );
  const now = await getSellerProduct(developerId, productId);
  if (count === 0 && now.status !== "active") {
    throw new AppError("listing_changed", 409, "This listing was changed by someone else in the meantime; reload and try again.");
  }
  return { product: now, warnings: readiness.warnings };
}

/**
 * Unlists (hidden from the store, the API and checkout; existing licenses keep working), relists, or takes a product
 * back to a draft. Listing a draft is publishing it (publishProduct's checks); unlisting a draft leaves it a draft.
 */
export async function setProductStatus(developerId: string, productId: string, status: ProductStatus) {
  const product = await getSellerProduct(developerId, productId);
  if (!(PRODUCT_STATUSES as readonly string[]).includes(product.status)) throw heldByOperator(product);
  if (status === "active" && product.status === "draft") return (await publishProduct(developerId, productId)).product;
  if (status === "unlisted" && product.status === "draft") return product;
  // Conditional on the status read above, so an operator's suspension or removal in between is not overwritten; a
  // relist is checked against the rule under the seller's lock (see publishing).
  const change = (tx: Pick<ReturnType<typeof getDb>, "product">) =>
    tx.product.updateMany({ where: { id: product.id, status: product.status }, data: { status } });
  const { count } = status === "active" ? await publishing(developerId, product.priceCents, change) : await change(getDb());
  if (count === 0) throw new AppError("listing_changed", 409, "This listing was changed by someone else in the meantime; reload and try again.");
  return getDb().product.findUniqueOrThrow({ where: { id: product.id } });
}
