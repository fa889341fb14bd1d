/**
 * The generated integration code compiles, and where it can run here it behaves: each program is built from the
 * Markdown's fenced blocks and run against a stand-in licensing server on 127.0.0.1 through activation, validation,
 * the offline grace period, 429 with Retry-After, every refusal code and deactivation.
 *
 * A check runs only when its toolchain is on this machine (a plain `if`): python3; gcc/g++ with libcurl and OpenSSL
 * headers (Debian libcurl4-openssl-dev, libssl-dev); node; cargo with Debian's vendored crates in
 * /usr/share/cargo/registry (librust-ureq-dev, librust-sha2-dev, librust-serde-json-dev, librust-serde-derive-dev);
 * JUCE's module sources in /usr/share/juce/modules (juce-modules-source-data). C# has no compiler here.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLicenseIntegration, generateTestLicenseKey, type IntegrationLanguage } from "@/lib/agents/devtools";

const APP_ID = "com.acme.synth";
const root = mkdtempSync(join(tmpdir(), "devtools-compile-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// ------------------------------------------------------------------ helpers

function has(bin: string, args = ["--version"]): boolean {
  return spawnSync(bin, args, { stdio: "ignore" }).status === 0;
}

/** Runs a command; throws with its output when it fails, so a compiler error fails the test. */
function mustRun(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): string {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, encoding: "utf8", timeout: opts.timeout ?? 120_000 });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}\n${r.stderr}`);
  }
  return `${r.stdout}${r.stderr}`;
}

/** Writes the Markdown's file blocks (those labelled **`path`**) under dir; returns path → language. */
function extract(markdown: string, dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const re = /\*\*`([^`\n]+)`\*\*\n\n(`{3,})([\w-]*)\n([\s\S]*?)\n\2$/gm;
  for (const m of markdown.matchAll(re)) {
    const path = join(dir, m[1]!);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${m[4]}\n`);
    files.set(m[1]!, m[3]!);
  }
  return files;
}

function generate(language: IntegrationLanguage, serverUrl = "http://127.0.0.1:9"): { dir: string; files: Map<string, string> } {
  const dir = mkdtempSync(join(root, `${language}-`));
  const files = extract(generateLicenseIntegration({ language, app_id: APP_ID, server_url: serverUrl }), dir);
  expect(files.size).toBeGreaterThan(0);
  return { dir, files };
}

// ------------------------------------------------------------------ a stand-in licensing server

interface MockKey {
  max: number;
  trial?: boolean;
  revoked?: boolean;
  expired?: boolean;
  full?: boolean;
}

const KEYS: Record<string, MockKey> = {
  "AAAA-BBBB-CCCC-DDDD": { max: 2 },
  "TR1A-L000-0000-0001": { max: 1, trial: true },
  "REVK-0000-0000-0001": { max: 1, revoked: true },
  "EXPD-0000-0000-0001": { max: 1, expired: true },
  "FULL-0000-0000-0001": { max: 1, full: true },
};

