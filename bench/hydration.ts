/**
 * How soon a storefront page responds on a phone, against the framework's floor, side by side in one run: an empty
 * app-router page (one <h1> and one next/link) built here with the same next and react from our node_modules and the
 * same bundler as `npm run build`, and our production build (bench/site.ts: a fresh SQLite file, the demo catalogue).
 *
 *   npm run build && npm run bench:hydration
 *
 * HYDRATION_ROUNDS (default 7) measured rounds after one warm-up round; HYDRATION_SCRIPTS=1 also lists each page's
 * scripts. The empty app is built once per next version and bundler into the system's temporary directory and reused.
 *
 * Each load: the system Chromium, a fresh browser context (empty cache) at 390×844 (mobile, touch, 3× pixels), the CPU
 * slowed 4× (CDP `Emulation.setCPUThrottlingRate`), no network throttling. The pages load in interleaved rounds (the
 * order rotates each round), so a busy moment on the shared machine hits every page alike; the figures are medians.
 *
 * - decoded JavaScript: the bytes of every script response of the load (CDP `Network.dataReceived` `dataLength`,
 *   after content decoding) requested until, after hydration, no script request has started or ended for 1 s;
 *   compressed: the bytes on the wire (`Network.loadingFinished` `encodedDataLength`, headers included).
 * - hydrated: milliseconds from navigation start (`performance.timeOrigin`) to the end of the first React commit after
 *   which neither the root nor any Suspense or Activity boundary is still dehydrated, i.e. every server-rendered
 *   element has its event handlers. Read through React's DevTools hook (`__REACT_DEVTOOLS_GLOBAL_HOOK__`), which the
 *   production react-dom calls on every commit: a stub installed before any script runs walks the committed fiber
 *   tree. Both apps get the same stub.
 * - first byte: `responseStart` of the navigation (server time plus the local network), for reading the above.
 *
 * Targets (issue 35): on home, search and product, hydrated ≤ 1.1 × the empty page's and decoded JavaScript ≤ the
 * empty page's + 10 KB (1 KB = 1,000 bytes). The exit code is 1 when one is missed.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { freePort } from "../e2e/support/servers.ts";
import { CHROMIUM_FLAGS, CHROMIUM_PATH, startSite } from "./site.ts";

const ROUNDS = Number(process.env.HYDRATION_ROUNDS ?? 7);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 50) throw new Error("HYDRATION_ROUNDS is a whole number from 1 to 50");
const LIST_SCRIPTS = process.env.HYDRATION_SCRIPTS === "1";
const CPU_SLOWDOWN = 4;
const VIEWPORT = { width: 390, height: 844 };
const TARGET_RATIO = 1.1;
const TARGET_EXTRA_BYTES = 10_000;
const MEASURED = ["home", "search", "product"] as const;
const QUIET_MS = 1000;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const kb = (bytes: number) => (bytes / 1000).toFixed(1);

// ---------------------------------------------------------------------------------------------------------------
// The empty app

const root = resolve(".");
const nextVersion = (JSON.parse(readFileSync(join(root, "node_modules/next/package.json"), "utf8")) as { version: string }).version;
const buildScript = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.build ?? "";
// Next 16 builds with Turbopack unless told --webpack; the empty app is built the way `npm run build` builds ours.
const bundler = /--webpack\b/.test(buildScript) ? "webpack" : "turbopack";
const emptyDir = join(tmpdir(), `ilm-bench-empty-next-${nextVersion}-${bundler}`);
const nextBin = join(root, "node_modules/next/dist/bin/next");

const EMPTY_FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "bench-empty-app", private: true, type: "module" }),
  // Turbopack resolves node_modules (a link to ours) outside this directory: its root must hold both.
  "next.config.mjs":
    bundler === "turbopack"
      ? `export default { turbopack: { root: "/" }, typescript: { ignoreBuildErrors: true } };\n`
      : `export default { typescript: { ignoreBuildErrors: true } };\n`,
  "tsconfig.json": JSON.stringify({
    compilerOptions: { target: "ES2022", lib: ["dom", "esnext"], jsx: "react-jsx", module: "esnext", moduleResolution: "bundler", strict: true },
    include: ["**/*.tsx"],
  }),
  "app/layout.tsx": `export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
`,
  // Rendered per request, as every page of ours is.
  "app/page.tsx": `import Link from "next/link";

export const dynamic = "force-dynamic";

export default function Page() {
  return (
    <main>
      <h1>An empty page</h1>
      <Link href="/other">Another page</Link>
    </main>
  );
}
`,
  "app/other/page.tsx": `export const dynamic = "force-dynamic";

export default function Other() {
  return <h1>Another page</h1>;
}
`,
};

