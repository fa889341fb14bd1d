import { env } from "../env.ts";
import { absoluteUrl, paths } from "../urls.ts";

/** The Link header every API response carries: where the MCP endpoint and the API description are. */
let cached: { base: string; value: string } | undefined;

export function linkHeader(): string {
  // Keyed by the base URL the links are made from (read, not rebuilt: this runs on every API answer).
  const base = env().BASE_URL;
  if (cached?.base === base) return cached.value;
  const value = [
    `<${absoluteUrl(paths.mcp)}>; rel="mcp"; type="application/json"`,
    `<${absoluteUrl(paths.openapi)}>; rel="service-desc"; type="application/openapi+json"`,
    `<${absoluteUrl(paths.discover)}>; rel="describedby"; type="application/json"`,
  ].join(", ");
  cached = { base, value };
  return value;
}

/** Cache policies, named for what they are used for. */
export const CACHE = {
  none: "no-store",
  /** Listings and catalog: fresh enough for browsing, cheap to serve repeatedly. */
  short: "public, max-age=30, stale-while-revalidate=60",
  /** Documents that change only with a deploy or a key rotation. */
  document: "public, max-age=300, stale-while-revalidate=3600",
} as const;
