import { z } from "zod";
import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";
import { CONTROL_CHARACTER_MESSAGE, multiLineText, singleLineText } from "../http/input.ts";
import { clearReadCache } from "../marketplace/read-cache.ts";
import { storedSearchText } from "../marketplace/search-text.ts";

export const profileInputSchema = z.object({
  name: z.string().trim().min(2).max(60).refine(singleLineText, CONTROL_CHARACTER_MESSAGE),
  website: z
    .url({ protocol: /^https?$/ })
    .max(200)
    .nullable()
    .default(null),
  bio: z.string().trim().max(600).refine(multiLineText, CONTROL_CHARACTER_MESSAGE).default(""),
});
export type ProfileInput = z.infer<typeof profileInputSchema>;

export function slugify(text: string): string {
  return (
    text
      .normalize("NFKD")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "item"
  );
}

/** Creates the developer profile of a newly signed-in seller; one per e-mail address. */
export async function createDeveloperProfile(email: string, input: ProfileInput) {
  const db = getDb();
  if (await db.developer.findUnique({ where: { email } })) throw new AppError("profile_exists", 409, "This account already has a developer profile.");
  const base = slugify(input.name);
  for (let n = 1; n <= 50; n++) {
    const id = n === 1 ? base : `${base}-${n}`;
    if (await db.developer.findUnique({ where: { id }, select: { id: true } })) continue;
    try {
      const developer = await db.developer.create({ data: { id, email, name: input.name, website: input.website, bio: input.bio } });
      clearReadCache();
      return developer;
    } catch (error) {
      if ((error as { code?: string }).code !== "P2002") throw error;
    }
  }
  throw new AppError("profile_id_taken", 409, "Could not find a free profile address for this name; try another name.");
}

/**
 * Saves a developer's profile. The name is part of each of their products' search text, so that is rebuilt in the
 * same transaction (a search never finds a product by a name its developer no longer has, nor misses it by the new
 * one), and the marketplace read cache, which holds the name in every listing, is cleared once it commits.
 */
export async function updateDeveloperProfile(developerId: string, input: ProfileInput) {
  const developer = await getDb().$transaction(async (tx) => {
    const saved = await tx.developer.update({ where: { id: developerId }, data: { name: input.name, website: input.website, bio: input.bio } });
    const products = await tx.product.findMany({
      where: { developerId },
      select: {
        id: true,
        name: true,
        tagline: true,
        description: true,
        category: true,
        pluginId: true,
        compatibility: true,
        inputs: true,
        outputs: true,
        platforms: true,
        searchText: true,
      },
    });
    for (const p of products) {
      const searchText = storedSearchText(p, saved.name);
      if (searchText !== p.searchText) await tx.product.update({ where: { id: p.id }, data: { searchText } });
    }
    return saved;
  });
  clearReadCache();
  return developer;
}
