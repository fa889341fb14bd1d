import { z } from "zod";
import { getDb } from "../db.ts";
import { AppError, type ProblemFieldError } from "../http/errors.ts";
import { CONTROL_CHARACTER_MESSAGE, multiLineText, singleLineText } from "../http/input.ts";
import { clearReadCache } from "../cache/read-cache.ts";
import { storedSearchText } from "../marketplace/search-text.ts";
import { syncProductSearch } from "../marketplace/search-index.ts";

/** Longest refund policy a seller may write. */
export const REFUND_POLICY_MAX = 2000;

export const profileInputSchema = z.object({
  name: z.string().trim().min(2).max(60).refine(singleLineText, CONTROL_CHARACTER_MESSAGE),
  website: z
    .url({ protocol: /^https?$/ })
    .max(200)
    .nullable()
    .default(null),
  bio: z.string().trim().max(600).refine(multiLineText, CONTROL_CHARACTER_MESSAGE).default(""),
  // The trust fields: optional here (a free listing needs none of them; absent on an update keeps what is stored),
  // required by the publish gate before a paid listing (see profileGaps).
  refund_policy: z.string().trim().max(REFUND_POLICY_MAX).refine(multiLineText, CONTROL_CHARACTER_MESSAGE).optional(),
  support_email: z.email().max(254).nullable().optional(),
  support_url: z
    .url({ protocol: /^https$/, hostname: z.regexes.domain })
    .max(200)
    .refine((u) => !URL.canParse(u) || (!new URL(u).username && !new URL(u).password), "must not contain a user name or password")
    .nullable()
    .optional(),
});
export type ProfileInput = z.infer<typeof profileInputSchema>;

/** A developer profile as its seller sees it: what the profile operations answer. */
export const developerProfileSchema = z.object({
  id: z.string().describe("The profile's address in the store (/developers/{id})"),
  name: z.string(),
  website: z.string().nullable(),
  bio: z.string(),
  refund_policy: z.string(),
  support_email: z.string().nullable(),
  support_url: z.string().nullable(),
});
export type DeveloperProfile = z.infer<typeof developerProfileSchema>;

export function toDeveloperProfile(d: {
  id: string;
  name: string;
  website: string | null;
  bio: string;
  refundPolicy: string;
  supportEmail: string | null;
  supportUrl: string | null;
}): DeveloperProfile {
  return {
    id: d.id,
    name: d.name,
    website: d.website,
    bio: d.bio,
    refund_policy: d.refundPolicy,
    support_email: d.supportEmail,
    support_url: d.supportUrl,
  };
}

/** The trust columns of a developer: what buyers see under "Support and refunds". */
export interface ProfileTrust {
  refundPolicy: string;
  supportEmail: string | null;
  supportUrl: string | null;
}

/** What a paid listing needs from its seller's profile, each with the form field that supplies it. */
const TRUST_NEEDS = [
  { field: "refund_policy", words: "a refund policy", missing: (t: ProfileTrust) => !t.refundPolicy.trim() },
  {
    field: "support_email",
    words: "a support e-mail address or support web page",
    missing: (t: ProfileTrust) => !t.supportEmail && !t.supportUrl,
  },
] as const;

/** What a profile still lacks before its seller may list a paid product; empty when nothing. */
export function profileGaps(trust: ProfileTrust): Array<{ field: string; words: string }> {
  return TRUST_NEEDS.filter((n) => n.missing(trust)).map(({ field, words }) => ({ field, words }));
}

/** The gaps as a problem document's field errors. */
export function gapErrors(gaps: ReturnType<typeof profileGaps>): ProblemFieldError[] {
  return gaps.map((g) => ({ in: "body", name: g.field, message: `a paid listing needs ${g.words}` }));
}

/** The stored columns for the trust fields the input has; absent ones are left out (kept on an update). */
function trustColumns(input: ProfileInput) {
  return {
    ...(input.refund_policy !== undefined ? { refundPolicy: input.refund_policy.replace(/\r\n?/g, "\n") } : {}),
    ...(input.support_email !== undefined ? { supportEmail: input.support_email } : {}),
    ...(input.support_url !== undefined ? { supportUrl: input.support_url } : {}),
  };
}

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
      const developer = await db.developer.create({
        data: { id, email, name: input.name, website: input.website, bio: input.bio, ...trustColumns(input) },
      });
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
    const saved = await tx.developer.update({
      where: { id: developerId },
      data: { name: input.name, website: input.website, bio: input.bio, ...trustColumns(input) },
    });
    // Listed paid products show these fields: they stay filled while there are any. The update above holds the
    // seller's row, so a paid listing published at the same time (which locks that row, see publishing) waits and
    // then sees this profile.
    const gaps = profileGaps(saved);
    if (gaps.length > 0 && (await tx.product.count({ where: { developerId, status: "active", priceCents: { gt: 0 } } })) > 0) {
      throw new AppError(
        "seller_profile_incomplete",
        409,
        `Your listed paid products show your refund policy and support contact, so your profile needs ${gaps.map((g) => g.words).join(" and ")} while they are listed. Unlist them first to remove it.`,
        { errors: gapErrors(gaps) },
      );
    }
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
    // The search index holds the name too (a rename must not leave the old one findable): rewritten with the rows.
    await syncProductSearch(tx, { developerId });
    return saved;
  });
  clearReadCache();
  return developer;
}
