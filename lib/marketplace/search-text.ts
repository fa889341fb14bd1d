/**
 * The lower-cased haystack a product is searched by; rebuilt whenever a product is written, and for each of a
 * developer's products when the developer is renamed (lib/selling/developer-profile.ts).
 */
export function buildSearchText(p: {
  name: string;
  tagline: string;
  description: string;
  developerName: string;
  category: string;
  pluginId: string;
  compatibility: string[];
  inputs: string[];
  outputs: string[];
  platforms: string[];
}): string {
  return [p.name, p.tagline, p.developerName, p.category, p.pluginId, ...p.compatibility, ...p.inputs, ...p.outputs, ...p.platforms, p.description]
    .join("\n")
    .toLowerCase();
}

/** The same haystack from a stored product row, whose list columns are JSON. */
export function storedSearchText(
  p: {
    name: string;
    tagline: string;
    description: string;
    category: string;
    pluginId: string;
    compatibility: unknown;
    inputs: unknown;
    outputs: unknown;
    platforms: unknown;
  },
  developerName: string,
): string {
  return buildSearchText({
    ...p,
    developerName,
    compatibility: strings(p.compatibility),
    inputs: strings(p.inputs),
    outputs: strings(p.outputs),
    platforms: strings(p.platforms),
  });
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);

/**
 * Search words from a query: lower-cased runs of letters and digits, at most 8, each at most 64 characters. Every
 * word must match. Everything else (quotes, *, -, :, ^, parentheses, LIKE's wildcards) only separates words, so no
 * query can carry full-text search syntax into the index (lib/marketplace/search.ts).
 */
export function searchTerms(search: string | undefined): string[] {
  if (!search) return [];
  return (search.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).slice(0, 8).map((w) => Array.from(w).slice(0, 64).join(""));
}
