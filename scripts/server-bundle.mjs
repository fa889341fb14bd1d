// The production process is server.ts (and the part of lib/ it imports) compiled ahead of time into one ES module,
// so `npm start` runs plain JavaScript on node: no TypeScript loader in the process (tsx's loader thread, its
// transformed sources and source maps held in memory) and nothing compiled while the first requests wait. Packages
// stay outside the bundle and load from node_modules, as under tsx. Bundling takes well under a second, so every
// start bundles afresh and the process never runs code older than the checkout.
import { buildSync } from "esbuild";

/** Where the compiled server goes (ignored by git). */
export const SERVER_BUNDLE = "dist/server.mjs";

/**
 * The V8 heap flags the server runs with (`npm start`, the benchmark, the e2e instances).
 * - `--max-old-space-size=512`: V8 lets the old generation grow to a multiple of what survived the last full
 *   collection before it collects again. With a ceiling of 2 GB or more (node's default on the benchmark's machine is
 *   4 GB) that multiple is 4; under a lower ceiling V8 scales it from 1.3 (256 MB) to 2 (just under 2 GB), so 512 MB
 *   gives 1.4 (MaxGrowingFactor in V8's heap-controller.cc). Under load the process then keeps about 0.4× its live
 *   heap as garbage instead of 3×. The live heap is about 100 MB plus the license cache (LICENSE_CACHE_SIZE, about
 *   2.2 KB a key): room for the default 100,000 keys; server.ts warns at start when the cache has no room
 *   (lib/server/heap-room.ts).
 * - `--max-semi-space-size=8`: the young generation's two halves at 8 MB instead of 16.
 * Measured in docs/benchmarks.md. A flag the operator sets in NODE_OPTIONS (either spelling) replaces ours.
 */
export const SERVER_HEAP_FLAGS = ["--max-old-space-size=512", "--max-semi-space-size=8"];

/**
 * The node arguments that run the compiled server: our heap flags (less any NODE_OPTIONS sets), then the bundle
 * (another one than SERVER_BUNDLE: bench/compare.ts runs bundles of two versions of the code).
 */
export function serverNodeArgs(nodeOptions = process.env.NODE_OPTIONS ?? "", bundle = SERVER_BUNDLE) {
  const own = nodeOptions.replaceAll("_", "-");
  return [...SERVER_HEAP_FLAGS.filter((flag) => !own.includes(flag.slice(0, flag.indexOf("=")))), bundle];
}

/** Compiles server.ts into SERVER_BUNDLE; throws on a compile error. */
export function bundleServer() {
  buildSync({
    entryPoints: ["server.ts"],
    outfile: SERVER_BUNDLE,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
}
