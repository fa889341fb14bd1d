import { z } from "zod";
import { getDb } from "../db.ts";
import { CATEGORIES, type Category } from "./constants.ts";
import { cachedRead } from "../cache/read-cache.ts";

/** Developer ids are URL slugs made from the name (lib/selling/developer-profile.ts). */
const developerIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/);

/** A developer as their public page shows them: the profile, and facts from their listed products. */
export interface DeveloperPage {
  id: string;
  name: string;
  bio: string;
  website: string | null;
  supportEmail: string | null;
  supportUrl: string | null;
  memberSince: Date;
  /** Listed products. */
  productCount: number;
  /** Over the visible reviews of all their listed products: each product's average weighted by its review count. */
  rating: { average: number; count: number };
  /** The categories they list products in, with how many, in the canonical order. */
  categories: Array<{ category: Category; count: number }>;
}

/**
 * The public facts of a developer with at least one listed product; null for an unknown id and for a developer with
 * nothing listed (a suspended seller's products are not listed), whom the public never sees.
 */
export function getDeveloperPage(id: string): Promise<DeveloperPage | null> {
  if (!developerIdSchema.safeParse(id).success) return Promise.resolve(null);
  return cachedRead(`developer:${id}`, () => queryDeveloper(id));
}

async function queryDeveloper(id: string): Promise<DeveloperPage | null> {
  const dev = await getDb().developer.findUnique({
    where: { id },
    select: {
      id: true,
      name: true,
      bio: true,
      website: true,
      supportEmail: true,
      supportUrl: true,
      createdAt: true,
      products: { where: { status: "active" }, select: { category: true, ratingAverage: true, ratingCount: true } },
    },
  });
  if (!dev || dev.products.length === 0) return null;
  const count = dev.products.reduce((n, p) => n + p.ratingCount, 0);
  const weighted = dev.products.reduce((sum, p) => sum + p.ratingAverage * p.ratingCount, 0);
  const perCategory = new Map<string, number>();
  for (const p of dev.products) perCategory.set(p.category, (perCategory.get(p.category) ?? 0) + 1);
  return {
    id: dev.id,
    name: dev.name,
    bio: dev.bio,
    website: dev.website,
    supportEmail: dev.supportEmail,
    supportUrl: dev.supportUrl,
    memberSince: dev.createdAt,
    productCount: dev.products.length,
    rating: { average: count > 0 ? weighted / count : 0, count },
    categories: CATEGORIES.filter((c) => perCategory.has(c)).map((category) => ({ category, count: perCategory.get(category) ?? 0 })),
  };
}