class MockLicenseServer {
  down = false;
  rate429 = 0;
  served429 = 0;
  readonly machines = new Map<string, Set<string>>();
  readonly requests: Array<{ path: string; contentType: string; body: Record<string, string> }> = [];
  private server?: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let text = "";
      req.on("data", (c: Buffer) => (text += c.toString("utf8")));
      req.on("end", () => this.handle(req.url ?? "", String(req.headers["content-type"] ?? ""), text, req.socket, res));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private handle(path: string, contentType: string, text: string, socket: import("node:net").Socket, res: import("node:http").ServerResponse): void {
    if (this.down) {
      socket.destroy(); // as unreachable as it gets without a closed port
      return;
    }
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "Content-Type": status < 300 ? "application/json" : "application/problem+json", ...headers });
      res.end(JSON.stringify(body));
    };
    if (this.rate429 > 0) {
      this.rate429--;
      this.served429++;
      send(429, { type: "about:blank", status: 429, code: "rate_limited", detail: "Too many requests." }, { "Retry-After": "1" });
      return;
    }
    if (contentType.split(";")[0]!.trim() !== "application/json") {
      send(415, { status: 415, code: "unsupported_media_type", detail: "Send JSON." });
      return;
    }
    let b: Record<string, string>;
    try {
      b = JSON.parse(text);
    } catch {
      send(400, { status: 400, code: "invalid_json", detail: "The request body is not valid JSON." });
      return;
    }
    this.requests.push({ path, contentType, body: b });
    const k = KEYS[b.license_key!];
    const ms = this.machines.get(b.license_key!) ?? new Set<string>();
    this.machines.set(b.license_key!, ms);
    const standing = !k ? "NOT_FOUND" : b.plugin_id !== undefined && b.plugin_id !== APP_ID ? "PRODUCT_MISMATCH" : k.revoked ? "REVOKED" : k.expired ? "EXPIRED" : "VALID";
    const fp = b.machine_fingerprint!;
    if (path === "/validate") {
      const code = standing !== "VALID" ? standing : ms.has(fp) ? "VALID" : ms.size ? "FINGERPRINT_SCOPE_MISMATCH" : "NO_MACHINE";
      send(200, {
        valid: code === "VALID",
        expires_at: k?.trial ? new Date(Date.now() + 5 * 86_400_000 - 60_000).toISOString() : null,
        machine_bound: ms.has(fp),
        trial: Boolean(k?.trial),
        trial_days_remaining: k?.trial ? 5 : 0,
        code,
        detail: code,
      });
    } else if (path === "/activate") {
      let code = standing;
      if (standing === "VALID") {
        if (ms.has(fp)) code = "ALREADY_ACTIVATED";
        else if (k!.full || ms.size >= k!.max) code = "TOO_MANY_MACHINES";
        else {
          ms.add(fp);
          code = "ACTIVATED";
        }
      }
      send(200, {
        activated: code === "ACTIVATED" || code === "ALREADY_ACTIVATED",
        machine_fingerprint: fp,
        activated_at: code === "ACTIVATED" ? new Date().toISOString() : null,
        code,
        detail: code,
        max_machines: k ? k.max : null,
        active_machines: k ? (k.full ? k.max : ms.size) : null,
      });
    } else if (path === "/deactivate") {
      const had = ms.delete(fp);
      send(200, { deactivated: had, code: !k ? "NOT_FOUND" : had ? "DEACTIVATED" : "NOT_ACTIVATED", detail: "", active_machines: ms.size });
    } else {
      send(404, { status: 404, code: "not_found", detail: "No such endpoint." });
    }
  }
}

/** This machine's fingerprint by the documented Linux recipe, or null where the recipe's inputs are missing. */
function expectedLinuxFingerprint(): string | null {
  try {
    const cpu = readFileSync("/proc/cpuinfo", "utf8")
      .split("\n")
      .map((l) => l.split(":"))
      .find(([name, value]) => name!.trim() === "model name" && value?.trim())?.[1]
      ?.trim();
    const id = ["/etc/machine-id", "/var/lib/dbus/machine-id"].map((p) => (existsSync(p) ? readFileSync(p, "utf8").trim() : "")).find(Boolean);
    if (!cpu || !id) return null;
    return createHash("sha256").update(`${cpu}|${id}`).digest("hex");
  } catch {
    return null;
  }
}

const canIdentifyMachine = existsSync("/etc/machine-id") || existsSync("/var/lib/dbus/machine-id");

/**
 * Runs a generated command-line program through the whole protocol against the stand-in server. The program
 * exits 0 when the app may run, takes a key from LICENSE_KEY and releases the machine with --deactivate.
 */
