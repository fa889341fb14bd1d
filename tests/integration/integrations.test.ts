/**
 * The code generate_license_integration returns, built with each language's own toolchain and run against the
 * service itself on this project's database (tests/helpers/licensing-server.ts: the lean licensing path and the real
 * license-file and DID document routes): activation of real licenses, validation, refusals, the unsigned offline
 * grace, a 429 waited out, release, and the machine's details the activation reported (host name, platform, the app
 * version the program was given); then, built with the service's real Ed25519 key (printed from its DID document
 * by the setup command the Markdown gives), a license file fetched from GET /api/license-file, running offline on
 * it, and refusing files that were tampered with or issued for something else.
 *
 * A language whose toolchain is missing here is reported as skipped with what it needs; .ci/run installs them all.
 */
import { spawn } from "node:child_process";
import { generateKeyPairSync, sign } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLicenseIntegration, generateTestLicenseKey, type IntegrationLanguage } from "@/lib/agents/devtools";
import { getDb } from "@/lib/db";
import { PLATFORMS } from "@/lib/releases/platforms";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { issueLicense } from "@/lib/licensing/issue-license";
import { setLicenseStatus } from "@/lib/licensing/set-license-status";
import { validateLicense } from "@/lib/licensing/validate-license";
import { issueLicenseFile } from "@/lib/verifiable/license-file";
import { didDocumentKeysBase64url } from "../helpers/did-keys";
import {
  buildJuceCli,
  buildRust,
  expectedLinuxFingerprint,
  extractFiles,
  mustRun,
  programRunner,
  SYSTEM_PYTHON,
  tools,
  writeElectronCli,
  type Program,
  type Run,
  withoutCryptography,
} from "../helpers/integration-programs";
import { fingerprint as randomFingerprint, newLicense } from "../helpers/licenses";
import { startLicensingServer, type LicensingServer } from "../helpers/licensing-server";

const DAY_MS = 86_400_000;
/**
 * The app version each program is built or started with: a quote, a backslash and a non-ASCII letter, so a program
 * that does not escape its JSON (or cuts UTF-8) fails. Rust's comes from Cargo.toml, which wants semver.
 */
const APP_VERSION = '2.5.0-β "quoted" \\ build';
const RUST_APP_VERSION = "2.5.0-rc.7";
/** This machine's platform as the generated code names it: the releases' names, OS then CPU ("linux-x64"). */
const PLATFORM = `${{ win32: "windows", darwin: "macos", linux: "linux" }[process.platform as string] ?? "other"}-${{ x64: "x64", arm64: "arm64" }[process.arch as string] ?? "other"}`;
const root = mkdtempSync(join(tmpdir(), "integrations-"));
let server: LicensingServer;
let appId: string;
let productId: string;
let otherProductId: string;
let ttlDays: number;
/** The service's keys as the setup command printed them from its DID document. */
let serviceKeys: Record<string, string> | undefined;

