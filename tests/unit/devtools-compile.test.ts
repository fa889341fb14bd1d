/**
 * The generated integration code compiles, and where it can run here it behaves: each program is built from the
 * Markdown's fenced blocks and run against a stand-in licensing server on 127.0.0.1 through activation, validation,
 * the offline grace period, 429 with Retry-After, every refusal code and deactivation. Built a second time with
 * Ed25519 public keys embedded, each program fetches its signed offline license file from the stand-in server and
 * runs offline on it, and refuses license files that a separate signer in this file made wrong on purpose (changed
 * payload or signature bytes, another machine, product or key, expired, issued in the future, unknown key-id).
 *
 * A check runs only when its toolchain is on this machine (a plain `if`): python3 (with the `cryptography` package
 * when importable, and again with it blocked, for the pure-Python verifier); gcc/g++ with libcurl and OpenSSL headers
 * (Debian libcurl4-openssl-dev, libssl-dev); node; cargo with Debian's vendored crates in /usr/share/cargo/registry
 * (librust-ureq-dev, librust-sha2-dev, librust-serde-json-dev, librust-serde-derive-dev, librust-ring-dev); JUCE's
 * module sources in /usr/share/juce/modules (juce-modules-source-data), from which juce_core, juce_events,
 * juce_data_structures and juce_cryptography are compiled once (about 10 s) to link a command-line driver of the
 * generated LicenseManager.cpp; its LicenseGate.h (juce_gui_basics) is only compiled. C# has no compiler here.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
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

function generate(
  language: IntegrationLanguage,
  serverUrl = "http://127.0.0.1:9",
  publicKeys?: Record<string, string>,
): { dir: string; files: Map<string, string>; markdown: string } {
  const dir = mkdtempSync(join(root, `${language}-`));
  const markdown = generateLicenseIntegration({ language, app_id: APP_ID, server_url: serverUrl, public_keys: publicKeys });
  const files = extract(markdown, dir);
  expect(files.size).toBeGreaterThan(0);
  return { dir, files, markdown };
}

// ------------------------------------------------------------------ a separate license file signer

/**
 * Signed offline license files, written here again from the format's description rather than imported from
 * lib/verifiable, so the generated verifiers are checked against an independent implementation.
 */
const FILE_FORMAT = "ilm-license-file/1";
const DAY_MS = 86_400_000;

interface TestSigner {
  keyId: string;
  privateKey: KeyObject;
  /** base64url of the raw 32-byte public key. */
  raw: string;
}

function makeSigner(keyId: string): TestSigner {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "jwk" }).x!;
  expect(Buffer.from(raw, "base64url")).toHaveLength(32);
  return { keyId, privateKey, raw };
}

interface PayloadFacts {
  key: string;
  fingerprint: string;
  pluginId?: string;
  keyId?: string;
  issuedAt?: number;
  expiresAt?: number;
  licenseExpiresAt?: number | null;
  trial?: boolean;
}

/** A payload with its members in RFC 8785 order (sorted keys, no white space), as the service signs it. */
function licensePayload(signer: TestSigner, f: PayloadFacts): string {
  const now = Date.now();
  const iso = (ms: number) => new Date(ms).toISOString();
  const issuer = signer.keyId.split("#")[0]!;
  return JSON.stringify({
    expires_at: iso(f.expiresAt ?? now + 30 * DAY_MS),
    format: FILE_FORMAT,
    issued_at: iso(f.issuedAt ?? now),
    issuer,
    key_id: f.keyId ?? signer.keyId,
    license: {
      expires_at: f.licenseExpiresAt == null ? null : iso(f.licenseExpiresAt),
      key: f.key,
      max_machines: 2,
      plugin_id: f.pluginId ?? APP_ID,
      product_id: "prod_7Qm2",
      product_name: "Acme Synth — Pro ✓ \"quoted\"",
      trial: Boolean(f.trial),
    },
    machine: { activated_at: iso(now - DAY_MS), fingerprint: f.fingerprint },
  });
}

