// Completes package-lock.json with the optional native packages of the platforms this registry does not serve.
//
// Next (SWC) and Tailwind (oxide) ship their native code as one optional package per platform. npm records every
// platform's package in the lockfile when it can read them from the registry; a registry mirror that serves only
// some platforms (the one this project is built against serves Linux, not macOS or Windows) leaves them out, and
// `npm ci` then refuses the lockfile as out of sync. This adds the missing entries exactly as npm writes them for an
// optional platform package (version, os, cpu, libc, optional), so `npm ci` skips them on other platforms and
// fetches them from the registry on theirs. Run after any `npm install` that rewrote the lockfile:
//
//   npm install && node scripts/lockfile-platforms.mjs
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const packages = lock.packages;

/** os, cpu and libc of a platform package, from the platform part of its name (as Next and Tailwind name them). */
function platformOf(name) {
  const m =
    /-(darwin|win32|linux|android|freebsd|netbsd|openbsd|openharmony|sunos|aix|wasm32)-?([a-z0-9]*)?(?:-(gnu|musl|msvc|gnueabihf|musleabihf|eabi|wasi))?$/.exec(
      name,
    );
  if (!m) return null;
  const [, os, cpu, abi] = m;
  if (os === "wasm32") return { cpu: ["wasm32"] };
  const out = { cpu: [cpu === "universal" ? "arm64" : cpu], os: [os] };
  if (abi === "gnu" || abi === "gnueabihf") out.libc = ["glibc"];
  if (abi === "musl" || abi === "musleabihf") out.libc = ["musl"];
  return out;
}

let added = 0;
for (const [where, pkg] of Object.entries(packages)) {
  for (const [dep, spec] of Object.entries(pkg.optionalDependencies ?? {})) {
    const base = where ? `${where}/node_modules/${dep}` : `node_modules/${dep}`;
    if (packages[base] || packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(spec)) continue;
    packages[`node_modules/${dep}`] = { version: spec, ...platform, license: pkg.license ?? "MIT", optional: true };
    added++;
  }
}

lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lockfile: ${added} optional platform package(s) added`);