function buildEmptyApp(): void {
  const stamp = join(emptyDir, ".next/BUILD_ID");
  const sources = JSON.stringify(EMPTY_FILES);
  const sourcesFile = join(emptyDir, "sources.json");
  if (existsSync(stamp) && existsSync(sourcesFile) && readFileSync(sourcesFile, "utf8") === sources) return;
  rmSync(emptyDir, { recursive: true, force: true });
  for (const [file, text] of Object.entries(EMPTY_FILES)) {
    mkdirSync(dirname(join(emptyDir, file)), { recursive: true });
    writeFileSync(join(emptyDir, file), text);
  }
  symlinkSync(join(root, "node_modules"), join(emptyDir, "node_modules"));
  console.error(`building the empty app (next ${nextVersion}, ${bundler}) in ${emptyDir}`);
  const args = [nextBin, "build", ...(bundler === "webpack" ? ["--webpack"] : [])];
  const run = spawnSyncLogged(args, emptyDir);
  if (run !== 0) throw new Error(`the empty app's build failed (${run})`);
  writeFileSync(sourcesFile, sources);
}

function spawnSyncLogged(args: string[], cwd: string): number {
  const child = spawnSync(process.execPath, args, { cwd, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, stdio: "inherit" });
  return child.status ?? 1;
}

