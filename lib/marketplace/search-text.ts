/** The lower-cased haystack a product is searched by; rebuilt whenever a product is written. */
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

/**
 * Search words from a query: lower-cased, at most 8, each at most 64 characters. Every word must match.
 * LIKE's wildcards and escape character are dropped: Prisma passes `contains` to LIKE unescaped.
 */
export function searchTerms(search: string | undefined): string[] {
  if (!search) return [];
  return search
    .toLowerCase()
    .replace(/[%_\\]/g, " ")
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 8)
    .map((w) => w.slice(0, 64));
}
