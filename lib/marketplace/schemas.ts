import { z } from "zod";
import { CONTROL_CHARACTER_MESSAGE as CONTROL, multiLineText, singleLineText } from "../http/input.ts";
import { CATEGORIES, PLATFORMS, SEAT_MODELS } from "./constants.ts";
import { SUPPORTED_CURRENCIES } from "../pricing.ts";
import { UPDATE_POLICIES } from "../releases/platforms.ts";
import { SITE_IMAGE_PATH } from "../urls.ts";
import { DEFAULT_GRACE_DAYS, INTERVALS, MAX_GRACE_DAYS, MAX_SUBSCRIPTION_TRIAL_DAYS, PRICING_MODELS } from "../subscriptions/plans.ts";

/** How a listing is sold, as every listing, catalog entry and product page states it. */
const subscriptionTermsSchema = z
  .object({
    intervals: z.array(z.enum(INTERVALS)).describe("The intervals it is billed by"),
    monthly_price_cents: z.int().nullable().describe("The price of one seat for a month; null when not sold monthly"),
    yearly_price_cents: z.int().nullable().describe("The price of one seat for a year; null when not sold yearly"),
    trial_days: z.int().describe("Free days before the first charge (0: none)"),
    grace_days: z.int().describe("Days the license keeps working after a renewal payment fails"),
    fallback_after_months: z
      .int()
      .nullable()
      .describe(
        "After this many paid months, ending the subscription leaves a perpetual license for the versions released while it was paid; null: no fallback",
      ),
  })
  .nullable()
  .describe("The subscription's terms, for a product sold by subscription; null for a product bought once");

/** Page size of GET /api/marketplace/listings when `limit` is not given, and the most it allows. */
export const LISTING_LIMIT = { default: 20, max: 50 } as const;
/** Page size of GET /api/catalog (fixed, so that `_links.next` pages are stable). */
export const CATALOG_PAGE_SIZE = 20;
/** A search longer than this is refused rather than truncated. */
export const SEARCH_MAX_LENGTH = 200;
export const MAX_PAGE = 10_000;

/** "relevance" ranks by how well products match the search (lib/marketplace/search.ts); the default with a search. */
export const LISTING_SORTS = ["relevance", "newest", "price_asc", "price_desc", "popular", "rating"] as const;
export const CATALOG_SORTS = ["newest", "price_asc", "price_desc", "name", "rating"] as const;
/** Every order the marketplace can list products in (the storefront offers all of them). */
export const ALL_SORTS = ["relevance", "newest", "price_asc", "price_desc", "popular", "name", "rating"] as const;
export type ProductSort = (typeof ALL_SORTS)[number];

/** The order a listing takes when none is asked for: best match first for a search, else newest first. */
export function defaultSort(search: string | undefined): ProductSort {
  return search?.trim() ? "relevance" : "newest";
}

export const categorySchema = z.enum(CATEGORIES);
const search = z.string().trim().max(SEARCH_MAX_LENGTH, `must be at most ${SEARCH_MAX_LENGTH} characters`);
const page = z.coerce.number().int().min(1).max(MAX_PAGE).default(1);

export const listingsQuerySchema = z.object({
  category: categorySchema.optional(),
  search: search.optional(),
  sort: z.enum(LISTING_SORTS).optional().describe("Without it: relevance when there is a search, else newest"),
  page,
  limit: z.coerce.number().int().min(1).max(LISTING_LIMIT.max).default(LISTING_LIMIT.default),
});

export const catalogQuerySchema = z.object({
  category: categorySchema.optional(),
  search: search.optional(),
  sort: z.enum(CATALOG_SORTS).default("newest"),
  page,
});
export type CatalogQuery = z.infer<typeof catalogQuerySchema>;

/** Product ids are URL slugs. */
export const productIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, "must be a product id: lowercase letters, digits and hyphens");
export const productParamsSchema = z.object({ id: productIdSchema });

const uri = z.url();
const dateTime = z.iso.datetime();
const stringList = z.array(z.string());

/** The newest published stable release, or null while a product has none (its single download link applies). */
const latestVersionSchema = z
  .object({ version: z.string().describe("Semantic version"), published_at: dateTime })
  .nullable()
  .describe("The newest published stable release; null when the product has no releases");

export const DEMO_LINK_KINDS = ["video", "audio"] as const;
export const MAX_DEMO_LINKS = 6;
export const SYSTEM_REQUIREMENTS_MAX = 500;
export const UPDATE_DAYS_MAX = 3650;

