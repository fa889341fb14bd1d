import { getDb } from "../db.ts";
import { AppError, type ProblemFieldError } from "../http/errors.ts";
import { PLATFORMS, type Platform } from "../marketplace/constants.ts";
import { stringList } from "../marketplace/serialize.ts";
import { publishBlocker, type PublishBlocker } from "./publish-gate.ts";

/** The columns readiness reads: a stored product, or a new one about to be written (`id` null: no releases yet). */
export interface ReadinessSubject {
  id: string | null;
  developerId: string;
  name: string;
  description: string;
  pricingModel: string;
  priceCents: number;
  monthlyPriceCents: number | null;
  yearlyPriceCents: number | null;
  iconUrl: string;
  downloadUrl: string;
  platforms: unknown;
}

const PLATFORM_NAMES: Record<Platform, string> = { windows: "Windows", macos: "macOS", linux: "Linux" };

/** What publishing a product found: what is missing (it stays a draft while anything is) and what is worth a look. */
export interface Readiness {
  /** What the product lacks, then (for a paid one) what the seller's profile or payout account lacks. */
  missing: ProblemFieldError[];
  /** The seller's own blocker for a paid listing, if any (its missing things are in `missing` too). */
  seller: PublishBlocker | null;
  /** Not blocking: e.g. "No build for Linux yet" for a listed platform no published release ships a file for. */
  warnings: string[];
}

/**
 * The platforms (windows, macos, linux) the product's published releases ship at least one file for, and whether it
 * has any such file at all. Artifacts name a platform with its architecture ("linux-x64"), so the prefix counts.
 */
export async function releaseBuilds(productId: string): Promise<{ any: boolean; platforms: Set<Platform> }> {
  const rows = await getDb().artifact.findMany({
    where: { release: { productId, status: "published" } },
    select: { platform: true },
    distinct: ["platform"],
  });
  const platforms = new Set<Platform>();
  for (const r of rows) for (const p of PLATFORMS) if (r.platform === p || r.platform.startsWith(`${p}-`)) platforms.add(p);
  return { any: rows.length > 0, platforms };
}

/**
 * The listed platforms without a build, in words ("No build for Linux yet"): only for a product that ships files
 * through Releases (one that has none sends buyers to its download URL, whatever the platform).
 */
export function platformWarnings(listed: readonly string[], builds: { any: boolean; platforms: Set<Platform> }): string[] {
  if (!builds.any) return [];
  return PLATFORMS.filter((p) => listed.includes(p) && !builds.platforms.has(p)).map((p) => `No build for ${PLATFORM_NAMES[p]} yet`);
}

const gap = (name: string, message: string): ProblemFieldError => ({ in: "body", name, message });

/** Everything a buyer needs before the product may be listed, and the seller's prerequisites for a paid listing. */
export async function productReadiness(product: ReadinessSubject): Promise<Readiness> {
  const missing: ProblemFieldError[] = [];
  if (product.name.trim().length < 2) missing.push(gap("name", "a name"));
  if (product.description.trim().length < 20) missing.push(gap("description", "a description of at least 20 characters"));
  const priced =
    product.pricingModel === "subscription" ? product.monthlyPriceCents !== null || product.yearlyPriceCents !== null : product.priceCents >= 0;
  if (!priced) missing.push(gap("price_cents", "a price"));
  if (!product.iconUrl.trim()) missing.push(gap("icon_url", "an icon"));
  const builds = product.id ? await releaseBuilds(product.id) : { any: false, platforms: new Set<Platform>() };
  if (!product.downloadUrl.trim() && !builds.any) {
    missing.push(gap("download_url", "a download URL, or a published release with at least one file (Dashboard → Releases)"));
  }
  const blocker = await publishBlocker(product.developerId, product.priceCents);
  if (blocker?.code === "seller_suspended") throw new AppError(blocker.code, blocker.status, blocker.message);
  if (blocker) missing.push(...(blocker.errors ?? [gap("payout_account", blocker.message)]));
  return { missing, seller: blocker, warnings: platformWarnings(stringList(product.platforms), builds) };
}

/**
 * The readiness as a refusal: 409 product_not_ready naming each missing thing in `errors` when the product itself lacks
 * something; when only the seller's prerequisites for a paid listing are missing, their own refusal, as for relisting
 * (409 seller_profile_incomplete or payout_account_required).
 */
export function assertReady(readiness: Readiness): void {
  if (readiness.missing.length === 0) return;
  const { seller } = readiness;
  const own = readiness.missing.length - (seller ? (seller.errors?.length ?? 1) : 0);
  if (seller && own === 0) throw new AppError(seller.code, seller.status, seller.message, seller.errors ? { errors: seller.errors } : {});
  throw new AppError(
    "product_not_ready",
    409,
    `This product cannot be published yet. Missing: ${readiness.missing.map((m) => m.message).join("; ")}.`,
    { errors: readiness.missing },
  );
}
