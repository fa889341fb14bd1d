import { formatPrice, PRICING } from "../pricing.ts";
import { isRecurring, offeredIntervals, UPDATES_PLAN_MONTHS } from "../subscriptions/plans.ts";
import { roundAverage } from "../reviews/rating.ts";
import type { BundleContent } from "../bundles/read-bundles.ts";
import { absoluteUrl, paths, productIconPath, productImagePaths } from "../urls.ts";
import type { Category, Platform, SeatModel } from "./constants.ts";
import { UPDATE_POLICIES } from "../releases/platforms.ts";
import { DEMO_LINK_KINDS, type CatalogProduct, type ListingProduct, type ProductDetails } from "./schemas.ts";

/** The newest published stable release of a product, as listings, the catalog and the details show it. */
type LatestVersion = { version: string; published_at: string };
type UpdatePolicyName = (typeof UPDATE_POLICIES)[number];

/** The columns of a product row the serializers read, with its developer. */
export interface ProductRow {
  id: string;
  pluginId: string;
  name: string;
  tagline: string;
  description: string;
  priceCents: number;
  currency: string;
  category: string;
  maxMachines: number;
  seatModel: string;
  trialAvailable: boolean;
  trialDays: number;
  pricingModel: string;
  monthlyPriceCents: number | null;
  yearlyPriceCents: number | null;
  renewalPriceCents: number | null;
  subscriptionTrialDays: number;
  graceDays: number;
  fallbackAfterMonths: number | null;
  platforms: unknown;
  compatibility: unknown;
  inputs: unknown;
  outputs: unknown;
  images: unknown;
  minVersion: string | null;
  downloadUrl: string;
  iconUrl: string;
  createdAt: Date;
  developer: { id: string; name: string };
  /** Attached by the readers that list products (one query for the whole page); absent means none. */
  latestVersion?: LatestVersion | null;
  /** A bundle (lib/bundles); its included products are attached by the readers, as the latest version is. */
  isBundle: boolean;
  bundleProrate: boolean;
  bundleItems?: BundleContent[];
  /** Kept by lib/reviews from the visible reviews. */
  ratingCount: number;
  ratingAverage: number;
}

export const productSelect = {
  id: true,
  pluginId: true,
  name: true,
  tagline: true,
  description: true,
  priceCents: true,
  currency: true,
  category: true,
  maxMachines: true,
  seatModel: true,
  trialAvailable: true,
  trialDays: true,
  pricingModel: true,
  monthlyPriceCents: true,
  yearlyPriceCents: true,
  renewalPriceCents: true,
  subscriptionTrialDays: true,
  graceDays: true,
  fallbackAfterMonths: true,
  platforms: true,
  compatibility: true,
  inputs: true,
  outputs: true,
  images: true,
  minVersion: true,
  downloadUrl: true,
  iconUrl: true,
  createdAt: true,
  ratingCount: true,
  ratingAverage: true,
  isBundle: true,
  bundleProrate: true,
  developer: { select: { id: true, name: true } },
} as const;

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export function toListingProduct(p: ProductRow): ListingProduct {
  return {
    id: p.id,
    name: p.name,
    plugin_id: p.pluginId,
    tagline: p.tagline,
    description: p.description,
    price_cents: p.priceCents,
    price_display: formatPrice(p.priceCents, p.currency),
    currency: p.currency,
    category: p.category as Category,
    developer: p.developer.name,
    developer_id: p.developer.id,
    max_machines: p.maxMachines,
    seat_model: p.seatModel as SeatModel,
    trial_available: p.trialAvailable,
    trial_days: p.trialAvailable ? p.trialDays : 0,
    platforms: stringList(p.platforms) as Platform[],
    compatibility: stringList(p.compatibility),
    inputs: stringList(p.inputs),
    outputs: stringList(p.outputs),
    min_version: p.minVersion,
    // A product saved before images given by URL were stored may hold another site's address: never handed out.
    icon_url: absoluteUrl(productIconPath(p.iconUrl)),
    // Always this site's license-gated download route, never the seller's installer address: it hands the build to a
    // license holder's link (from the license e-mail or My licenses) and answers anyone else 403 download_license_required.
    download_url: absoluteUrl(paths.download(p.id)),
    product_page: absoluteUrl(paths.product(p.id)),
    checkout_url: absoluteUrl(paths.checkout(p.id)),
    created_at: p.createdAt.toISOString(),
    latest_version: p.latestVersion ?? null,
    rating: { average: roundAverage(p.ratingAverage), count: p.ratingCount },
    pricing_model: p.pricingModel === "subscription" ? "subscription" : p.pricingModel === "updates_plan" ? "updates_plan" : "one_time",
    subscription: subscriptionTerms(p),
    updates_plan:
      p.pricingModel === "updates_plan" && p.renewalPriceCents !== null
        ? { months: UPDATES_PLAN_MONTHS, renewal_price_cents: p.renewalPriceCents }
        : null,
    ...(p.isBundle && p.bundleItems
      ? {
          bundle: {
            items: p.bundleItems.map((i) => ({
              id: i.id,
              name: i.name,
              max_machines: i.maxMachines,
              product_page: absoluteUrl(paths.product(i.id)),
            })),
            prorate: p.bundleProrate,
          },
        }
      : {}),
  };
}

