import { afterEach, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "@/lib/env";
import { applyBuiltConfig } from "@/lib/server/built-config";

/**
 * The production server hands Next the configuration the build resolved instead of loading next.config.ts again;
 * the Server Action origins are this instance's, not the build machine's.
 */

const dirs: string[] = [];
const before = process.env.__NEXT_PRIVATE_STANDALONE_CONFIG;
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  if (before === undefined) delete process.env.__NEXT_PRIVATE_STANDALONE_CONFIG;
  else process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = before;
});

function buildDir(config: object): string {
  const dir = mkdtempSync(join(tmpdir(), "ilm-built-config-"));
  dirs.push(dir);
  mkdirSync(join(dir, ".next"));
  writeFileSync(join(dir, ".next", "required-server-files.json"), JSON.stringify({ version: 1, config }));
  return dir;
}

describe("applyBuiltConfig", () => {
  it("hands Next the built configuration with this instance's Server Action origins", () => {
    const dir = buildDir({
      distDir: ".next",
      poweredByHeader: false,
      serverExternalPackages: ["better-sqlite3"],
      experimental: { preloadEntriesOnStart: false, serverActions: { bodySizeLimit: "4mb", allowedOrigins: ["localhost:3000"] } },
    });
    const config = applyBuiltConfig(dir, parseEnv({ BASE_URL: "https://licenses.acme.io", ALLOWED_HOSTS: "licenses.internal" }));
    const handed = JSON.parse(process.env.__NEXT_PRIVATE_STANDALONE_CONFIG!);
    expect(handed).toEqual(config);
    expect(handed.poweredByHeader).toBe(false);
    expect(handed.serverExternalPackages).toEqual(["better-sqlite3"]);
    expect(handed.experimental.preloadEntriesOnStart).toBe(false);
    expect(handed.experimental.serverActions).toEqual({ bodySizeLimit: "4mb", allowedOrigins: ["licenses.acme.io", "licenses.internal"] });
  });

  it("refuses to start without a build", () => {
    const dir = mkdtempSync(join(tmpdir(), "ilm-built-config-"));
    dirs.push(dir);
    expect(() => applyBuiltConfig(dir, parseEnv({}))).toThrow(/required-server-files\.json/);
  });
});
