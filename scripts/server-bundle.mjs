// The production process is server.ts (and the part of lib/ it imports) compiled ahead of time into one ES module,
// so `npm start` runs plain JavaScript on node: no TypeScript loader in the process (tsx's loader thread, its
// transformed sources and source maps held in memory) and nothing compiled while the first requests wait. Packages
// stay outside the bundle and load from node_modules, as under tsx. Bundling takes well under a second, so every
// start bundles afresh and the process never runs code older than the checkout.
import { buildSync } from "esbuild";

/** Where the compiled server goes (ignored by git). */
export const SERVER_BUNDLE = "dist/server.mjs";

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