async function startEmptyApp(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [nextBin, "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: emptyDir,
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log: string[] = [];
  child.stdout!.on("data", (d: Buffer) => log.push(d.toString()));
  child.stderr!.on("data", (d: Buffer) => log.push(d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the empty app exited:\n${log.join("")}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`the empty app did not answer:\n${log.join("")}`);
    await new Promise<void>((done) => child.stdout!.once("data", () => done()));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          done();
          return;
        }
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// One load

/** Installed before any script of the page: React's DevTools hook, reduced to noting when hydration is complete. */
const HOOK = `(() => {
  const state = { hydratedAt: undefined, commits: 0 };
  window.__benchHydration = state;
  const dehydratedLeft = (current) => {
    if (current.memoizedState && current.memoizedState.isDehydrated) return true;
    const stack = [current];
    while (stack.length) {
      const fiber = stack.pop();
      const s = fiber.memoizedState;
      if (s && typeof s === "object" && "dehydrated" in s && s.dehydrated !== null) return true;
      if (fiber.sibling && fiber !== current) stack.push(fiber.sibling);
      if (fiber.child) stack.push(fiber.child);
    }
    return false;
  };
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    isDisabled: false,
    supportsFiber: true,
    renderers: new Map(),
    inject() { return 1; },
    onScheduleFiberRoot() {},
    onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {},
    checkDCE() {},
    onCommitFiberRoot(_id, fiberRoot) {
      state.commits += 1;
      if (state.hydratedAt === undefined && !dehydratedLeft(fiberRoot.current)) state.hydratedAt = performance.now();
    },
  };
})();`;

interface Load {
  hydratedMs: number;
  firstByteMs: number;
  decoded: number;
  compressed: number;
  scripts: Array<{ url: string; decoded: number; compressed: number }>;
}

async function measure(browser: Browser, url: string): Promise<Load> {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
  try {
    await context.addInitScript({ content: HOOK });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const scripts = new Map<string, { url: string; decoded: number; compressed: number; done: boolean }>();
    // The moment the last script request started or ended: the load is over once that was QUIET_MS ago.
    let lastScriptEvent = Date.now();
    cdp.on("Network.requestWillBeSent", (e) => {
      if (e.type !== "Script") return;
      scripts.set(e.requestId, { url: e.request.url, decoded: 0, compressed: 0, done: false });
      lastScriptEvent = Date.now();
    });
    cdp.on("Network.dataReceived", (e) => {
      const entry = scripts.get(e.requestId);
      if (entry) entry.decoded += e.dataLength;
    });
    const finish = (requestId: string, compressed: number) => {
      const entry = scripts.get(requestId);
      if (!entry) return;
      entry.compressed = compressed;
      entry.done = true;
      lastScriptEvent = Date.now();
    };
    cdp.on("Network.loadingFinished", (e) => finish(e.requestId, e.encodedDataLength));
    cdp.on("Network.loadingFailed", (e) => finish(e.requestId, 0));
    await cdp.send("Network.enable");
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
    await page.goto(url, { waitUntil: "load", timeout: 120_000 });
    await page.waitForFunction(
      () => (window as unknown as { __benchHydration: { hydratedAt?: number } }).__benchHydration.hydratedAt !== undefined,
      null,
      {
        timeout: 120_000,
        polling: 50,
      },
    );
    // Scripts loaded after hydration (a lazy chunk, a prefetched route's) count too: wait until none has started or
    // ended for QUIET_MS. (Playwright's "networkidle" never comes on some pages: a prefetch's response stays open.)
    const deadline = Date.now() + 120_000;
    while (Date.now() - lastScriptEvent < QUIET_MS || [...scripts.values()].some((s) => !s.done)) {
      if (Date.now() > deadline) throw new Error(`${url}: scripts still loading after 120 s`);
      await new Promise((done) => setTimeout(done, 100));
    }
    const times = await page.evaluate(() => ({
      hydratedMs: (window as unknown as { __benchHydration: { hydratedAt: number } }).__benchHydration.hydratedAt,
      firstByteMs: (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).responseStart,
    }));
    const list = [...scripts.values()].map(({ url: u, decoded, compressed }) => ({ url: u, decoded, compressed }));
    return {
      ...times,
      decoded: list.reduce((n, s) => n + s.decoded, 0),
      compressed: list.reduce((n, s) => n + s.compressed, 0),
      scripts: list,
    };
  } finally {
    await context.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The run

buildEmptyApp();
const empty = await startEmptyApp();
const site = await startSite("hydration");
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
let failed = false;
try {
  const listing = (await (await fetch(`${site.url}/api/marketplace/listings?limit=1`)).json()) as { products: Array<{ id: string; name: string }> };
  const product = listing.products[0]!;
  // A search that finds something: the first word of a listed product's name.
  const word = product.name.split(/\s+/)[0]!.toLowerCase();
  const pages: Record<string, string> = {
    empty: `${empty.url}/`,
    home: `${site.url}/`,
    search: `${site.url}/?q=${encodeURIComponent(word)}`,
    product: `${site.url}/products/${product.id}`,
  };
  const names = Object.keys(pages);
  const loads: Record<string, Load[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    // Round 0 warms both servers and the browser and is not counted.
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const name of order) {
      const load = await measure(browser, pages[name]!);
      if (round > 0) loads[name]!.push(load);
      console.error(`round ${round}${round === 0 ? " (warm-up)" : ""} ${name}: hydrated ${Math.round(load.hydratedMs)} ms, ${kb(load.decoded)} KB`);
    }
  }

  const stats = Object.fromEntries(
    names.map((name) => {
      const l = loads[name]!;
      return [
        name,
        {
          url: pages[name],
          hydratedMs: Math.round(median(l.map((x) => x.hydratedMs))),
          hydratedRange: [Math.round(Math.min(...l.map((x) => x.hydratedMs))), Math.round(Math.max(...l.map((x) => x.hydratedMs)))],
          firstByteMs: Math.round(median(l.map((x) => x.firstByteMs))),
          decoded: median(l.map((x) => x.decoded)),
          compressed: median(l.map((x) => x.compressed)),
          scriptCount: median(l.map((x) => x.scripts.length)),
        },
      ];
    }),
  );
  const base = stats.empty!;
  const rows: string[] = [];
  for (const name of names) {
    const s = stats[name]!;
    const ratio = s.hydratedMs / base.hydratedMs;
    const extra = s.decoded - base.decoded;
    const measured = (MEASURED as readonly string[]).includes(name);
    const meets = !measured || (ratio <= TARGET_RATIO && extra <= TARGET_EXTRA_BYTES);
    if (!meets) failed = true;
    rows.push(
      `| ${name} | ${s.hydratedMs} (${s.hydratedRange[0]}–${s.hydratedRange[1]}) | ${ratio.toFixed(2)} | ${s.firstByteMs} | ${kb(s.decoded)} | ${name === "empty" ? "—" : `${extra >= 0 ? "+" : ""}${kb(extra)}`} | ${kb(s.compressed)} | ${s.scriptCount} | ${measured ? (meets ? "yes" : "no") : "—"} |`,
    );
  }
  console.log(JSON.stringify({ rounds: ROUNDS, cpuSlowdown: CPU_SLOWDOWN, next: nextVersion, bundler, stats }));
  console.log(
    `\nHydration at ${CPU_SLOWDOWN}× CPU slowdown, 390×844, medians of ${ROUNDS} interleaved rounds, ${new Date().toISOString().slice(0, 16)}Z (next ${nextVersion}, ${bundler})\n\n` +
      `| page | hydrated, ms (range) | × empty | first byte, ms | decoded JS, KB | vs empty, KB | compressed JS, KB | scripts | target met |\n` +
      `|---|---|---|---|---|---|---|---|---|\n${rows.join("\n")}\n`,
  );
  if (LIST_SCRIPTS) {
    for (const name of names) {
      const last = loads[name]!.at(-1)!;
      console.log(`\n${name}: ${last.scripts.length} scripts`);
      for (const s of [...last.scripts].sort((a, b) => b.decoded - a.decoded))
        console.log(`  ${kb(s.decoded).padStart(7)} KB  ${kb(s.compressed).padStart(6)} KB  ${s.url}`);
    }
  }
} finally {
  await browser.close();
  await site.stop();
  await empty.stop();
}
if (failed) process.exitCode = 1;
