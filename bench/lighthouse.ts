/**
 * Lighthouse (performance, accessibility, best practices, SEO) on the home page and a product page of the
 * production build, in the system Chromium. Target: at least 90 in each category.
 *
 *   npm run build && npm run bench:lighthouse        (LIGHTHOUSE_FORM_FACTOR=desktop for the desktop preset)
 *
 * Appends the scores to docs/benchmarks.md.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

const PORT = 3903;
const BASE = `http://localhost:${PORT}`;
const dbPath = join(tmpdir(), `ilm-lighthouse-${Date.now()}.db`);
const formFactor = process.env.LIGHTHOUSE_FORM_FACTOR === "desktop" ? "desktop" : "mobile";
if (!existsSync(".next/BUILD_ID")) throw new Error("run `npm run build` first: Lighthouse measures the production build");

function startApp(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    env: { ...process.env, NODE_ENV: "production", PORT: String(PORT), DATABASE_URL: `file:${dbPath}`, BASE_URL: BASE },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("ready:") && resolve(child));
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

const app = await startApp();
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  chromeFlags: [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});
try {
  const listing = (await (await fetch(`${BASE}/api/marketplace/listings?limit=1`)).json()) as { products: Array<{ id: string }> };
  const pages = { home: `${BASE}/`, product: `${BASE}/products/${listing.products[0]!.id}` };
  const rows: string[] = [];
  let failed = false;
  for (const [name, url] of Object.entries(pages)) {
    await fetch(url); // warm the server, as a visitor after the first would find it
    const result = await lighthouse(
      url,
      {
        port: chrome.port,
        output: "json",
        logLevel: "error",
        onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
        ...(formFactor === "desktop"
          ? { formFactor: "desktop", screenEmulation: { mobile: false, width: 1350, height: 940, deviceScaleFactor: 1, disabled: false } }
          : {}),
      },
      formFactor === "desktop" ? (await import("lighthouse/core/config/desktop-config.js")).default : undefined,
    );
    const cats = result!.lhr.categories;
    const score = (k: string) => Math.round((cats[k]?.score ?? 0) * 100);
    const scores = {
      performance: score("performance"),
      accessibility: score("accessibility"),
      best_practices: score("best-practices"),
      seo: score("seo"),
    };
    console.log(JSON.stringify({ page: name, url, formFactor, ...scores }));
    for (const [k, v] of Object.entries(scores)) {
      if (v < 90) {
        failed = true;
        console.error(`${name}: ${k} ${v} < 90`);
      }
    }
    for (const audit of Object.values(result!.lhr.audits)) {
      if (audit.score !== null && audit.score < 0.9 && audit.scoreDisplayMode !== "informative" && audit.scoreDisplayMode !== "notApplicable") {
        console.error(`  ${name}: ${audit.id} (${audit.score}) ${audit.title}${audit.displayValue ? ` — ${audit.displayValue}` : ""}`);
        const items = (audit.details as { items?: Array<{ node?: { snippet?: string; explanation?: string } }> } | undefined)?.items ?? [];
        for (const item of items.slice(0, 5)) if (item.node?.snippet) console.error(`    ${item.node.snippet}\n      ${item.node.explanation ?? ""}`);
      }
    }
    rows.push(
      `| ${new Date().toISOString().slice(0, 16)}Z | ${name} | ${formFactor} | ${scores.performance} | ${scores.accessibility} | ${scores.best_practices} | ${scores.seo} |`,
    );
  }
  appendFileSync(
    "docs/benchmarks.md",
    `\n### Lighthouse 12 (\`npm run bench:lighthouse\`), system Chromium\n\n| run | page | form factor | performance | accessibility | best practices | SEO |\n|---|---|---|---|---|---|---|\n${rows.join("\n")}\n`,
  );
  if (failed) process.exitCode = 1;
} finally {
  chrome.kill();
  app.kill("SIGTERM");
  for (const s of ["", "-wal", "-shm"]) rmSync(dbPath + s, { force: true });
}
