import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  checkServerUrl,
  explainLicensing,
  generateLicenseIntegration,
  generateServerConfig,
  generateTestLicenseKey,
  INTEGRATION_LANGUAGES,
  LICENSE_FILE_ENDPOINT,
  LICENSE_FILE_FORMAT,
  LICENSING_TOPICS,
  SERVER_TARGETS,
  serverConfigFiles,
  TEST_KEY_MARKER,
  type IntegrationLanguage,
} from "@/lib/agents/devtools";
import { ed25519Multibase } from "@/lib/identity/multibase";
import { KEY_ALPHABET, LICENSE_KEY_PATTERN } from "@/lib/licensing/keys";
import { LICENSE_FILE_FORMAT as SERVICE_LICENSE_FILE_FORMAT } from "@/lib/verifiable/license-file";

/** Fenced blocks of a Markdown document, with the `**\`path\`**` label that precedes file blocks. */
function fencedBlocks(markdown: string): Array<{ path?: string; lang: string; code: string }> {
  const out: Array<{ path?: string; lang: string; code: string }> = [];
  const re = /(?:\*\*`([^`\n]+)`\*\*\n\n)?^( *)(`{3,})([\w-]*)\n([\s\S]*?)\n\2\3$/gm;
  for (const m of markdown.matchAll(re)) out.push({ path: m[1], lang: m[4]!, code: m[5]! });
  return out;
}

const EXPECTED_LANGS: Record<IntegrationLanguage, string[]> = {
  c: ["c"],
  // The signed license file check is one C file shared by C, C++ and JUCE (sdks/shared).
  cpp: ["cpp", "c"],
  rust: ["rust", "toml"],
  python: ["python"],
  electron: ["javascript"],
  tauri: ["rust", "javascript", "toml"],
  csharp: ["csharp"],
  juce: ["cpp", "c"],
};

const HOSTILE_APP_IDS = [
  'com.example"; system("rm -rf /"); "',
  "com.example\nimport os",
  "com.example'",
  "com.example\\",
  "com.example`whoami`",
  "${process.exit(1)}",
  "com.example app",
  ".hidden",
  "",
  "a".repeat(201),
  "com.example/../../etc",
  "com.exämple",
];

const HOSTILE_URLS = [
  'https://example.com/"; system("rm -rf /"); "',
  'https://example.com/"',
  "javascript:alert(1)",
  "ftp://example.com",
  "file:///etc/passwd",
  "https://user:pass@example.com",
  "https://example.com/?q=1",
  "https://example.com/#x",
  "https://example.com/a b",
  "https://example.com/${x}",
  "https://example.com/*/",
  "https://example.com/{a}",
  "not a url",
  "https://example.com\\evil",
];

