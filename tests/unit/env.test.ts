import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseEnv as parseDotenv } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { env, liveSetting, parseEnv, resetEnv, SETTING_NAMES } from "@/lib/env";

const root = join(import.meta.dirname, "..", "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

describe("the environment", () => {
  afterEach(() => {
    delete process.env.LISTING_CACHE_TTL_MS;
    delete process.env.TRUST_PROXY;
    resetEnv();
  });

  it("accepts a verbatim copy of .env.example, blank values and all", () => {
    const assignments = parseDotenv(read(".env.example"));
    expect(assignments.STRIPE_SECRET_KEY).toBe(""); // the case that used to fail: "STRIPE_SECRET_KEY: Too small"
    const e = parseEnv(assignments);
    expect(e).toMatchObject({
      STRIPE_SECRET_KEY: undefined,
      SIGNING_KEY: undefined,
      RECEIPT_SECRET: undefined,
      DEV_MAILBOX: undefined,
      STRIPE_API_BASE: undefined,
    });
    expect(e.BASE_URL).toBe("http://localhost:3000");
    // What the file spells out is what the code assumes when the key is missing.
    expect(e).toEqual(parseEnv({ DATABASE_URL: e.DATABASE_URL, MAIL_FROM: e.MAIL_FROM }));
  });

  it("documents every setting in .env.example and in the README's configuration table", () => {
    const example = read(".env.example");
    const readme = read("README.md");
    const table = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## For AI agents"));
    for (const name of SETTING_NAMES) {
      expect(example, name).toMatch(new RegExp(`^(# )?${name}=`, "m"));
      expect(table, name).toContain(`\`${name}\``);
    }
    // And nothing in the file that the schema does not know.
    for (const name of Object.keys(parseDotenv(example))) expect(SETTING_NAMES).toContain(name);
  });

  it("treats blank and whitespace-only values as unset, for every key", () => {
    const blank = Object.fromEntries(SETTING_NAMES.map((k, i) => [k, i % 2 ? "" : "  \t"]));
    expect(parseEnv(blank)).toEqual(parseEnv({}));
  });

  it("types, bounds and defaults the numbers", () => {
    expect(parseEnv({}).RATE_LIMIT_VALIDATE_PER_MIN).toBe(600);
    expect(parseEnv({ RATE_LIMIT_VALIDATE_PER_MIN: "5" }).RATE_LIMIT_VALIDATE_PER_MIN).toBe(5);
    expect(() => parseEnv({ RATE_LIMIT_VALIDATE_PER_MIN: "0" })).toThrow(/RATE_LIMIT_VALIDATE_PER_MIN/);
    expect(() => parseEnv({ TRUST_PROXY: "-1" })).toThrow(/TRUST_PROXY/);
    expect(() => parseEnv({ DATABASE_POOL_SIZE: "ten" })).toThrow(/DATABASE_POOL_SIZE/);
    expect(() => parseEnv({ LICENSE_CACHE_TTL_MS: "1.5" })).toThrow(/LICENSE_CACHE_TTL_MS/);
    expect(() => parseEnv({ DEV_MAILBOX: "yes" })).toThrow(/DEV_MAILBOX/);
    expect(() => parseEnv({ STRIPE_API_BASE: "ftp://example.com" })).toThrow(/STRIPE_API_BASE/);
    expect(parseEnv({ LISTING_CACHE_TTL_MS: "0" }).LISTING_CACHE_TTL_MS).toBe(0);
  });

  it("caches env() until resetEnv(); liveSetting() follows process.env at once", () => {
    process.env.LISTING_CACHE_TTL_MS = "1234";
    resetEnv();
    expect(env().LISTING_CACHE_TTL_MS).toBe(1234);
    process.env.LISTING_CACHE_TTL_MS = "99";
    expect(env().LISTING_CACHE_TTL_MS).toBe(1234);
    resetEnv();
    expect(env().LISTING_CACHE_TTL_MS).toBe(99);

    expect(liveSetting("TRUST_PROXY")).toBe(0);
    process.env.TRUST_PROXY = "2";
    expect(liveSetting("TRUST_PROXY")).toBe(2);
    process.env.TRUST_PROXY = " ";
    expect(liveSetting("TRUST_PROXY")).toBe(0);
    process.env.TRUST_PROXY = "many";
    expect(() => liveSetting("TRUST_PROXY")).toThrow(/TRUST_PROXY/);
  });

  it("listens on loopback only when a reverse proxy is in front, unless HOST says otherwise", () => {
    // With TRUST_PROXY set the proxy must be the only way in: a direct client could otherwise reach the port itself.
    expect(parseEnv({}).HOST).toBe("0.0.0.0");
    expect(parseEnv({ TRUST_PROXY: "0" }).HOST).toBe("0.0.0.0");
    expect(parseEnv({ TRUST_PROXY: "1" }).HOST).toBe("127.0.0.1");
    expect(parseEnv({ TRUST_PROXY: "2", HOST: " " }).HOST).toBe("127.0.0.1");
    expect(parseEnv({ TRUST_PROXY: "1", HOST: "0.0.0.0" }).HOST).toBe("0.0.0.0");
    expect(parseEnv({ HOST: "::" }).HOST).toBe("::");
    expect(parseEnv({}).TRUST_PROXY_FROM).toBe("127.0.0.1,::1");
  });

  it("is read through lib/env.ts only", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(join(root, dir))) {
        const path = join(dir, name);
        if (path === join("lib", "generated")) continue;
        if (statSync(join(root, path)).isDirectory()) walk(path);
        else if (/\.tsx?$/.test(name) && path !== join("lib", "env.ts")) {
          read(path)
            .split("\n")
            .forEach((line, i) => {
              // The generated Dockerfile's health check runs in the container's shell, not here.
              if (/process\.env\b/.test(line) && !line.includes("HEALTHCHECK") && !/CMD \["node", "-e"/.test(line) && !line.trim().startsWith("*"))
                offenders.push(`${path}:${i + 1}`);
            });
        }
      }
    };
    for (const dir of ["lib", "app", "components"]) walk(dir);
    expect(offenders).toEqual([]);
  });
});