/** A subscription product's terms as listings and product pages state them; null for a product bought once. */
function subscriptionTerms(
  p: Pick<
    ProductRow,
    | "pricingModel"
    | "priceCents"
    | "monthlyPriceCents"
    | "yearlyPriceCents"
    | "renewalPriceCents"
    | "subscriptionTrialDays"
    | "graceDays"
    | "fallbackAfterMonths"
  >,
): ListingProduct["subscription"] {
  if (!isRecurring(p)) return null;
  return {
    intervals: offeredIntervals(p),
    monthly_price_cents: p.monthlyPriceCents,
    yearly_price_cents: p.yearlyPriceCents,
    trial_days: p.subscriptionTrialDays,
    grace_days: p.graceDays,
    fallback_after_months: p.fallbackAfterMonths,
  };
}

export function toCatalogProduct(p: ProductRow): CatalogProduct {
  const l = toListingProduct(p);
  return {
    id: l.id,
    name: l.name,
    plugin_id: l.plugin_id,
    description: l.description,
    price_cents: l.price_cents,
    price_display: l.price_display,
    currency: l.currency,
    category: l.category,
    developer: l.developer,
    max_machines: l.max_machines,
    download_url: l.download_url,
    icon_url: l.icon_url,
    created_at: l.created_at,
    compatibility: l.compatibility,
    inputs: l.inputs,
    outputs: l.outputs,
    seat_model: l.seat_model,
    trial_available: l.trial_available,
    platforms: l.platforms,
    min_version: l.min_version ?? "",
    checkout_url: l.checkout_url,
    product_page: l.product_page,
    latest_version: l.latest_version,
    ...(l.bundle ? { bundle: l.bundle } : {}),
  };
}

/** What one purchase grants, in plain words. */
export function seatSummary(maxMachines: number, seatModel: string): string {
  const machines = `${maxMachines} machine${maxMachines === 1 ? "" : "s"}`;
  switch (seatModel) {
    case "per-user":
      return `One license per person, usable on up to ${machines} at once.`;
    case "per-seat":
      return `One seat per license, activated on up to ${machines}.`;
    case "floating":
      return `A floating license: up to ${machines} in use at the same time; release a machine to use another.`;
    default:
      return `Activate on up to ${machines}; release a machine any time to move the license.`;
  }
}

export interface DemoLink {
  kind: (typeof DEMO_LINK_KINDS)[number];
  url: string;
  title: string;
}

/**
 * The demo links stored in a product's JSON column, keeping only well-formed https entries: the column is written
 * through the schema, but a row edited by hand must not put a javascript: link on a page.
 */
export function demoLinks(value: unknown): DemoLink[] {
  if (!Array.isArray(value)) return [];
  const out: DemoLink[] = [];
  for (const v of value as unknown[]) {
    if (!v || typeof v !== "object") continue;
    const { kind, url, title } = v as Record<string, unknown>;
    if (!(DEMO_LINK_KINDS as readonly unknown[]).includes(kind) || typeof url !== "string" || typeof title !== "string") continue;
    if (!/^https:\/\//i.test(url) || !URL.canParse(url)) continue;
    out.push({ kind: kind as DemoLink["kind"], url, title });
  }
  return out;
}

/** A stored update policy, "all" for anything unknown (the widest entitlement is the safe reading for a buyer). */
export function updatePolicyOf(value: string): UpdatePolicyName {
  return (UPDATE_POLICIES as readonly string[]).includes(value) ? (value as UpdatePolicyName) : "all";
}

/** The columns details read beyond a listing's. */
export interface ProductDetailsRow extends ProductRow {
  developer: {
    id: string;
    name: string;
    website: string | null;
    bio: string;
    refundPolicy: string;
    supportEmail: string | null;
    supportUrl: string | null;
  };
  systemRequirements: string;
  demoLinks: unknown;
  updatePolicy: string;
  updateDays: number | null;
}

export function toProductDetails(p: ProductDetailsRow, developerProductCount: number): ProductDetails {
  const l = toListingProduct(p);
  return {
    ...l,
    images: productImagePaths(stringList(p.images)).map(absoluteUrl),
    developer_info: {
      id: p.developer.id,
      name: p.developer.name,
      website: p.developer.website,
      bio: p.developer.bio,
      product_count: developerProductCount,
      products_url: absoluteUrl(paths.developer(p.developer.id)),
    },
    pricing: {
      price_cents: l.price_cents,
      price_display: l.price_display,
      currency: l.currency,
      trial_available: l.trial_available,
      trial_days: l.trial_days,
      license: seatSummary(p.maxMachines, p.seatModel),
      platform_fee_percent: PRICING.transaction_fee_percent,
    },
    system_requirements: p.systemRequirements,
    refund_policy: p.developer.refundPolicy,
    support: { email: p.developer.supportEmail, url: p.developer.supportUrl },
    demo_links: demoLinks(p.demoLinks),
    update_policy: updatePolicyOf(p.updatePolicy),
    update_days: p.updatePolicy === "days" ? p.updateDays : null,
  };
}