/** A demo as the public reads it: a link only, so nothing from another host loads with a product page. */
const demoLinkSchema = z.object({ kind: z.enum(DEMO_LINK_KINDS), url: uri, title: z.string() });

/** The verified-purchase reviews' figures (lib/reviews): hidden reviews count in neither. */
const listingRatingSchema = z
  .object({
    average: z.number().describe("Mean stars of the visible reviews, one decimal; 0 when there are none"),
    count: z.int().describe("How many visible reviews"),
  })
  .describe("The product's rating from verified-purchase reviews");

/** A product as the marketplace listing returns it. */
const listingProductSchema = z.object({
  id: z.string(),
  name: z.string(),
  plugin_id: z.string().describe("Identifier the licensed app sends to /validate and /activate"),
  tagline: z.string(),
  description: z.string(),
  price_cents: z.int(),
  price_display: z.string(),
  currency: z.string(),
  category: categorySchema,
  developer: z.string().describe("Developer name"),
  developer_id: z.string(),
  max_machines: z.int(),
  seat_model: z.enum(SEAT_MODELS),
  trial_available: z.boolean(),
  trial_days: z.int(),
  platforms: z.array(z.enum(PLATFORMS)),
  compatibility: stringList,
  inputs: stringList,
  outputs: stringList,
  min_version: z.string().nullable(),
  icon_url: uri.describe("The product's icon, on this site (a placeholder when the product still names another site's image)"),
  download_url: uri.describe(
    "This site's license-gated download route (/downloads/{id}): a license holder's link (license e-mail, My licenses) gets the build; without one it answers 403 download_license_required. The seller's own installer address is never shown.",
  ),
  product_page: uri,
  checkout_url: uri,
  created_at: dateTime,
  latest_version: latestVersionSchema,
  rating: listingRatingSchema,
  pricing_model: z
    .enum(PRICING_MODELS)
    .describe(
      '"one_time": bought once for price_cents; "subscription": billed each month or year (see subscription; price_cents is its lowest period price); "updates_plan": bought once for price_cents with a year of updates (see updates_plan)',
    ),
  subscription: subscriptionTermsSchema,
  updates_plan: z
    .object({
      months: z.int().describe("The updates each purchase or renewal includes, in months"),
      renewal_price_cents: z.int().describe("The price of one seat for a further year of updates"),
    })
    .nullable()
    .describe('For an "updates_plan" product: the license is perpetual and gets the releases published while its plan is paid; null otherwise'),
  bundle: z
    .object({
      items: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          max_machines: z.int().describe("Machines its license allows per seat bought"),
          product_page: uri,
        }),
      ),
      prorate: z.boolean().describe("A buyer who already holds licenses of some items pays less and gets licenses only for the others"),
    })
    .optional()
    .describe("Present when the product is a bundle: buying it issues one license per included product, each with its own machines"),
});
export type ListingProduct = z.infer<typeof listingProductSchema>;

export const listingsResponseSchema = z.object({
  products: z.array(listingProductSchema),
  total: z.int(),
  page: z.int(),
  limit: z.int(),
  pages: z.int(),
  next_page: z.int().nullable().describe("The page after this one; null on the last page"),
});

export const productDetailsSchema = listingProductSchema.extend({
  images: z.array(uri).describe("Screenshots, on this site"),
  developer_info: z.object({
    id: z.string(),
    name: z.string(),
    website: uri.nullable(),
    bio: z.string(),
    product_count: z.int(),
    products_url: uri,
  }),
  pricing: z.object({
    price_cents: z.int(),
    price_display: z.string(),
    currency: z.string(),
    trial_available: z.boolean(),
    trial_days: z.int(),
    license: z.string().describe("What one purchase grants, in plain words"),
    platform_fee_percent: z.number(),
  }),
  system_requirements: z.string().describe("Plain text; empty when the seller gave none"),
  refund_policy: z.string().describe("The seller's refund policy, plain text; a paid listing always has one"),
  support: z
    .object({ email: z.email().nullable(), url: uri.nullable() })
    .describe("Where buyers get help from the seller: an e-mail address, a web page or both (a paid listing has at least one)"),
  demo_links: z.array(demoLinkSchema).describe("Video and audio demos, as links to other sites"),
  update_policy: z
    .enum(UPDATE_POLICIES)
    .describe(
      'Which releases a license may download and update to: "all", "days" (those published within update_days of the purchase) or "major" (the major versions out at the purchase)',
    ),
  update_days: z.int().nullable().describe('Days of updates after the purchase with update_policy "days"; else null'),
});
export type ProductDetails = z.infer<typeof productDetailsSchema>;

