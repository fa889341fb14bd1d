import { afterEach, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "@/lib/env";
import { builtConfig } from "@/lib/server/built-config";

/**
 * The production server hands Next the configuration the build resolved instead of loading next.config.ts again;
 * the Server Action origins are this instance's, not the build machine's.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function buildDir(config: object): string {
  const dir = mkdtempSync(join(tmpdir(), "ilm-built-config-"));
  dirs.push(dir);
  mkdirSync(join(dir, ".next"));
  writeFileSync(join(dir, ".next", "required-server-files.json"), JSON.stringify({ version: 1, config }));
  return dir;
}

describe("builtConfig", () => {
  it("is the built configuration with this instance's Server Action origins", () => {
    const dir = buildDir({
      distDir: ".next",
      poweredByHeader: false,
      serverExternalPackages: ["better-sqlite3"],
      experimental: { preloadEntriesOnStart: false, serverActions: { bodySizeLimit: "4mb", allowedOrigins: ["localhost:3000"] } },
    });
    // What server.ts hands Next: the JSON of it.
    const handed = JSON.parse(
      JSON.stringify(builtConfig(dir, parseEnv({ BASE_URL: "https://licenses.acme.io", ALLOWED_HOSTS: "licenses.internal" }))),
    );
    expect(handed.poweredByHeader).toBe(false);
    expect(handed.serverExternalPackages).toEqual(["better-sqlite3"]);
    expect(handed.experimental.preloadEntriesOnStart).toBe(false);
    expect(handed.experimental.serverActions).toEqual({ bodySizeLimit: "4mb", allowedOrigins: ["licenses.acme.io", "licenses.internal"] });
  });

  it("refuses to start without a build", () => {
    const dir = mkdtempSync(join(tmpdir(), "ilm-built-config-"));
    dirs.push(dir);
    expect(() => builtConfig(dir, parseEnv({}))).toThrow(/required-server-files\.json/);
  });
});
