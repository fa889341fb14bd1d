import { z } from "zod";
import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";

export const profileInputSchema = z.object({
  name: z.string().trim().min(2).max(60),
  website: z.url({ protocol: /^https?$/ }).max(200).nullable().default(null),
  bio: z.string().trim().max(600).default(""),
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
      return await db.developer.create({ data: { id, email, name: input.name, website: input.website, bio: input.bio } });
    } catch (error) {
      if ((error as { code?: string }).code !== "P2002") throw error;
    }
  }
  throw new AppError("profile_id_taken", 409, "Could not find a free profile address for this name; try another name.");
}

export async function updateDeveloperProfile(developerId: string, input: ProfileInput) {
  return getDb().developer.update({ where: { id: developerId }, data: { name: input.name, website: input.website, bio: input.bio } });
}
