import localFont from "next/font/local";

/**
 * Geist, self-hosted from the `geist` package's own file (SIL Open Font License), as `geist/font/sans` loads it, but
 * with `display: "optional"`: a first visit whose font has not arrived within the browser's short block period keeps
 * the fallback for that page view instead of swapping (a swap lays out and paints every line of text again while the
 * page is still starting, which a phone pays for in time to interactive: docs/benchmarks.md); the next page has it
 * from the cache. The fallback's metrics are adjusted to Geist's (next/font's `adjustFontFallback`), so either reads
 * the same size.
 */
export const sans = localFont({
  src: "../../node_modules/geist/dist/fonts/geist-sans/Geist-Variable.woff2",
  variable: "--font-geist-sans",
  weight: "100 900",
  display: "optional",
});