describe("generateLicenseIntegration", () => {
  for (const language of INTEGRATION_LANGUAGES) {
    describe(language, () => {
      const md = generateLicenseIntegration({ language, app_id: "com.acme.tape-saturator", server_url: "https://licenses.acme.io/" });
      const blocks = fencedBlocks(md);

      it("has an intro, setup steps and the expected fenced code blocks", () => {
        expect(md).toMatch(/^# License checks in /);
        expect(md).toContain("## Setup\n\n1. ");
        expect(md).toContain("## Code");
        const files = blocks.filter((b) => b.path);
        expect(files.length).toBeGreaterThanOrEqual(2);
        expect([...new Set(files.map((b) => b.lang))].sort()).toEqual([...EXPECTED_LANGS[language]].sort());
        for (const f of files) expect(f.code.length).toBeGreaterThan(100);
        // Every fence is closed: an even number of fence lines.
        expect((md.match(/^ *`{3,}/gm) ?? []).length % 2).toBe(0);
      });

      it("embeds app_id and server_url, and no unfilled placeholder", () => {
        const code = blocks.map((b) => b.code).join("\n");
        expect(code).toContain("com.acme.tape-saturator");
        expect(code).toContain("https://licenses.acme.io");
        expect(code).not.toContain('https://licenses.acme.io/"');
        expect(md).not.toMatch(/@@[A-Z_]+@@/);
        expect(md).not.toContain("com.example.app");
      });

      it("covers the whole protocol", () => {
        const code = blocks.map((b) => b.code).join("\n");
        for (const needle of ["/activate", "/validate", "/deactivate", "machine_fingerprint", "plugin_id", "Retry-After"]) {
          expect(code).toContain(needle);
        }
        for (const c of [
          "NOT_FOUND",
          "PRODUCT_MISMATCH",
          "REVOKED",
          "EXPIRED",
          "TRIAL_EXPIRED",
          "TOO_MANY_MACHINES",
          "NO_MACHINE",
          "FINGERPRINT_SCOPE_MISMATCH",
          "DEACTIVATED",
        ]) {
          expect(code).toContain(c);
        }
        expect(code).toMatch(/OFFLINE_GRACE_DAYS|OfflineGraceDays|offlineGraceDays|kOfflineGraceDays/);
        expect(code).toMatch(/\b7\b/);
        for (const os of ["machine-id", "IOPlatformUUID", "MachineGuid"]) expect(code).toContain(os);
      });

      it("verifies signed offline license files with embedded keys, and says how to embed them", () => {
        const code = blocks
          .filter((b) => b.path)
          .map((b) => b.code)
          .join("\n");
        for (const needle of [
          "LICENSE_PUBLIC_KEYS",
          LICENSE_FILE_FORMAT,
          LICENSE_FILE_ENDPOINT,
          "license.lic",
          "fingerprint",
          "expires_at",
          "issued_at",
          "key-id",
          "-----BEGIN LICENSE FILE-----",
        ]) {
          expect(code, needle).toContain(needle);
        }
        // The placeholder entry: the key-id the service most likely uses, and no key.
        expect(code).toContain("did:web:licenses.acme.io#ed25519-1");
        expect(code).toMatch(/placeholder: replace "" with the key/);
        // The setup steps print the key(s) from the DID document, with a command that is one line.
        const command = fencedBlocks(md).find((b) => b.lang === "sh" && b.code.includes("/.well-known/did.json"));
        expect(command?.code.trim()).toMatch(/^curl -fsS https:\/\/licenses\.acme\.io\/\.well-known\/did\.json \| python3 -c '[^'\n]+'$/);
        expect(md).toContain("Never fetch the key at run time");
      });

      it("embeds given public keys in any of their forms, and refuses hostile ones", () => {
        const raw = Buffer.from(generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" }).x!, "base64url");
        const forms = [raw.toString("base64url"), raw.toString("hex"), ed25519Multibase(raw), `${raw.toString("base64url")}=`];
        for (const form of forms) {
          const out = generateLicenseIntegration({ language, public_keys: { "did:web:licenses.acme.io#ed25519-2": form } });
          expect(out, form).toContain(raw.toString("base64url"));
          expect(out).toContain("did:web:licenses.acme.io#ed25519-2");
          expect(out).not.toMatch(/placeholder: replace/);
        }
        // A base64url key that also reads as base58 multibase ("z", no 0 O I l - _) is still taken as base64url.
        const lookalike = Buffer.from("cca1867b18db044607c89ecd346938b01e50a9edf60175f765fd4d74f44c8da9", "hex");
        expect(lookalike.toString("base64url")).toMatch(/^z[1-9A-HJ-NP-Za-km-z]{42}$/);
        expect(
          generateLicenseIntegration({ language, public_keys: { "did:web:licenses.acme.io#ed25519-3": lookalike.toString("base64url") } }),
        ).toContain(lookalike.toString("base64url"));
        const good = raw.toString("base64url");
        for (const public_keys of [
          {},
          { 'did:web:x#k"; evil()': good },
          { "did:web:x": good },
          { "https://x#k": good },
          { "did:web:x#k": "not a key" },
          { "did:web:x#k": good.slice(1) },
          { "did:web:x#k": `z${"1".repeat(45)}` },
          { "did:web:x#k": raw.toString("base64") + '"' },
          Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`did:web:x#k${i}`, good])),
          "did:web:x#k" as never,
        ]) {
          expect(() => generateLicenseIntegration({ language, public_keys }), JSON.stringify(public_keys)).toThrow(/public_keys/);
        }
      });

      it("uses placeholders when app_id and server_url are omitted", () => {
        const plain = generateLicenseIntegration({ language });
        expect(plain).toContain("com.example.app");
        expect(plain).toContain("http://localhost:3000"); // BASE_URL of the test environment
        expect(plain).not.toContain('http://localhost:3000/"');
      });

      it("rejects hostile app_id values", () => {
        for (const app_id of HOSTILE_APP_IDS) {
          expect(() => generateLicenseIntegration({ language, app_id }), JSON.stringify(app_id)).toThrow(/app_id/);
        }
      });

      it("rejects hostile server_url values", () => {
        for (const server_url of HOSTILE_URLS) {
          expect(() => generateLicenseIntegration({ language, server_url }), server_url).toThrow(/server_url/);
        }
      });
    });
  }

  it("rejects unknown languages", () => {
    expect(() => generateLicenseIntegration({ language: "cobol" as IntegrationLanguage })).toThrow(/language must be one of/);
  });

  it("normalises server URLs", () => {
    expect(checkServerUrl("https://Licenses.Example.com/")).toBe("https://licenses.example.com");
    expect(checkServerUrl("http://127.0.0.1:8080/licensing/")).toBe("http://127.0.0.1:8080/licensing");
    expect(checkServerUrl("http://[::1]:3000")).toBe("http://[::1]:3000");
  });
});

describe("explainLicensing", () => {
  const endpoints = [
    "/activate",
    "/validate",
    "/deactivate",
    "/api/receipt",
    "/.well-known/did.json",
    "/api/terms",
    "/api/trials",
    "/health",
    "/api/checkout/create",
    "/api/catalog",
    "/api/mcp",
  ];
  for (const topic of LICENSING_TOPICS) {
    it(`${topic}: non-trivial Markdown that names this service's endpoints`, () => {
      const md = explainLicensing(topic);
      expect(md).toMatch(/^# /);
      expect(md.length).toBeGreaterThan(800);
      expect(md).toMatch(/^(- |\| |\d\. )/m); // a list or a table
      expect(endpoints.some((e) => md.includes(e))).toBe(true);
      expect(fencedBlocks(md).every((b) => b.code.length > 0)).toBe(true);
    });
  }
  it("states the specific facts", () => {
    const offline = explainLicensing("offline_validation");
    for (const s of [
      "GET /api/license-file?key=",
      "fingerprint=",
      "ilm-license-file/1",
      "-----BEGIN LICENSE FILE-----",
      "key-id:",
      "signature:",
      "machine_not_activated",
      "RFC 8785",
      "30 days",
      "/.well-known/did.json",
      "publicKeyMultibase",
      "0xed 0x01",
      "LICENSE_PUBLIC_KEYS",
      "Never fetch the key at run time",
      "Rotation",
      "Revocation",
      "7 days",
      "POST /api/receipt",
      "/api/receipt/credential",
      "vc+jwt",
      "EdDSA",
      "Bitstring Status List",
      "/api/status/revocation",
    ]) {
      expect(offline, s).toContain(s);
    }
    expect(offline).toMatch(/machine\.fingerprint[\s\S]*plugin_id[\s\S]*expires_at[\s\S]*issued_at/);
    const antiTamper = explainLicensing("anti_tamper");
    expect(antiTamper).toMatch(/RECEIPT_SECRET[\s\S]*public[\s\S]*did\.json/);
    for (const s of [
      "/api/license-file",
      "Ed25519",
      "LICENSE_PUBLIC_KEYS",
      "never fetch it at run time",
      "key-id",
      "issued_at",
      "expires_at",
      "/api/receipt/credential",
      "/api/status/revocation",
    ]) {
      expect(antiTamper, s).toContain(s);
    }
    expect(explainLicensing("machine_binding")).toMatch(/license file[\s\S]*machine\.fingerprint/);
    expect(explainLicensing("key_revocation")).toContain("license_revoked");
    const comparison = explainLicensing("comparison");
    for (const s of ["Keygen", "Lemon Squeezy", "Gumroad", "5 % + 50¢", "10 % + 50¢", "at the time of writing", "no monthly fee"])
      expect(comparison).toContain(s);
    expect(explainLicensing("pricing")).toMatch(/5 % per sale[\s\S]*\$2\.45/);
    expect(explainLicensing("machine_binding")).toContain("TOO_MANY_MACHINES");
    expect(explainLicensing("trial_keys")).toContain("TRIAL_EXPIRED");
    expect(explainLicensing("key_revocation")).toContain("REVOKED");
  });
  it("describes the license file format the service issues", () => {
    expect(LICENSE_FILE_FORMAT).toBe(SERVICE_LICENSE_FILE_FORMAT);
  });
  it("rejects unknown topics", () => {
    expect(() => explainLicensing("piracy" as never)).toThrow(/topic must be one of/);
  });
});

describe("generateServerConfig", () => {
  const expected: Record<string, string[]> = {
    docker: ["Dockerfile", ".dockerignore", "docker-compose.yml", "Caddyfile"],
    fly: ["fly.toml", "Dockerfile", ".dockerignore"],
    railway: ["railway.json"],
    render: ["render.yaml"],
    vps: ["licenses.service", "licenses.env", "Caddyfile", "nginx-licenses.acme.io.conf"],
  };
  const dir = mkdtempSync(join(tmpdir(), "devtools-config-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const python = (() => {
    try {
      execFileSync("python3", ["--version"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  })();

  for (const target of SERVER_TARGETS) {
    it(`${target}: has its files, the domain, the health check and the settings`, () => {
      const md = generateServerConfig({ target, domain: "licenses.acme.io" });
      const files = serverConfigFiles({ target, domain: "licenses.acme.io" });
      expect(files.map((f) => f.path)).toEqual(expected[target]);
      for (const f of files) expect(md).toContain(`**\`${f.path}\`**`);
      expect(md).toContain("licenses.acme.io");
      expect(md).not.toContain("licenses.example.com");
      expect(md).toContain("/health");
      expect(md).not.toMatch(/@@[A-Z_]+@@/);
      for (const v of ["BASE_URL", "DATABASE_URL", "RECEIPT_SECRET", "STRIPE_SECRET_KEY", "TRUST_PROXY"]) expect(md).toContain(v);
      expect(generateServerConfig({ target })).toContain("licenses.example.com");
    });
  }

  it("writes valid YAML, TOML and JSON", () => {
    const file = (target: (typeof SERVER_TARGETS)[number], path: string) =>
      serverConfigFiles({ target, domain: "licenses.acme.io" }).find((f) => f.path === path)!.content;
    const railway = JSON.parse(file("railway", "railway.json"));
    expect(railway.deploy).toMatchObject({ startCommand: "npm start", healthcheckPath: "/health" });
    expect(railway.build.buildCommand).toBe("npm run build");

    const compose = file("docker", "docker-compose.yml");
    const render = file("render", "render.yaml");
    const fly = file("fly", "fly.toml");
    expect(file("docker", "Dockerfile")).toMatch(
      /FROM node:20-bookworm-slim AS build[\s\S]*python3 make g\+\+[\s\S]*npm run build[\s\S]*FROM node:20-bookworm-slim[\s\S]*CMD \["npm", "start"\]/,
    );
    expect(compose).toMatch(/image: postgres:16/);
    expect(render).toMatch(/property: connectionString/);
    expect(fly).toMatch(/internal_port = 3000/);
    expect(compose).not.toMatch(/\t/); // YAML forbids tabs for indentation

    if (!python) return; // structure checks above only
    writeFileSync(join(dir, "docker-compose.yml"), compose);
    writeFileSync(join(dir, "render.yaml"), render);
    writeFileSync(join(dir, "fly.toml"), fly);
    const script = `
import json, sys, tomllib
fly = tomllib.load(open(sys.argv[3], "rb"))
assert fly["http_service"]["internal_port"] == 3000, fly
assert fly["http_service"]["checks"][0]["path"] == "/health", fly
assert fly["env"]["BASE_URL"] == "https://licenses.acme.io", fly
try:
    import yaml
except ImportError:
    print("no-yaml")
    sys.exit(0)
compose = yaml.safe_load(open(sys.argv[1]))
assert compose["services"]["db"]["image"] == "postgres:16", compose
assert compose["services"]["app"]["environment"]["BASE_URL"] == "https://licenses.acme.io", compose
assert compose["services"]["app"]["depends_on"]["db"]["condition"] == "service_healthy", compose
assert "healthcheck" in compose["services"]["db"] and "pgdata" in compose["volumes"], compose
render = yaml.safe_load(open(sys.argv[2]))
web = render["services"][0]
assert web["type"] == "web" and web["healthCheckPath"] == "/health", web
env = {e["key"]: e for e in web["envVars"]}
assert env["DATABASE_URL"]["fromDatabase"]["property"] == "connectionString", env
assert env["DATABASE_URL"]["fromDatabase"]["name"] == render["databases"][0]["name"], render
print("ok")
`;
    const out = execFileSync("python3", ["-c", script, join(dir, "docker-compose.yml"), join(dir, "render.yaml"), join(dir, "fly.toml")], {
      encoding: "utf8",
    });
    expect(["ok", "no-yaml"]).toContain(out.trim());
  });

  it("rejects hostile domains", () => {
    for (const domain of [
      "licenses.acme.io; rm -rf /",
      "https://licenses.acme.io",
      "licenses.acme.io:443",
      "licenses.acme.io/path",
      "*.acme.io",
      "localhost",
      "-bad.acme.io",
      "a b.io",
      "licenses.acme.io\n",
      "${HOME}.io",
      "1.2.3.4",
      "x".repeat(64) + ".io",
      "évil.io",
    ]) {
      expect(() => generateServerConfig({ target: "docker", domain }), JSON.stringify(domain)).toThrow(/domain must be a hostname/);
    }
    expect(() => generateServerConfig({ target: "heroku" as never })).toThrow(/target must be one of/);
  });
});

describe("generateTestLicenseKey", () => {
  it("has the key format, ends in U and says it is a test key", () => {
    const k = generateTestLicenseKey();
    expect(k.license_key).toMatch(LICENSE_KEY_PATTERN);
    expect(k.license_key.endsWith(TEST_KEY_MARKER)).toBe(true);
    expect(k.test).toBe(true);
    expect(k.note).toMatch(/test key/i);
    expect(k.note).toContain("NOT_FOUND");
    expect(KEY_ALPHABET).not.toContain("U");
    // Everything but the marker comes from the real key alphabet.
    for (const c of k.license_key.replace(/-/g, "").slice(0, 15)) expect(KEY_ALPHABET).toContain(c);
  });

  it("starts with the prefix, upper-cased", () => {
    expect(generateTestLicenseKey({ prefix: "te" }).license_key).toMatch(/^TE[0-9A-Z]{2}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{3}U$/);
    expect(generateTestLicenseKey({ prefix: "Qa1" }).license_key).toMatch(/^QA1[0-9A-Z]-/);
    expect(generateTestLicenseKey({ prefix: "DEMO" }).license_key).toMatch(/^DEMO-/);
  });

  it("makes 1,000 distinct keys", () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateTestLicenseKey().license_key));
    expect(keys.size).toBe(1000);
    for (const key of keys) expect(key).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{3}U$/);
  });

  it("rejects bad prefixes", () => {
    for (const prefix of ["", "A", "ABCDE", "AB-C", "A B", "ÄB", "AB\n", "'; --", "12345"]) {
      expect(() => generateTestLicenseKey({ prefix }), JSON.stringify(prefix)).toThrow(/prefix/);
    }
  });
});