export const categoriesResponseSchema = z.object({
  categories: z.array(z.object({ category: categorySchema, count: z.int() })),
});

/** A product as the capability catalog (GET /api/catalog) describes it: exactly the spec's fields, and a bundle's items when it is one. */
export const catalogProductSchema = z.object({
  id: z.string(),
  name: z.string(),
  plugin_id: z.string(),
  description: z.string(),
  price_cents: z.int(),
  price_display: z.string(),
  currency: z.string(),
  category: categorySchema,
  developer: z.string(),
  max_machines: z.int(),
  download_url: uri.describe(
    "This site's license-gated download route (/downloads/{id}): a license holder's link (license e-mail, My licenses) gets the build; without one it answers 403 download_license_required. The seller's own installer address is never shown.",
  ),
  icon_url: uri,
  created_at: dateTime,
  compatibility: stringList,
  inputs: stringList,
  outputs: stringList,
  seat_model: z.enum(SEAT_MODELS),
  trial_available: z.boolean(),
  platforms: z.array(z.enum(PLATFORMS)),
  min_version: z.string().describe("Minimum host version; empty when not applicable"),
  checkout_url: uri,
  product_page: uri,
  latest_version: latestVersionSchema,
  bundle: listingProductSchema.shape.bundle,
});
export type CatalogProduct = z.infer<typeof catalogProductSchema>;

/** A product as a seller writes it (dashboard form and API). The one schema both validate with. */
const tagList = z
  .array(z.string().trim().min(1).max(40).refine(singleLineText, CONTROL))
  .max(20)
  .transform((list) => [...new Set(list)]);
const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).max(500);
const localPath = z.string().regex(SITE_IMAGE_PATH, "must be an uploaded file path");
/** What the image fields say of an address: the server fetches it once and keeps its own copy (lib/selling/uploads.ts). */
const IMAGE_BY_URL =
  "an http(s) URL (https in production), which the server fetches once, checks and stores as an uploaded image (PNG, JPEG, WebP or GIF by its bytes, at most 512 KiB, within your upload quota), saving its /uploads/… path instead: the product and the answer carry that path, never the URL, so a product page loads nothing from another site";