function armourFile(keyIdLine: string, payloadB64: string, signatureB64: string): string {
  return ["-----BEGIN LICENSE FILE-----", `format: ${FILE_FORMAT}`, `key-id: ${keyIdLine}`, `payload: ${payloadB64}`, `signature: ${signatureB64}`, "-----END LICENSE FILE-----", ""].join("\n");
}

/** Signs a payload: Ed25519 over the ASCII bytes "ilm-license-file/1." + the payload line's value. */
function signLicenseFile(signer: TestSigner, payloadJson: string, keyIdLine = signer.keyId): string {
  const payloadB64 = Buffer.from(payloadJson, "utf8").toString("base64url");
  const signature = sign(null, Buffer.from(`${FILE_FORMAT}.${payloadB64}`, "ascii"), signer.privateKey).toString("base64url");
  return armourFile(keyIdLine, payloadB64, signature);
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

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
function base58(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString("hex")}`);
  let out = "";
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
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
  /** Keys revoked while a test runs. */
  readonly revoked = new Set<string>();
  /** Signs the license files GET /api/license-file serves; none served without it. */
  signer?: TestSigner;
  /** Published in /.well-known/did.json. */
  didKeys: TestSigner[] = [];
  /** Serves this instead of a good license file. */
  licenseFileOverride?: () => string;
  readonly licenseFileRequests: Array<{ key: string; fingerprint: string; pluginId: string | null; status: number }> = [];
  lastLicenseFile = "";
  private server?: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let text = "";
      req.on("data", (c: Buffer) => (text += c.toString("utf8")));
      req.on("end", () => {
        const { pathname, searchParams } = new URL(req.url ?? "/", "http://127.0.0.1");
        if (req.method === "GET" && !this.down) this.get(pathname, searchParams, res);
        else this.handle(req.url ?? "", String(req.headers["content-type"] ?? ""), text, req.socket, res);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** GET /api/license-file (as lib/verifiable/license-file.ts answers) and GET /.well-known/did.json. */
  private get(pathname: string, q: URLSearchParams, res: import("node:http").ServerResponse): void {
    const problem = (status: number, code: string) => {
      res.writeHead(status, { "Content-Type": "application/problem+json" });
      res.end(JSON.stringify({ type: "about:blank", status, code, detail: code }));
      return status;
    };
    if (pathname === "/.well-known/did.json") {
      const did = this.didKeys[0]?.keyId.split("#")[0] ?? "did:web:127.0.0.1";
      res.writeHead(200, { "Content-Type": "application/did+json" });
      res.end(JSON.stringify({
        "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"],
        id: did,
        verificationMethod: this.didKeys.map((k) => ({ id: k.keyId, type: "Multikey", controller: did, publicKeyMultibase: `z${base58(Buffer.concat([Buffer.from([0xed, 0x01]), Buffer.from(k.raw, "base64url")]))}` })),
      }));
      return;
    }
    if (pathname !== "/api/license-file") {
      problem(404, "not_found");
      return;
    }
    const key = q.get("key") ?? "";
    const fingerprint = q.get("fingerprint") ?? "";
    const pluginId = q.get("plugin_id");
    const k = KEYS[key];
    let status: number;
    if (!k || (pluginId !== null && pluginId !== APP_ID)) status = problem(404, "license_not_found");
    else if (k.revoked || this.revoked.has(key)) status = problem(409, "license_revoked");
    else if (k.expired) status = problem(409, "license_expired");
    else if (!this.machines.get(key)?.has(fingerprint)) status = problem(409, "machine_not_activated");
    else if (!this.signer) status = problem(404, "not_found");
    else {
      const trialEnd = k.trial ? Date.now() + 5 * DAY_MS - 60_000 : null;
      this.lastLicenseFile =
        this.licenseFileOverride?.() ??
        signLicenseFile(this.signer, licensePayload(this.signer, { key, fingerprint, trial: k.trial, licenseExpiresAt: trialEnd, expiresAt: trialEnd ?? undefined }));
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "Content-Disposition": 'attachment; filename="license.lic"' });
      res.end(this.lastLicenseFile);
      status = 200;
    }
    this.licenseFileRequests.push({ key, fingerprint, pluginId, status });
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
    const revoked = k?.revoked || this.revoked.has(b.license_key!);
    const standing = !k ? "NOT_FOUND" : b.plugin_id !== undefined && b.plugin_id !== APP_ID ? "PRODUCT_MISMATCH" : revoked ? "REVOKED" : k.expired ? "EXPIRED" : "VALID";
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

interface Run {
  status: number | null;
  out: string;
}

/**
 * A generated command-line program, run with its state under a fresh XDG_CONFIG_HOME: it exits 0 when the app may
 * run, takes a key from LICENSE_KEY and releases the machine with --deactivate.
 */
function programRunner(cmd: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}) {
  const config = mkdtempSync(join(root, "config-"));
  const stateDir = join(config, APP_ID);
  // JUCE's PropertiesFile keeps its folder in $HOME on Linux: HOME=@config puts it where the others keep theirs.
  if (extraEnv.HOME === "@config") extraEnv = { ...extraEnv, HOME: config };
  // Asynchronous: the stand-in server answers from this process's event loop.
  const run = (key?: string, extra: string[] = []) =>
    new Promise<Run>((resolve, reject) => {
      const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, XDG_CONFIG_HOME: config };
      delete env.LICENSE_KEY;
      if (key !== undefined) env.LICENSE_KEY = key;
      const child = spawn(cmd, [...args, ...extra], { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
      child.stderr.on("data", (c: Buffer) => (out += c.toString("utf8")));
      child.on("error", reject);
      child.on("close", (status) => resolve({ status, out }));
    });
  /** The cached state (license.json, license.state or JUCE's <app id>.license), not the license file. */
  const stateFile = () =>
    existsSync(stateDir)
      ? readdirSync(stateDir)
          .filter((f) => (f.startsWith("license") || f.endsWith(".license")) && !f.endsWith(".lic") && !f.includes("tmp") && !f.includes("_temp"))
          .map((f) => join(stateDir, f))[0]
      : undefined;
  const licenseFile = join(stateDir, "license.lic");
  return { run, stateDir, stateFile, licenseFile };
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

/** Runs a generated program (built without public keys) through the whole protocol against the stand-in server. */
async function exerciseProtocol(mock: MockLicenseServer, cmd: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}): Promise<void> {
  const { run, stateDir, stateFile } = programRunner(cmd, args, cwd, extraEnv);

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
  ageStateFile(stateFile()!, 8);
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
  // With no public key embedded there is nothing to verify a license file with, so none is fetched.
  expect(mock.licenseFileRequests).toHaveLength(0);
  expect(existsSync(join(stateDir, "license.lic"))).toBe(false);
}

/** Two embedded keys (the current one and a rotated-in one) and one the app does not know. */
const signerA = makeSigner("did:web:licenses.acme.test#ed25519-1");
const signerB = makeSigner("did:web:licenses.acme.test#ed25519-2");
const signerUnknown = makeSigner("did:web:licenses.acme.test#ed25519-9");
const EMBEDDED_KEYS = { [signerA.keyId]: signerA.raw, [signerB.keyId]: signerB.raw };

/**
 * Runs a generated program built with EMBEDDED_KEYS: it fetches its license file after a good validation, runs
 * offline on it, and refuses every license file below that is wrong in one way.
 */
async function exerciseSignedOffline(mock: MockLicenseServer, cmd: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}): Promise<void> {
  const { run, stateFile, licenseFile } = programRunner(cmd, args, cwd, extraEnv);
  const KEY = "AAAA-BBBB-CCCC-DDDD";
  mock.signer = signerA;

  // Online: activated, validated, and this machine's license file fetched and stored exactly as served.
  expectRun(await run(KEY), 0, /License valid/);
  expect(mock.licenseFileRequests.map((r) => r.status)).toEqual([200]);
  const fingerprint = mock.requests[0]!.body.machine_fingerprint!;
  expect(mock.licenseFileRequests[0]).toMatchObject({ key: KEY, fingerprint, pluginId: APP_ID });
  expect(readFileSync(licenseFile, "utf8")).toBe(mock.lastLicenseFile);

  // Offline: the file carries the app for its 30 days, however old the cached validation is.
  mock.down = true;
  expectRun(await run(), 0, /signed license file for up to 30 more day/);
  ageStateFile(stateFile()!, 20);
  expectRun(await run(), 0, /signed license file for up to 30 more day/);

  const now = Date.now();
  const facts: PayloadFacts = { key: KEY, fingerprint };
  const good = signLicenseFile(signerA, licensePayload(signerA, facts));
  const otherFingerprint = createHash("sha256").update("another machine").digest("hex");
  const runs = /signed license file for up to 30 more day/;
  // What the file is, the file, whether the app runs on it, and what it says.
  const cases: Array<[string, string, boolean, RegExp]> = [
    ["a valid file", good, true, runs],
    ["a valid file with CRLF line ends", good.replace(/\n/g, "\r\n"), true, runs],
    ["a valid file signed by the second embedded key (rotation)", signLicenseFile(signerB, licensePayload(signerB, facts)), true, runs],
    ["a valid file 3 days from its end", signLicenseFile(signerA, licensePayload(signerA, { ...facts, issuedAt: now - 27 * DAY_MS, expiresAt: now + 3 * DAY_MS - 60_000 })), true, /signed license file for up to 3 more day/],
    ["a payload byte changed", withField(good, "payload", (p) => flipByte(p, 40)), false, /signature does not verify/],
    ["a signature byte changed", withField(good, "signature", (sig) => flipByte(sig, 10)), false, /signature does not verify/],
    ["another machine's fingerprint", signLicenseFile(signerA, licensePayload(signerA, { ...facts, fingerprint: otherFingerprint })), false, /another machine/],
    ["another plugin_id", signLicenseFile(signerA, licensePayload(signerA, { ...facts, pluginId: "com.acme.other" })), false, /another product/],
    ["another license key", signLicenseFile(signerA, licensePayload(signerA, { ...facts, key: "ZZZZ-BBBB-CCCC-DDDD" })), false, /another license key/],
    ["an expired file", signLicenseFile(signerA, licensePayload(signerA, { ...facts, issuedAt: now - 31 * DAY_MS, expiresAt: now - 60_000 })), false, /license file has expired/],
    ["a file whose license has ended", signLicenseFile(signerA, licensePayload(signerA, { ...facts, licenseExpiresAt: now - 60_000 })), false, /license file has expired/],
    ["a file issued in the future (clock set back)", signLicenseFile(signerA, licensePayload(signerA, { ...facts, issuedAt: now + 2 * DAY_MS, expiresAt: now + 32 * DAY_MS })), false, /clock/],
    ["an unknown key-id", signLicenseFile(signerUnknown, licensePayload(signerUnknown, facts)), false, /unknown signing key/],
    ["a known key-id, signed by another key", signLicenseFile(signerUnknown, licensePayload(signerA, facts), signerA.keyId), false, /signature does not verify/],
    ["a key-id line that differs from the payload's", signLicenseFile(signerB, licensePayload(signerB, { ...facts, keyId: signerA.keyId })), false, /key-id/],
    ["another format", good.replace(`format: ${FILE_FORMAT}`, "format: ilm-license-file/2"), false, /unsupported license file format/],
    ["a missing armour line", good.replace("-----END LICENSE FILE-----\n", ""), false, /malformed/],
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

  // Online again with a clock an hour slow: the file just issued is stored all the same, and offline it counts
  // from its issued_at.
  mock.down = false;
  mock.licenseFileOverride = () =>
    signLicenseFile(signerA, licensePayload(signerA, { ...facts, issuedAt: Date.now() + 3_600_000, expiresAt: Date.now() + 30 * DAY_MS }));
  expectRun(await run(), 0, /License valid/);
  expect(readFileSync(licenseFile, "utf8")).toBe(mock.lastLicenseFile);
  mock.down = true;
  expectRun(await run(), 1, /clock is set before the license file was issued/);
  mock.down = false;
  mock.licenseFileOverride = undefined;

  // Online again: validated, and a fresh file stored.
  expectRun(await run(), 0, /License valid/);
  const stored = readFileSync(licenseFile, "utf8");
  expect(stored).toBe(mock.lastLicenseFile);

  // A file from the server that does not verify is not stored; the previous one stays.
  mock.licenseFileOverride = () => signLicenseFile(signerUnknown, licensePayload(signerUnknown, facts));
  expectRun(await run(), 0, /License valid/);
  expect(mock.lastLicenseFile).not.toBe(stored);
  expect(readFileSync(licenseFile, "utf8")).toBe(stored);
  mock.licenseFileOverride = undefined;

  // Revocation takes effect at the next online check: the file is deleted, so offline running ends too.
  mock.revoked.add(KEY);
  expectRun(await run(), 1, /revoked/);
  expect(existsSync(licenseFile)).toBe(false);
  mock.down = true;
  expect((await run()).status).toBe(1);
  mock.down = false;
  mock.revoked.delete(KEY);

  // Releasing the machine deletes the file as well.
  expectRun(await run(KEY), 0, /License valid/);
  expect(existsSync(licenseFile)).toBe(true);
  expectRun(await run(undefined, ["--deactivate"]), 0, /released/);
  expect(existsSync(licenseFile)).toBe(false);
  expect(stateFile()).toBeUndefined();

  // A trial's file ends with the trial.
  expectRun(await run("TR1A-L000-0000-0001"), 0, /Trial license: 5 day\(s\) left/);
  mock.down = true;
  expectRun(await run(), 0, /signed license file for up to 5 more day/);
  mock.down = false;

  // Every fetch named this product and this machine.
  for (const r of mock.licenseFileRequests) expect(r).toMatchObject({ fingerprint, pluginId: APP_ID });
}

// ------------------------------------------------------------------ the checks

/** Whether gcc finds lib<name>.so to link with. */
function linkable(name: string): boolean {
  const r = spawnSync("gcc", [`-print-file-name=lib${name}.so`], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() !== `lib${name}.so`;
}

const tools = {
  python: has("python3"),
  gcc: has("gcc"),
  gxx: has("g++"),
  node: has(process.execPath),
  // ring: 0.16 in Debian bookworm; the generated Cargo.toml accepts 0.16 and 0.17.
  cargo:
    has("cargo") &&
    existsSync("/usr/share/cargo/registry") &&
    [["ureq-2"], ["sha2-0.10"], ["serde_json-1"], ["serde_derive-1"], ["ring-0.16", "ring-0.17"]].every((alternatives) =>
      readdirSync("/usr/share/cargo/registry").some((d) => alternatives.some((c) => d.startsWith(`${c}.`))),
    ),
  juce: has("g++") && existsSync("/usr/share/juce/modules/juce_core/juce_core.h"),
  // Linking JUCE's modules also needs zlib (Debian zlib1g-dev), besides libcurl and libcrypto.
  juceLink: has("g++") && existsSync("/usr/share/juce/modules/juce_core/juce_core.h") && ["curl", "crypto", "z"].every(linkable),
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
    mock.revoked.clear();
    mock.signer = undefined;
    mock.licenseFileOverride = undefined;
    mock.licenseFileRequests.length = 0;
    mock.lastLicenseFile = "";
    mock.didKeys = [];
  };

  it("Python compiles (py_compile) and runs the protocol", async () => {
    if (!tools.python) return;
    reset();
    const { dir, files } = generate("python", mock.url);
    for (const [path, lang] of files) if (lang === "python") mustRun("python3", ["-m", "py_compile", join(dir, path)]);
    if (canIdentifyMachine) await exerciseProtocol(mock, "python3", ["license_check.py"], dir);
  }, 120_000);

  it("the setup command prints the raw public keys of the stand-in server's DID document", async () => {
    if (!tools.python || !has("curl") || !has("bash")) return;
    mock.didKeys = [signerA, signerB];
    const { markdown } = generate("python", mock.url);
    const command = /```sh\n\s*(curl [^\n]+\/\.well-known\/did\.json[^\n]+)\n/.exec(markdown)?.[1];
    expect(command).toBeDefined();
    // Asynchronous: the stand-in server answers from this process's event loop.
    const r = await new Promise<Run>((resolve, reject) => {
      const child = spawn("bash", ["-c", command!], { stdio: ["ignore", "pipe", "pipe"], timeout: 30_000 });
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
      child.stderr.on("data", (c: Buffer) => (out += c.toString("utf8")));
      child.on("error", reject);
      child.on("close", (status) => resolve({ status, out }));
    });
    expect(r.status, r.out).toBe(0);
    expect(r.out.trim()).toBe(`${signerA.keyId} ${signerA.raw}\n${signerB.keyId} ${signerB.raw}`);
  }, 60_000);

  it("Python verifies signed license files offline (cryptography when importable, and the pure-Python verifier)", async () => {
    if (!tools.python || !canIdentifyMachine) return;
    const { dir } = generate("python", mock.url, EMBEDDED_KEYS);
    // A `cryptography` that cannot be imported, to make the generated code use its own RFC 8032 verifier.
    const blocked = join(dir, "no-cryptography");
    mkdirSync(join(blocked, "cryptography"), { recursive: true });
    writeFileSync(join(blocked, "cryptography/__init__.py"), 'raise ImportError("blocked for this test")\n');
    const backend = (env: Record<string, string>) =>
      mustRun("python3", ["-c", "import license_check; print(license_check.ed25519_backend())"], { cwd: dir, env: { ...process.env, ...env } }).trim();
    const pure = { PYTHONPATH: blocked };
    expect(backend(pure)).toBe("pure-python");
    // RFC 8032 section 7.1, tests 1 and 2, through the pure-Python verifier; then a changed message and signature.
    const vectors = `
import license_check as l
v = [("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "", "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
     ("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72", "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")]
for pk, msg, sig in v:
    pk, msg, sig = bytes.fromhex(pk), bytes.fromhex(msg), bytes.fromhex(sig)
    assert l._ed25519_verify_pure(pk, msg, sig)
    assert not l._ed25519_verify_pure(pk, msg + b"x", sig)
    assert not l._ed25519_verify_pure(pk, msg, sig[:63] + bytes([sig[63] ^ 1]))
print("ok")
`;
    expect(mustRun("python3", ["-c", vectors], { cwd: dir, env: { ...process.env, ...pure } }).trim()).toBe("ok");
    const variants: Array<Record<string, string>> = [pure];
    if (backend({}) === "cryptography") variants.push({});
    for (const env of variants) {
      reset();
      await exerciseSignedOffline(mock, "python3", ["license_check.py"], dir, env);
    }
  }, 180_000);

  it("C compiles (gcc -fsyntax-only, then linked with libcurl and libcrypto) and runs the protocol", async () => {
    if (!tools.gcc) return;
    reset();
    const { dir } = generate("c", mock.url);
    for (const f of ["license.c", "main.c"]) mustRun("gcc", ["-std=c99", "-Wall", "-Wextra", "-fsyntax-only", f], { cwd: dir });
    mustRun("gcc", ["-std=c99", "-O1", "main.c", "license.c", "-lcurl", "-lcrypto", "-o", "app"], { cwd: dir });
    if (canIdentifyMachine) await exerciseProtocol(mock, join(dir, "app"), [], dir);
  }, 120_000);

  it("C verifies signed license files offline (OpenSSL EVP_DigestVerify, Ed25519)", async () => {
    if (!tools.gcc || !canIdentifyMachine) return;
    reset();
    const { dir } = generate("c", mock.url, EMBEDDED_KEYS);
    mustRun("gcc", ["-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "license.c"], { cwd: dir });
    mustRun("gcc", ["-std=c99", "-O1", "main.c", "license.c", "-lcurl", "-lcrypto", "-o", "app"], { cwd: dir });
    await exerciseSignedOffline(mock, join(dir, "app"), [], dir);
  }, 120_000);

  it("C++ compiles (g++ -std=c++17 -fsyntax-only, then linked) and runs the protocol", async () => {
    if (!tools.gxx) return;
    reset();
    const { dir } = generate("cpp", mock.url);
    for (const f of ["license_client.cpp", "main.cpp"]) mustRun("g++", ["-std=c++17", "-Wall", "-Wextra", "-fsyntax-only", f], { cwd: dir });
    mustRun("g++", ["-std=c++17", "-O1", "main.cpp", "license_client.cpp", "-lcurl", "-lcrypto", "-o", "app"], { cwd: dir });
    if (canIdentifyMachine) await exerciseProtocol(mock, join(dir, "app"), [], dir);
  }, 180_000);

  it("C++ verifies signed license files offline (OpenSSL EVP_DigestVerify, Ed25519)", async () => {
    if (!tools.gxx || !canIdentifyMachine) return;
    reset();
    const { dir } = generate("cpp", mock.url, EMBEDDED_KEYS);
    mustRun("g++", ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "license_client.cpp"], { cwd: dir });
    mustRun("g++", ["-std=c++17", "-O1", "main.cpp", "license_client.cpp", "-lcurl", "-lcrypto", "-o", "app"], { cwd: dir });
    await exerciseSignedOffline(mock, join(dir, "app"), [], dir);
  }, 180_000);

  /** The license module is plain Node (no electron import): a command-line driver that uses it the way main.js does. */
  const writeElectronCli = (dir: string) =>
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

  it("Electron's main-process code passes node --check and its license module runs the protocol under Node", async () => {
    if (!tools.node) return;
    reset();
    const { dir } = generate("electron", mock.url);
    for (const f of ["license.js", "main.js"]) mustRun(process.execPath, ["--check", f], { cwd: dir });
    writeElectronCli(dir);
    if (canIdentifyMachine) await exerciseProtocol(mock, process.execPath, ["cli.js"], dir);
  }, 120_000);

  it("Electron's license module verifies signed license files offline under Node", async () => {
    if (!tools.node || !canIdentifyMachine) return;
    reset();
    const { dir } = generate("electron", mock.url, EMBEDDED_KEYS);
    mustRun(process.execPath, ["--check", "license.js"], { cwd: dir });
    writeElectronCli(dir);
    await exerciseSignedOffline(mock, process.execPath, ["cli.js"], dir);
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

  /** Builds the generated Rust program offline against Debian's vendored crates; returns the binary. */
  const buildRust = (dir: string): string => {
    const deps = readFileSync(join(dir, "Cargo.toml"), "utf8");
    writeFileSync(join(dir, "Cargo.toml"), `[package]\nname = "license-check"\nversion = "0.1.0"\nedition = "2021"\n\n${deps}`);
    mkdirSync(join(dir, ".cargo"));
    writeFileSync(
      join(dir, ".cargo/config.toml"),
      `[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "/usr/share/cargo/registry"\n\n[net]\noffline = true\n`,
    );
    const target = join(tmpdir(), "devtools-cargo-target"); // kept between runs: later builds take seconds
    mustRun("cargo", ["build", "--offline", "--quiet"], { cwd: dir, env: { ...process.env, CARGO_TARGET_DIR: target, RUSTFLAGS: "-D warnings" }, timeout: 600_000 });
    const binary = join(dir, "license-check");
    writeFileSync(binary, readFileSync(join(target, "debug", "license-check")), { mode: 0o755 }); // the next build overwrites the target's
    return binary;
  };

  it("Rust builds (cargo, offline, Debian's vendored crates) and runs the protocol", async () => {
    if (!tools.cargo) return;
    reset();
    const { dir } = generate("rust", mock.url);
    const binary = buildRust(dir);
    if (canIdentifyMachine) await exerciseProtocol(mock, binary, [], dir);
  }, 660_000);

  it("Rust verifies signed license files offline (ring, Ed25519)", async () => {
    if (!tools.cargo || !canIdentifyMachine) return;
    reset();
    const { dir } = generate("rust", mock.url, EMBEDDED_KEYS);
    const binary = buildRust(dir);
    await exerciseSignedOffline(mock, binary, [], dir);
  }, 660_000);

  it("JUCE compiles (g++ -std=c++17 -fsyntax-only against JUCE's module headers and OpenSSL's), with and without embedded keys", () => {
    if (!tools.juce) return;
    for (const keys of [undefined, EMBEDDED_KEYS]) {
    const { dir } = generate("juce", mock.url, keys);
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
    }
  }, 120_000);

  /** Module objects (juce_core, juce_events, juce_data_structures, juce_cryptography), compiled once for both JUCE builds. */
  const JUCE_FLAGS = [
    "-std=c++17",
    "-O0",
    "-w",
    "-I/usr/share/juce/modules",
    "-DJUCE_GLOBAL_MODULE_SETTINGS_INCLUDED=1",
    "-DJUCE_STANDALONE_APPLICATION=1",
    "-DJUCE_USE_CURL=1",
    "-DJUCE_LOAD_CURL_SYMBOLS_LAZILY=0",
    ...["juce_core", "juce_events", "juce_data_structures", "juce_cryptography"].map((m) => `-DJUCE_MODULE_AVAILABLE_${m}=1`),
  ];
  let juceObjects: Promise<string[]> | undefined;
  const buildJuceModules = () =>
    (juceObjects ??= (async () => {
      const dir = mkdtempSync(join(root, "juce-modules-"));
      const modules = ["juce_core", "juce_events", "juce_data_structures", "juce_cryptography"];
      await Promise.all(
        modules.map(
          (m) =>
            new Promise<void>((resolve, reject) => {
              const child = spawn("g++", [...JUCE_FLAGS, "-c", `/usr/share/juce/modules/${m}/${m}.cpp`, "-o", join(dir, `${m}.o`)], { stdio: ["ignore", "ignore", "pipe"] });
              let err = "";
              child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")));
              child.on("error", reject);
              child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`g++ ${m}.cpp failed:\n${err}`))));
            }),
        ),
      );
      return modules.map((m) => join(dir, `${m}.o`));
    })());

  /** Links the generated LicenseManager.cpp into a command-line driver that uses it the way LicenseGate does. */
  const buildJuceCli = async (dir: string): Promise<string> => {
    writeFileSync(
      join(dir, "Source/cli.cpp"),
      `#include "LicenseManager.h"
#include <cstdlib>
#include <cstring>
#include <iostream>
int main (int argc, char** argv)
{
    juce::ScopedJuceInitialiser_GUI juceInitialiser; // a MessageManager for PropertiesFile's change messages
    if (argc > 1 && std::strcmp (argv[1], "--deactivate") == 0)
    {
        const auto o = licensing::deactivateThisMachine();
        std::cout << o.message << std::endl;
        return o.status == licensing::Status::needsKey ? 0 : 1;
    }
    auto o = licensing::checkLicense();
    if (o.status == licensing::Status::needsKey && std::getenv ("LICENSE_KEY") != nullptr)
        o = licensing::activateLicense (std::getenv ("LICENSE_KEY"));
    std::cout << o.message << std::endl;
    return o.allowed() ? 0 : 1;
}
`,
    );
    const objects = await buildJuceModules();
    mustRun("g++", [...JUCE_FLAGS, "Source/cli.cpp", "Source/LicenseManager.cpp", ...objects, "-lcurl", "-lcrypto", "-lz", "-lpthread", "-ldl", "-o", "app"], { cwd: dir });
    return join(dir, "app");
  };

  it("JUCE's LicenseManager links against JUCE's modules and runs the protocol", async () => {
    if (!tools.juceLink || !canIdentifyMachine) return;
    reset();
    const { dir } = generate("juce", mock.url);
    await exerciseProtocol(mock, await buildJuceCli(dir), [], dir, { HOME: "@config" });
  }, 300_000);

  it("JUCE's LicenseManager verifies signed license files offline (OpenSSL EVP_DigestVerify, Ed25519)", async () => {
    if (!tools.juceLink || !canIdentifyMachine) return;
    reset();
    const { dir } = generate("juce", mock.url, EMBEDDED_KEYS);
    await exerciseSignedOffline(mock, await buildJuceCli(dir), [], dir, { HOME: "@config" });
  }, 300_000);
});