async function exerciseProtocol(mock: MockLicenseServer, cmd: string, args: string[], cwd: string): Promise<void> {
  const config = mkdtempSync(join(root, "config-"));
  const stateDir = join(config, APP_ID);
  // Asynchronous: the stand-in server answers from this process's event loop.
  const run = (key?: string, extra: string[] = []) =>
    new Promise<{ status: number | null; out: string }>((resolve, reject) => {
      const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: config };
      delete env.LICENSE_KEY;
      if (key !== undefined) env.LICENSE_KEY = key;
      const child = spawn(cmd, [...args, ...extra], { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
      child.stderr.on("data", (c: Buffer) => (out += c.toString("utf8")));
      child.on("error", reject);
      child.on("close", (status) => resolve({ status, out }));
    });
  const stateFile = () => (existsSync(stateDir) ? readdirSync(stateDir).filter((f) => f.startsWith("license")).map((f) => join(stateDir, f))[0] : undefined);
  const expectRun = (r: { status: number | null; out: string }, status: number, pattern: RegExp) => {
    expect(r.out, r.out).toMatch(pattern);
    expect(r.status, r.out).toBe(status);
  };

  // A test key has the right format but is never a real key.
  expectRun(await run(generateTestLicenseKey({ prefix: "TEST" }).license_key), 1, /not found/i);
  expect(stateFile()).toBeUndefined();

  // First run: the key as typed (lower case, spaces) is activated, validated and stored.
  expectRun(await run("  aaaa-bbbb-cccc-dddd "), 0, /License valid/);
  expect(stateFile()).toBeDefined();
  expect(mock.machines.get("AAAA-BBBB-CCCC-DDDD")?.size).toBe(1);

  // Later runs validate the stored key.
  expectRun(await run(), 0, /License valid/);

  // Server unreachable: the last good validation carries the app for the grace period.
  mock.down = true;
  expectRun(await run(), 0, /Running offline for up to 7 more day/);

  // ... but not once it is older than 7 days.
  const file = stateFile()!;
  const aged = readFileSync(file, "utf8").replace(/("?validated(?:_at|At)"?\s*[:=]\s*)(\d+(?:\.\d+)?)/, (_, head: string, value: string) => {
    const ms = Number(value) > 1e12;
    const eightDaysAgo = Date.now() - 8 * 86_400_000;
    return `${head}${ms ? eightDaysAgo : Math.floor(eightDaysAgo / 1000)}`;
  });
  expect(aged).not.toBe(readFileSync(file, "utf8"));
  writeFileSync(file, aged);
  expectRun(await run(), 1, /Could not reach the license server/);
  mock.down = false;

  // 429 with a short Retry-After is waited out once.
  mock.rate429 = 1;
  const before429 = mock.served429;
  expectRun(await run(), 0, /License valid/);
  expect(mock.served429).toBe(before429 + 1);

  // Releasing the machine frees the seat and forgets the key.
  expectRun(await run(undefined, ["--deactivate"]), 0, /released/);
  expect(mock.machines.get("AAAA-BBBB-CCCC-DDDD")?.size).toBe(0);
  expect(stateFile()).toBeUndefined();

  // Refusals.
  expectRun(await run("FULL-0000-0000-0001"), 1, /already active on 1 of 1 machines/);
  expectRun(await run("TR1A-L000-0000-0001"), 0, /Trial license: 5 day\(s\) left/);
  expectRun(await run(), 0, /Trial license: 5 day\(s\) left/);
  rmSync(stateDir, { recursive: true, force: true });
  expectRun(await run("REVK-0000-0000-0001"), 1, /revoked/);
  expectRun(await run("EXPD-0000-0000-0001"), 1, /expired/);
  expectRun(await run("not-a-key"), 1, /does not look like a license key/);

  // Every licensing call was JSON for this product, with this machine's fingerprint.
  const fingerprints = new Set(mock.requests.map((r) => r.body.machine_fingerprint));
  expect(fingerprints.size).toBe(1);
  const [fingerprint] = fingerprints;
  expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
  const expected = expectedLinuxFingerprint();
  if (expected) expect(fingerprint).toBe(expected);
  for (const r of mock.requests) {
    if (r.path !== "/deactivate") expect(r.body.plugin_id).toBe(APP_ID);
  }
}

// ------------------------------------------------------------------ the checks

const tools = {
  python: has("python3"),
  gcc: has("gcc"),
  gxx: has("g++"),
  node: has(process.execPath),
  cargo: has("cargo") && ["ureq-2", "sha2-0.10", "serde_json-1", "serde_derive-1"].every((c) => existsSync("/usr/share/cargo/registry") && readdirSync("/usr/share/cargo/registry").some((d) => d.startsWith(`${c}.`))),
  juce: has("g++") && existsSync("/usr/share/juce/modules/juce_core/juce_core.h"),
};

describe("generated integration code", () => {
  const mock = new MockLicenseServer();
  beforeAll(() => mock.start());
  afterAll(() => mock.stop());
  const reset = () => {
    mock.machines.clear();
    mock.requests.length = 0;
    mock.down = false;
    mock.rate429 = 0;
  };

  it("Python compiles (py_compile) and runs the protocol", async () => {
    if (!tools.python) return;
    reset();
    const { dir, files } = generate("python", mock.url);
    for (const [path, lang] of files) if (lang === "python") mustRun("python3", ["-m", "py_compile", join(dir, path)]);
    if (canIdentifyMachine) await exerciseProtocol(mock, "python3", ["license_check.py"], dir);
  }, 120_000);

  it("C compiles (gcc -fsyntax-only, then linked with libcurl and libcrypto) and runs the protocol", async () => {
    if (!tools.gcc) return;
    reset();
    const { dir } = generate("c", mock.url);
    for (const f of ["license.c", "main.c"]) mustRun("gcc", ["-std=c99", "-Wall", "-Wextra", "-fsyntax-only", f], { cwd: dir });
    mustRun("gcc", ["-std=c99", "-O1", "main.c", "license.c", "-lcurl", "-lcrypto", "-o", "app"], { cwd: dir });
    if (canIdentifyMachine) await exerciseProtocol(mock, join(dir, "app"), [], dir);
  }, 120_000);

  it("C++ compiles (g++ -std=c++17 -fsyntax-only, then linked) and runs the protocol", async () => {
    if (!tools.gxx) return;
    reset();
    const { dir } = generate("cpp", mock.url);
    for (const f of ["license_client.cpp", "main.cpp"]) mustRun("g++", ["-std=c++17", "-Wall", "-Wextra", "-fsyntax-only", f], { cwd: dir });
    mustRun("g++", ["-std=c++17", "-O1", "main.cpp", "license_client.cpp", "-lcurl", "-lcrypto", "-o", "app"], { cwd: dir });
    if (canIdentifyMachine) await exerciseProtocol(mock, join(dir, "app"), [], dir);
  }, 180_000);

  it("Electron's main-process code passes node --check and its license module runs the protocol under Node", async () => {
    if (!tools.node) return;
    reset();
    const { dir } = generate("electron", mock.url);
    for (const f of ["license.js", "main.js"]) mustRun(process.execPath, ["--check", f], { cwd: dir });
    // The license module is plain Node (no electron import): drive it the way main.js does.
    writeFileSync(
      join(dir, "cli.js"),
      `const path = require('node:path');
const { createLicenseClient, Status } = require('./license.js');
(async () => {
  const client = createLicenseClient({ stateDir: path.join(process.env.XDG_CONFIG_HOME, ${JSON.stringify(APP_ID)}) });
  if (process.argv[2] === '--deactivate') {
    const o = await client.deactivateThisMachine();
    console.log(o.message);
    process.exit(o.status === Status.NEEDS_KEY ? 0 : 1);
  }
  let o = await client.checkLicense();
  if (o.status === Status.NEEDS_KEY && process.env.LICENSE_KEY) o = await client.activateLicense(process.env.LICENSE_KEY);
  console.log(o.message);
  process.exit(o.allowed ? 0 : 1);
})();
`,
    );
    if (canIdentifyMachine) await exerciseProtocol(mock, process.execPath, ["cli.js"], dir);
  }, 120_000);

  it("Tauri's front-end JavaScript passes node --check and its Rust module is the Rust integration's", () => {
    if (!tools.node) return;
    const { dir, files } = generate("tauri", mock.url);
    for (const [path, lang] of files) {
      if (lang !== "javascript") continue;
      const asModule = join(dir, path.replace(/\.js$/, ".mjs")); // ES module syntax (import/export)
      writeFileSync(asModule, readFileSync(join(dir, path)));
      mustRun(process.execPath, ["--check", asModule]);
    }
    const rust = generate("rust", mock.url);
    expect(readFileSync(join(dir, "src-tauri/src/license.rs"), "utf8")).toBe(readFileSync(join(rust.dir, "src/license.rs"), "utf8"));
  });

  it("Rust builds (cargo, offline, Debian's vendored crates) and runs the protocol", async () => {
    if (!tools.cargo) return;
    reset();
    const { dir } = generate("rust", mock.url);
    const deps = readFileSync(join(dir, "Cargo.toml"), "utf8");
    writeFileSync(join(dir, "Cargo.toml"), `[package]\nname = "license-check"\nversion = "0.1.0"\nedition = "2021"\n\n${deps}`);
    mkdirSync(join(dir, ".cargo"));
    writeFileSync(
      join(dir, ".cargo/config.toml"),
      `[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "/usr/share/cargo/registry"\n\n[net]\noffline = true\n`,
    );
    const target = join(tmpdir(), "devtools-cargo-target"); // kept between runs: later builds take seconds
    mustRun("cargo", ["build", "--offline", "--quiet"], { cwd: dir, env: { ...process.env, CARGO_TARGET_DIR: target, RUSTFLAGS: "-D warnings" }, timeout: 600_000 });
    if (canIdentifyMachine) await exerciseProtocol(mock, join(target, "debug", "license-check"), [], dir);
  }, 660_000);

  it("JUCE compiles (g++ -std=c++17 -fsyntax-only against JUCE's module headers)", () => {
    if (!tools.juce) return;
    const { dir } = generate("juce", mock.url);
    writeFileSync(join(dir, "Source/check.cpp"), '#include "LicenseManager.cpp"\n#include "LicenseGate.h"\n');
    mustRun("g++", [
      "-std=c++17",
      "-fsyntax-only",
      "-Wall",
      "-Wextra",
      "-I/usr/share/juce/modules",
      "-DJUCE_GLOBAL_MODULE_SETTINGS_INCLUDED=1",
      "-DJUCE_STANDALONE_APPLICATION=1",
      "Source/check.cpp",
    ], { cwd: dir });
  }, 120_000);
});