export const productInputSchema = z
  .object({
    name: z.string().trim().min(2).max(80).refine(singleLineText, CONTROL),
    tagline: z.string().trim().max(160).refine(singleLineText, CONTROL).default(""),
    description: z.string().trim().min(20, "must be at least 20 characters").max(5000).refine(multiLineText, CONTROL),
    plugin_id: z
      .string()
      .trim()
      .min(3)
      .max(100)
      .regex(/^[a-z0-9]+(\.[a-z0-9-]+)+$/, "must be a reverse-domain identifier such as com.example.myapp"),
    price_cents: z.int().min(100, "must be at least 1.00 in the product's currency").max(1_000_000),
    // Lower-case ISO 4217 as stored. Optional so a client written before currencies existed neither fails nor resets
    // an existing product's currency: a new product without one is priced in the platform's currency (usd).
    currency: z.enum(SUPPORTED_CURRENCIES).optional(),
    category: categorySchema,
    max_machines: z.int().min(1).max(100),
    seat_model: z.enum(SEAT_MODELS),
    trial_available: z.boolean().default(false),
    trial_days: z.int().min(0).max(90).default(0),
    // Absent: a new product does not allow transfers, an update keeps what the product had.
    allow_transfers: z.boolean().optional().describe("Buyers may transfer their licenses to another e-mail address"),
    platforms: z
      .array(z.enum(PLATFORMS))
      .min(1, "choose at least one platform")
      .transform((l) => [...new Set(l)]),
    compatibility: tagList.default([]),
    inputs: tagList.default([]),
    outputs: tagList.default([]),
    min_version: z.string().trim().max(60).refine(singleLineText, CONTROL).nullable().default(null),
    // The demo catalogue's own downloads are served from this site. Empty: the product ships its files through
    // Releases only (publishing then needs a published release with at least one file).
    download_url: z
      .union([httpUrl, z.string().regex(/^\/downloads\/[a-z0-9][a-z0-9-]*$/, "must be an http(s) URL"), z.literal("")])
      .default("")
      .describe("Where buyers download the software (https); empty or left out when it ships its files through Releases"),
    icon_url: z
      .union([httpUrl, localPath])
      .describe(`The icon: an uploaded image's path (/uploads/…, from storeProductImages or the dashboard), or ${IMAGE_BY_URL}`),
    images: z
      .array(z.union([httpUrl, localPath]))
      .max(6)
      .default([])
      .describe(`Screenshots, in order (at most 6): each an uploaded image's path, or ${IMAGE_BY_URL}`),
    // The four fields below are optional with no default: an update that leaves one out (a client written before
    // they existed) keeps what the product has, and a new product without them gets the columns' defaults.
    update_policy: z.enum(UPDATE_POLICIES).optional(),
    update_days: z.int().min(1).max(UPDATE_DAYS_MAX).nullable().optional(),
    system_requirements: z.string().trim().max(SYSTEM_REQUIREMENTS_MAX).refine(multiLineText, CONTROL).optional(),
    // How it is sold. Left out: a new product is sold once, an update keeps what the product has.
    pricing_model: z
      .enum(PRICING_MODELS)
      .optional()
      .describe(
        '"one_time" (bought once for price_cents), "subscription" (billed each month and/or year; price_cents is then set to the lowest period price) or "updates_plan" (bought once for price_cents with a year of updates; each further year costs renewal_price_cents)',
      ),
    renewal_price_cents: z
      .int()
      .min(100)
      .max(1_000_000)
      .nullable()
      .optional()
      .describe('An "updates_plan" product: the price of one seat for a further year of updates'),
    monthly_price_cents: z
      .int()
      .min(100)
      .max(1_000_000)
      .nullable()
      .optional()
      .describe("A subscription's price of one seat for a month; null: not sold monthly"),
    yearly_price_cents: z
      .int()
      .min(100)
      .max(1_000_000)
      .nullable()
      .optional()
      .describe("A subscription's price of one seat for a year; null: not sold yearly"),
    subscription_trial_days: z
      .int()
      .min(0)
      .max(MAX_SUBSCRIPTION_TRIAL_DAYS)
      .optional()
      .describe("A subscription's free days before its first charge"),
    grace_days: z
      .int()
      .min(0)
      .max(MAX_GRACE_DAYS)
      .optional()
      .describe(`Days a subscriber's license keeps working after a renewal payment fails (default ${DEFAULT_GRACE_DAYS})`),
    fallback_after_months: z
      .int()
      .min(1)
      .max(120)
      .nullable()
      .optional()
      .describe(
        "After this many paid months an ended subscription leaves a perpetual license for the versions released while it was paid; null: none",
      ),
    demo_links: z
      .array(
        z.object({
          kind: z.enum(DEMO_LINK_KINDS),
          // https only: a demo is opened from a page served over https, and http would be a mixed-content downgrade.
          url: z.url({ protocol: /^https$/, error: "must be an https:// URL" }).max(500),
          title: z.string().trim().min(1).max(80).refine(singleLineText, CONTROL),
        }),
      )
      .max(MAX_DEMO_LINKS)
      .optional(),
  })
  .refine((p) => !p.trial_available || p.trial_days > 0, { path: ["trial_days"], message: "a trial needs a length of 1 to 90 days" })
  .refine((p) => p.update_policy !== "days" || (p.update_days ?? null) !== null, {
    path: ["update_days"],
    message: `updates for a number of days need update_days (1 to ${UPDATE_DAYS_MAX})`,
  })
  .refine((p) => p.update_policy === "days" || (p.update_days ?? null) === null, {
    path: ["update_days"],
    message: 'update_days applies only with update_policy "days"',
  })
  .refine((p) => p.pricing_model !== "subscription" || (p.monthly_price_cents ?? null) !== null || (p.yearly_price_cents ?? null) !== null, {
    path: ["monthly_price_cents"],
    message: "a subscription needs a monthly price, a yearly price or both",
  })
  .refine((p) => p.pricing_model !== "updates_plan" || (p.renewal_price_cents ?? null) !== null, {
    path: ["renewal_price_cents"],
    message: "an updates plan needs the price of a further year of updates",
  })
  .refine((p) => p.pricing_model === "updates_plan" || (p.renewal_price_cents ?? null) === null, {
    path: ["renewal_price_cents"],
    message: 'renewal_price_cents applies only with pricing_model "updates_plan"',
  })
  .refine(
    (p) =>
      p.pricing_model === "subscription" ||
      ((p.monthly_price_cents ?? null) === null && (p.yearly_price_cents ?? null) === null && (p.fallback_after_months ?? null) === null),
    { path: ["pricing_model"], message: 'monthly and yearly prices and a fallback apply only with pricing_model "subscription"' },
  );
export type ProductInput = z.infer<typeof productInputSchema>;