beforeAll(async () => {
  server = await startLicensingServer();
  const db = getDb();
  const product = await db.product.findFirstOrThrow({ where: { status: "active", maxMachines: { gte: 1 } }, orderBy: { id: "asc" } });
  const other = await db.product.findFirstOrThrow({ where: { status: "active", id: { not: product.id } }, orderBy: { id: "asc" } });
  appId = product.pluginId;
  productId = product.id;
  otherProductId = other.id;
  ttlDays = product.licenseFileTtlDays;
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function generate(language: IntegrationLanguage, publicKeys?: Record<string, string>) {
  const dir = mkdtempSync(join(root, `${language}-`));
  const markdown = generateLicenseIntegration({ language, app_id: appId, server_url: server.url, public_keys: publicKeys });
  const files = extractFiles(markdown, dir);
  expect(files.size).toBeGreaterThan(0);
  return { dir, files, markdown };
}

function expectRun(r: Run, status: number, pattern: RegExp): void {
  expect(r.out, r.out).toMatch(pattern);
  expect(r.status, r.out).toBe(status);
}

/** Moves the cached validation's time `days` into the past (seconds or milliseconds, as the state stores it). */
function ageStateFile(file: string, days: number): void {
  const text = readFileSync(file, "utf8");
  const aged = text.replace(/("?validated(?:_at|At)"?\s*(?:[:=]|val=)\s*"?)(\d+(?:\.\d+)?)/, (_, head: string, value: string) => {
    const ms = Number(value) > 1e12;
    const then = Date.now() - days * DAY_MS;
    return `${head}${ms ? then : Math.floor(then / 1000)}`;
  });
  expect(aged).not.toBe(text);
  writeFileSync(file, aged);
}

const license = (maxMachines: number, extra: { expiresAt?: Date | null; productId?: string } = {}) =>
  newLicense({ productId: extra.productId ?? productId, maxMachines, expiresAt: extra.expiresAt ?? null }).then((l) => l.license);

async function trialLicense(daysLeft: number) {
  return issueLicense(getDb(), {
    productId,
    buyerEmail: `trial-${Date.now()}@example.com`,
    maxMachines: 1,
    source: "trial",
    trial: true,
    expiresAt: new Date(Date.now() + daysLeft * DAY_MS - 60_000),
  });
}

/** Whether the license is activated on the machine, asked of the service directly (not through the app). */
async function bound(key: string, fingerprint: string): Promise<boolean> {
  return (await validateLicense({ license_key: key, machine_fingerprint: fingerprint, plugin_id: appId })).machine_bound;
}

/** A program built without public keys (and given appVersion), through the whole protocol against the service. */
async function exerciseProtocol(p: Program, appVersion: string): Promise<void> {
  server.reset();
  const { run, stateFile, forget } = programRunner(p, appId, root);
  const first = await license(2);
  const key = first.key;

  // A test key has the right format but is never a real key.
  expectRun(await run(generateTestLicenseKey({ prefix: "TEST" }).license_key), 1, /not found/i);
  expect(stateFile()).toBeUndefined();

  // First run: the key as typed (lower case, spaces) is activated, validated and stored.
  expectRun(await run(`  ${key.toLowerCase()} `), 0, /License valid/);
  expect(stateFile()).toBeDefined();
  const fingerprint = server.state.calls.find((c) => c.path === "/activate")!.body.machine_fingerprint!;
  expect(await bound(key, fingerprint)).toBe(true);
  // The activation said which machine this is: its host name, its platform and the version the program was given.
  const machine = await getDb().activation.findUniqueOrThrow({ where: { licenseId_fingerprint: { licenseId: first.id, fingerprint } } });
  expect(PLATFORMS).toContain(PLATFORM);
  expect({ machineName: machine.machineName, platform: machine.platform, appVersion: machine.appVersion }).toEqual({
    machineName: hostname(),
    platform: PLATFORM,
    appVersion,
  });

  // Later runs validate the stored key.
  expectRun(await run(), 0, /License valid/);

  // Server unreachable: the last good validation carries the app for the grace period...
  server.state.down = true;
  expectRun(await run(), 0, /Running offline for up to 7 more day/);
  // ... but not once it is older than 7 days.
  ageStateFile(stateFile()!, 8);
  expectRun(await run(), 1, /Could not reach the license server/);
  server.state.down = false;

  // 429 with a short Retry-After is waited out once.
  server.state.rate429 = 1;
  expectRun(await run(), 0, /License valid/);
  expect(server.state.served429).toBeGreaterThan(0);

  // Releasing the machine frees the seat and forgets the key.
  expectRun(await run(undefined, ["--deactivate"]), 0, /released/);
  expect(await bound(key, fingerprint)).toBe(false);
  expect(stateFile()).toBeUndefined();

  // Refusals, from real licenses in each state.
  const full = await license(1);
  await activateMachine({ license_key: full.key, machine_fingerprint: randomFingerprint(), plugin_id: appId });
  expectRun(await run(full.key), 1, /already active on 1 of 1 machines/);
  const trial = await trialLicense(5);
  expectRun(await run(trial.key), 0, /Trial license: 5 day\(s\) left/);
  expectRun(await run(), 0, /Trial license: 5 day\(s\) left/);
  forget();
  const revoked = await license(1);
  await setLicenseStatus({ licenseId: revoked.id, active: false, reason: "test" });
  expectRun(await run(revoked.key), 1, /revoked/);
  const expired = await license(1, { expiresAt: new Date(Date.now() - DAY_MS) });
  expectRun(await run(expired.key), 1, /expired/);
  const otherProduct = await license(1, { productId: otherProductId });
  expectRun(await run(otherProduct.key), 1, /different product/);
  expectRun(await run("not-a-key"), 1, /does not look like a license key/);

  // Every licensing call was JSON for this product, with this machine's fingerprint.
  expect(new Set(server.state.calls.map((c) => c.body.machine_fingerprint))).toEqual(new Set([fingerprint]));
  expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
  const expected = expectedLinuxFingerprint();
  if (expected) expect(fingerprint).toBe(expected);
  for (const c of server.state.calls) {
    expect(c.contentType).toMatch(/^application\/json/);
    if (c.path !== "/deactivate") expect(c.body.plugin_id).toBe(appId);
  }
  // With no public key embedded there is nothing to verify a license file with, so none is fetched.
  expect(server.state.licenseFiles).toHaveLength(0);
}

/** Replaces a field line's value in an armoured file. */
function withField(file: string, name: string, value: (old: string) => string): string {
  return file.replace(new RegExp(`^${name}: (.*)$`, "m"), (_, old: string) => `${name}: ${value(old)}`);
}

/** One byte of the decoded value changed (not a base64 character, which could land in unused bits). */
function flipByte(b64: string, at: number): string {
  const bytes = Buffer.from(b64, "base64url");
  bytes[at % bytes.length]! ^= 0x01;
  return bytes.toString("base64url");
}

/**
 * A program built with the service's key: it fetches its license file from the service after a good validation,
 * runs offline on it, and refuses every license file below that is wrong in one way.
 */
async function exerciseSignedOffline(p: Program): Promise<void> {
  server.reset();
  const { run, stateFile, licenseFile } = programRunner(p, appId, root);
  const lic = await license(2);
  const KEY = lic.key;

  // Online: activated, validated, and this machine's license file fetched and stored exactly as served.
  expectRun(await run(KEY), 0, /License valid/);
  const fingerprint = server.state.calls[0]!.body.machine_fingerprint!;
  expect(server.state.licenseFiles.map((f) => [f.key, f.fingerprint, f.pluginId, f.status])).toEqual([[KEY, fingerprint, appId, 200]]);
  const served = server.state.licenseFiles[0]!.text;
  expect(served).toMatch(/^-----BEGIN LICENSE FILE-----\n/);
  expect(readFileSync(licenseFile, "utf8")).toBe(served);

  // Offline: the file carries the app for its lifetime, however old the cached validation is.
  const runsFor = (days: number) => new RegExp(`signed license file for up to ${days} more day`);
  server.state.down = true;
  expectRun(await run(), 0, runsFor(ttlDays));
  ageStateFile(stateFile()!, 20);
  expectRun(await run(), 0, runsFor(ttlDays));

  // Files the service signed, for this machine or deliberately for something else.
  const now = Date.now();
  const q = { key: KEY, fingerprint, plugin_id: appId };
  const signedAt = async (at: number, query = q) => (await issueLicenseFile(query, at)).text;
  const otherMachine = randomFingerprint();
  await activateMachine({ license_key: KEY, machine_fingerprint: otherMachine, plugin_id: appId });
  const otherKey = await license(1);
  await activateMachine({ license_key: otherKey.key, machine_fingerprint: fingerprint, plugin_id: appId });
  const otherProduct = await license(1, { productId: otherProductId });
  const otherPluginId = (await getDb().product.findUniqueOrThrow({ where: { id: otherProductId } })).pluginId;
  await activateMachine({ license_key: otherProduct.key, machine_fingerprint: fingerprint, plugin_id: otherPluginId });
  // The service's key-id, over a signature by a key the app does not know.
  const stranger = generateKeyPairSync("ed25519").privateKey;
  const payloadLine = /^payload: (.*)$/m.exec(served)![1]!;
  const forged = withField(served, "signature", () =>
    sign(null, Buffer.from(`ilm-license-file/1.${payloadLine}`, "ascii"), stranger).toString("base64url"),
  );
  const keyIdLine = /^key-id: (.*)$/m.exec(served)![1]!;

  const runs = runsFor(ttlDays);
  // What the file is, the file, whether the app runs on it, and what it says.
  const cases: Array<[string, string, boolean, RegExp]> = [
    ["the file as served", served, true, runs],
    ["the file with CRLF line ends", served.replace(/\n/g, "\r\n"), true, runs],
    ["a file 3 days from its end", await signedAt(now - (ttlDays - 3) * DAY_MS), true, runsFor(3)],
    ["a payload byte changed", withField(served, "payload", (v) => flipByte(v, 40)), false, /signature does not verify/],
    ["a signature byte changed", withField(served, "signature", (v) => flipByte(v, 10)), false, /signature does not verify/],
    ["the service's key-id, signed by another key", forged, false, /signature does not verify/],
    ["another machine's file", await signedAt(now, { ...q, fingerprint: otherMachine }), false, /another machine/],
    ["another license key's file", await signedAt(now, { ...q, key: otherKey.key }), false, /another license key/],
    ["another product's file", await signedAt(now, { key: otherProduct.key, fingerprint, plugin_id: otherPluginId }), false, /another product/],
    ["an expired file", await signedAt(now - (ttlDays + 1) * DAY_MS), false, /license file has expired/],
    ["a file issued in the future (clock set back)", await signedAt(now + 2 * DAY_MS), false, /clock/],
    ["an unknown key-id", withField(served, "key-id", () => keyIdLine.replace(/#.*$/, "#ed25519-unknown")), false, /unknown signing key/],
    ["another format", served.replace("format: ilm-license-file/1", "format: ilm-license-file/2"), false, /unsupported license file format/],
    ["a missing armour line", served.replace("-----END LICENSE FILE-----\n", ""), false, /malformed/],
    ["not a license file", "hello\n", false, /malformed/],
  ];
  for (const [what, file, allowed, says] of cases) {
    writeFileSync(licenseFile, file);
    const r = await run();
    expect(r.status, `${what}: ${r.out}`).toBe(allowed ? 0 : 1);
    expect(r.out, what).toMatch(/Could not reach the license server/);
    expect(r.out, what).toMatch(says);
  }

  // No file, no offline running: the unsigned cache is not enough once a key is embedded.
  rmSync(licenseFile);
  expectRun(await run(), 1, /no license file/);

  // Online again: validated, and a fresh file from the service stored.
  server.state.down = false;
  expectRun(await run(), 0, /License valid/);
  expect(readFileSync(licenseFile, "utf8")).toBe(server.state.licenseFiles.at(-1)!.text);

  // Revocation takes effect at the next online check: the file is deleted, so offline running ends too.
  await setLicenseStatus({ licenseId: lic.id, active: false, reason: "test" });
  expectRun(await run(), 1, /revoked/);
  expect(existsSync(licenseFile)).toBe(false);
  server.state.down = true;
  expect((await run()).status).toBe(1);
  server.state.down = false;
  await setLicenseStatus({ licenseId: lic.id, active: true });

  // Releasing the machine deletes the file as well.
  expectRun(await run(KEY), 0, /License valid/);
  expect(existsSync(licenseFile)).toBe(true);
  expectRun(await run(undefined, ["--deactivate"]), 0, /released/);
  expect(existsSync(licenseFile)).toBe(false);
  expect(stateFile()).toBeUndefined();

  // A trial's file ends with the trial.
  const trial = await trialLicense(5);
  expectRun(await run(trial.key), 0, /Trial license: 5 day\(s\) left/);
  server.state.down = true;
  expectRun(await run(), 0, runsFor(5));
  server.state.down = false;

  // Every fetch named this product and this machine, and only files that verify were ever stored.
  for (const f of server.state.licenseFiles) expect([f.fingerprint, f.pluginId]).toEqual([fingerprint, appId]);
}

/** Runs the setup step's command (curl | python3) against the service's DID document; returns key-id → key. */
async function keysFromSetupCommand(markdown: string): Promise<Record<string, string>> {
  const command = /```sh\n\s*(curl [^\n]+\/\.well-known\/did\.json[^\n]+)\n/.exec(markdown)?.[1];
  expect(command).toBeDefined();
  // Asynchronous: the service answers from this process's event loop.
  const r = await new Promise<Run>((resolve, reject) => {
    const child = spawn("bash", ["-c", command!], { stdio: ["ignore", "pipe", "pipe"], timeout: 30_000 });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, out }));
  });
  expect(r.status, r.out).toBe(0);
  const keys = Object.fromEntries(
    r.out
      .trim()
      .split("\n")
      .map((line) => line.split(" ") as [string, string]),
  );
  expect(Object.keys(keys).length).toBeGreaterThan(0);
  for (const [keyId, key] of Object.entries(keys)) {
    expect(keyId).toMatch(/^did:web:.+#.+$/);
    expect(Buffer.from(key, "base64url")).toHaveLength(32);
  }
  return keys;
}

/** key-id → base64url raw key from the service's DID document ("z" + base58btc(0xed 0x01 ‖ key)). */
async function keysFromDidDocument(): Promise<Record<string, string>> {
  const doc = (await (await fetch(`${server.url}/.well-known/did.json`)).json()) as {
    verificationMethod: Array<{ id: string; publicKeyMultibase: string }>;
  };
  return didDocumentKeysBase64url(doc);
}

const BUILD = 300_000;
const needs = (what: string) => ` (needs ${what})`;

describe.skipIf(!tools.machineId)("generated integration code against the service" + (tools.machineId ? "" : needs("/etc/machine-id")), () => {
  it.skipIf(!tools.curl || !tools.python)(
    "the setup command prints the service's public keys from its DID document" + needs("curl, bash, python3"),
    async () => {
      serviceKeys = await keysFromSetupCommand(generate("python").markdown);
      expect(serviceKeys).toEqual(await keysFromDidDocument());
    },
    60_000,
  );

  /** The service's keys: as the setup command printed them, or (without curl) read from its DID document here. */
  const withKeys = async () => (serviceKeys ??= await keysFromDidDocument());

  describe.skipIf(!tools.python)("Python" + needs("python3"), () => {
    it(
      "compiles and runs the protocol",
      async () => {
        const { dir, files } = generate("python");
        for (const [path, lang] of files) if (lang === "python") mustRun("python3", ["-m", "py_compile", join(dir, path)]);
        await exerciseProtocol({ cmd: "python3", args: ["license_check.py", "--app-version", APP_VERSION], cwd: dir }, APP_VERSION);
      },
      BUILD,
    );

    it.skipIf(!tools.pyflakes)("passes pyflakes" + needs("python3-pyflakes"), () => {
      const { dir, files } = generate("python");
      mustRun(SYSTEM_PYTHON, ["-m", "pyflakes", ...[...files.keys()].map((p) => join(dir, p))]);
    });

    it(
      "verifies the service's license files offline with the pure-Python Ed25519 verifier",
      async () => {
        const { dir } = generate("python", await withKeys());
        // A `cryptography` that cannot be imported: the generated code uses its own RFC 8032 verifier.
        const env = withoutCryptography(dir);
        await exerciseSignedOffline({ cmd: "python3", args: ["license_check.py"], cwd: dir, env });
      },
      BUILD,
    );

    it.skipIf(!tools.pythonCryptography)(
      "verifies the service's license files offline with cryptography" + needs("python3-cryptography"),
      async () => {
        const { dir } = generate("python", await withKeys());
        expect(mustRun(SYSTEM_PYTHON, ["-c", "import license_check; print(license_check.ed25519_backend())"], { cwd: dir }).trim()).toBe(
          "cryptography",
        );
        await exerciseSignedOffline({ cmd: SYSTEM_PYTHON, args: ["license_check.py"], cwd: dir });
      },
      BUILD,
    );
  });

  describe.skipIf(!tools.gcc)("C" + needs("gcc, libcurl4-openssl-dev, libssl-dev"), () => {
    const build = (dir: string) => {
      mustRun("gcc", ["-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "license.c", "license_file.c"], { cwd: dir });
      const version = `-DAPP_VERSION=${JSON.stringify(APP_VERSION)}`; // a C string literal
      mustRun("gcc", ["-std=c99", "-O1", version, "main.c", "license.c", "license_file.c", "-lcurl", "-lcrypto", "-o", "app"], { cwd: dir });
      return { cmd: join(dir, "app"), args: [], cwd: dir };
    };
    it(
      "compiles with -Wall -Wextra -Werror and runs the protocol",
      async () => {
        await exerciseProtocol(build(generate("c").dir), APP_VERSION);
      },
      BUILD,
    );
    it(
      "verifies the service's license files offline (shared license_file.c, OpenSSL Ed25519)",
      async () => {
        await exerciseSignedOffline(build(generate("c", await withKeys()).dir));
      },
      BUILD,
    );
  });

  describe.skipIf(!tools.gxx)("C++" + needs("g++, libcurl4-openssl-dev, libssl-dev"), () => {
    const build = (dir: string) => {
      mustRun("g++", ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "license_client.cpp", "main.cpp"], { cwd: dir });
      mustRun("gcc", ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", "-c", "license_file.c"], { cwd: dir });
      const version = `-DAPP_VERSION=${JSON.stringify(APP_VERSION)}`; // a C++ string literal
      mustRun("g++", ["-std=c++17", "-O1", version, "main.cpp", "license_client.cpp", "license_file.o", "-lcurl", "-lcrypto", "-o", "app"], {
        cwd: dir,
      });
      return { cmd: join(dir, "app"), args: [], cwd: dir };
    };
    it(
      "compiles with -Wall -Wextra -Werror and runs the protocol",
      async () => {
        await exerciseProtocol(build(generate("cpp").dir), APP_VERSION);
      },
      BUILD,
    );
    it(
      "verifies the service's license files offline (shared license_file.c, OpenSSL Ed25519)",
      async () => {
        await exerciseSignedOffline(build(generate("cpp", await withKeys()).dir));
      },
      BUILD,
    );
  });

  describe("Electron", () => {
    const build = (dir: string) => {
      for (const f of ["license.js", "main.js"]) mustRun(process.execPath, ["--check", f], { cwd: dir });
      writeElectronCli(dir, appId, APP_VERSION);
      return { cmd: process.execPath, args: ["cli.js"], cwd: dir };
    };
    it(
      "passes node --check and its license module runs the protocol under Node",
      async () => {
        await exerciseProtocol(build(generate("electron").dir), APP_VERSION);
      },
      BUILD,
    );
    it(
      "verifies the service's license files offline under Node",
      async () => {
        await exerciseSignedOffline(build(generate("electron", await withKeys()).dir));
      },
      BUILD,
    );
  });

  describe.skipIf(!tools.cargo)("Rust" + needs("cargo and Debian's librust-{ureq,sha2,serde-json,serde-derive,ring}-dev"), () => {
    it("builds with -D warnings (offline, Debian's crates) and runs the protocol", async () => {
      const { dir } = generate("rust");
      await exerciseProtocol({ cmd: buildRust(dir, RUST_APP_VERSION), args: [], cwd: dir }, RUST_APP_VERSION);
    }, 660_000);
    it("verifies the service's license files offline (ring, Ed25519)", async () => {
      const { dir } = generate("rust", await withKeys());
      await exerciseSignedOffline({ cmd: buildRust(dir), args: [], cwd: dir });
    }, 660_000);
  });

  describe("Tauri", () => {
    it("its front-end JavaScript passes node --check, and its Rust module is the Rust integration's (built and run above)", () => {
      const { dir, files } = generate("tauri");
      for (const [path, lang] of files) {
        if (lang !== "javascript") continue;
        const asModule = join(dir, path.replace(/\.js$/, ".mjs")); // ES module syntax (import/export)
        writeFileSync(asModule, readFileSync(join(dir, path)));
        mustRun(process.execPath, ["--check", asModule]);
      }
      const rust = generate("rust");
      expect(readFileSync(join(dir, "src-tauri/src/license.rs"), "utf8")).toBe(readFileSync(join(rust.dir, "src/license.rs"), "utf8"));
    });
  });

  describe.skipIf(!tools.juce)("JUCE" + needs("g++, juce-modules-source-data, libcurl4-openssl-dev, libssl-dev, zlib1g-dev"), () => {
    it("compiles against JUCE's module headers (-Wall -Wextra), LicenseGate included, with and without keys", async () => {
      for (const keys of [undefined, await withKeys()]) {
        const { dir } = generate("juce", keys);
        writeFileSync(join(dir, "Source/check.cpp"), '#include "LicenseManager.cpp"\n#include "LicenseGate.h"\n');
        mustRun(
          "g++",
          [
            "-std=c++17",
            "-fsyntax-only",
            "-Wall",
            "-Wextra",
            "-I/usr/share/juce/modules",
            "-DJUCE_GLOBAL_MODULE_SETTINGS_INCLUDED=1",
            "-DJUCE_STANDALONE_APPLICATION=1",
            "Source/check.cpp",
          ],
          { cwd: dir },
        );
      }
    }, 120_000);
    it(
      "LicenseManager links against JUCE's modules and runs the protocol",
      async () => {
        const { dir } = generate("juce");
        await exerciseProtocol({ cmd: await buildJuceCli(dir, root, APP_VERSION), args: [], cwd: dir, stateInHome: true }, APP_VERSION);
      },
      BUILD,
    );
    it(
      "LicenseManager verifies the service's license files offline (shared license_file.c, OpenSSL Ed25519)",
      async () => {
        const { dir } = generate("juce", await withKeys());
        await exerciseSignedOffline({ cmd: await buildJuceCli(dir, root, APP_VERSION), args: [], cwd: dir, stateInHome: true });
      },
      BUILD,
    );
  });

  describe("C#", () => {
    it.skipIf(!tools.dotnet)(
      "builds" + needs("the .NET 8 SDK (dotnet); Mono's mcs cannot compile C# 10 and Debian has no .NET SDK"),
      async () => {
        const { dir } = generate("csharp", await withKeys());
        writeFileSync(
          join(dir, "app.csproj"),
          '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputType>Exe</OutputType><TargetFramework>net8.0</TargetFramework><Nullable>enable</Nullable><ImplicitUsings>enable</ImplicitUsings></PropertyGroup><ItemGroup><PackageReference Include="BouncyCastle.Cryptography" Version="2.*" /></ItemGroup></Project>',
        );
        mustRun("dotnet", ["build", "-warnaserror"], { cwd: dir, timeout: 300_000 });
      },
      300_000,
    );
  });
});
