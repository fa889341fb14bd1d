/**
 * Lighthouse (performance, accessibility, best practices, SEO) on the home page, a product page and the checkout page
 * of the production build, in the system Chromium, in the light and the dark colour scheme. Target: at least 95 in
 * each category (the median of the runs).
 *
 *   npm run build && npm run bench:lighthouse
 *
 * LIGHTHOUSE_RUNS (default 3) runs per page and scheme; LIGHTHOUSE_FORM_FACTOR=desktop for the desktop preset.
 * Serves the build with a fresh SQLite file and test-mode payments (bench/site.ts), so the checkout page is a real
 * session's. Appends the medians to docs/benchmarks.md and prints every audit that scored under 0.9 in some run.
 */
import { appendFileSync } from "node:fs";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { CHROMIUM_FLAGS, CHROMIUM_PATH, createCheckout, startSite } from "./site.ts";

const TARGET = 95;
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
if (!Number.isInteger(RUNS) || RUNS < 1 || RUNS > 25) throw new Error("LIGHTHOUSE_RUNS is a whole number from 1 to 25");
const formFactor = process.env.LIGHTHOUSE_FORM_FACTOR === "desktop" ? "desktop" : "mobile";
const CATEGORIES = { performance: "performance", accessibility: "accessibility", "best-practices": "best practices", seo: "SEO" };
// Chromium's own switch for prefers-color-scheme: Lighthouse has no colour-scheme emulation of its own.
const SCHEMES = { light: [] as string[], dark: ["--force-dark-mode"] };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
};

const site = await startSite("lighthouse");
const rows: string[] = [];
let failed = false;
try {
  const listing = (await (await fetch(`${site.url}/api/marketplace/listings?limit=1`)).json()) as { products: Array<{ id: string }> };
  const productId = listing.products[0]!.id;
  const pages = {
    home: `${site.url}/`,
    product: `${site.url}/products/${productId}`,
    checkout: await createCheckout(site, productId, "lighthouse@example.com"),
  };
  for (const [scheme, flags] of Object.entries(SCHEMES)) {
    const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM_PATH, chromeFlags: ["--headless=new", ...CHROMIUM_FLAGS, ...flags] });
    try {
      for (const [name, url] of Object.entries(pages)) {
        await fetch(url); // warm the server, as a visitor after the first would find it
        const scores: Record<string, number[]> = Object.fromEntries(Object.keys(CATEGORIES).map((k) => [k, []]));
        const weak = new Map<string, string>();
        for (let run = 0; run < RUNS; run++) {
          const result = await lighthouse(
            url,
            {
              port: chrome.port,
              output: "json",
              logLevel: "error",
              onlyCategories: Object.keys(CATEGORIES),
              ...(formFactor === "desktop"
                ? { formFactor: "desktop", screenEmulation: { mobile: false, width: 1350, height: 940, deviceScaleFactor: 1, disabled: false } }
                : {}),
            },
            formFactor === "desktop" ? (await import("lighthouse/core/config/desktop-config.js")).default : undefined,
          );
          const lhr = result!.lhr;
          for (const k of Object.keys(CATEGORIES)) scores[k]!.push(Math.round((lhr.categories[k]?.score ?? 0) * 100));
          for (const audit of Object.values(lhr.audits)) {
            if (audit.score === null || audit.score >= 0.9 || ["informative", "notApplicable", "manual"].includes(audit.scoreDisplayMode)) continue;
            const items = (audit.details as { items?: unknown } | undefined)?.items;
            const nodes = (Array.isArray(items) ? (items as Array<{ node?: { snippet?: string; explanation?: string } }>) : [])
              .slice(0, 5)
              .filter((item) => item.node?.snippet)
              .map((item) => `\n    ${item.node!.snippet}\n      ${item.node!.explanation ?? ""}`)
              .join("");
            weak.set(
              audit.id,
              `  ${name} (${scheme}): ${audit.id} (${audit.score}) ${audit.title}${audit.displayValue ? ` — ${audit.displayValue}` : ""}${nodes}`,
            );
          }
        }
        const medians = Object.fromEntries(Object.entries(scores).map(([k, v]) => [k, median(v)]));
        console.log(JSON.stringify({ page: name, url, formFactor, scheme, runs: RUNS, median: medians, all: scores }));
        for (const [k, v] of Object.entries(medians)) {
          if (v < TARGET) {
            failed = true;
            console.error(`${name} (${scheme}): ${CATEGORIES[k as keyof typeof CATEGORIES]} ${v} < ${TARGET}`);
          }
        }
        for (const line of weak.values()) console.error(line);
        const perf = scores.performance!;
        rows.push(
          `| ${new Date().toISOString().slice(0, 16)}Z | ${name} | ${formFactor} | ${scheme} | ${RUNS} | ${medians.performance} (${Math.min(...perf)}–${Math.max(...perf)}) | ${medians.accessibility} | ${medians["best-practices"]} | ${medians.seo} |`,
        );
      }
    } finally {
      chrome.kill();
    }
  }
  appendFileSync(
    "docs/benchmarks.md",
    `\n### Lighthouse 12 (\`npm run bench:lighthouse\`), system Chromium, medians of ${RUNS} runs\n\n| run | page | form factor | scheme | runs | performance (range) | accessibility | best practices | SEO |\n|---|---|---|---|---|---|---|---|---|\n${rows.join("\n")}\n`,
  );
  if (failed) process.exitCode = 1;
} finally {
  await site.stop();
}
