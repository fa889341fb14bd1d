/**
 * The update check generate_license_integration adds to the Python and Node (Electron) code, run with the real
 * interpreters against the service itself (tests/helpers/licensing-server.ts: the lean licensing path and the real
 * route handlers of GET /api/updates/… and the local storage driver's signed /api/files/… links, BASE_URL pointing
 * there so the signed URLs come back to it). A seller publishes 1.0.0 and 1.1.0 with artifacts for two platforms
 * through the release code the dashboard uses; the app, activated with a real license, finds 1.1.0 from 1.0.0,
 * downloads it and verifies its size, SHA-256 and Ed25519 signature with the service's key embedded from did.json,
 * is told it is up to date on 1.1.0, refuses a download whose stored bytes (or bytes and recorded hash) were changed
 * without writing anything, and shows a revoked or refunded license's problem code.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLicenseIntegration, type IntegrationLanguage } from "@/lib/agents/devtools";
import { createProduct } from "@/lib/selling/products";
import { getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { issueLicense } from "@/lib/licensing/issue-license";
import { licenseCache } from "@/lib/licensing/license-state";
import { setLicenseStatus } from "@/lib/licensing/set-license-status";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { ingestArtifact } from "@/lib/releases/ingest";
import { createRelease, publishRelease } from "@/lib/releases/manage";
import { resetObjectStore } from "@/lib/storage";
import { didDocumentKeysBase64url } from "../helpers/did-keys";
import {
  extractFiles,
  mustRun,
  programRunner,
  SYSTEM_PYTHON,
  tools,
  writeElectronUpdateCli,
  type Program,
  type Run,
  withoutCryptography,
} from "../helpers/integration-programs";
import { startLicensingServer, type LicensingServer } from "../helpers/licensing-server";
import { sellingDeveloper } from "../helpers/sellers";

const root = mkdtempSync(join(tmpdir(), "integration-updates-"));
const uploads = join(root, "uploads");
const saved = { BASE_URL: process.env.BASE_URL, STORAGE_DRIVER: process.env.STORAGE_DRIVER, UPLOAD_DIR: process.env.UPLOAD_DIR };
let server: LicensingServer;
let developerId: string;
let productId: string;
let appId: string;
/** The service's keys (key-id → base64url raw key) from its DID document, embedded in the generated code. */
let serviceKeys: Record<string, string>;
/** The published files: version → platform → bytes. */
const files = new Map<string, Map<string, Buffer>>();

const unique = () => `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

async function publish(version: string, platforms: Record<string, string>, channel: "stable" | "beta" = "stable"): Promise<void> {
  await createRelease(developerId, productId, { version, channel, notes: `## ${version}\n\n- Faster start.` });
  const byPlatform = new Map<string, Buffer>();
  for (const [platform, filename] of Object.entries(platforms)) {
    // Real file types (the upload checks their magic bytes): a gzip for Linux, a zip's local header for Windows.
    const content = Buffer.concat([Buffer.from(`${appId} ${version} ${platform}\n`), randomBytes(48 * 1024)]);
    const bytes = filename.endsWith(".zip") ? Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), content]) : gzipSync(content);
    await ingestArtifact(developerId, productId, version, {
      platform,
      filename,
      stream: Readable.from([bytes]),
      contentLength: bytes.length,
      expectedSha256: sha256(bytes),
    });
    byPlatform.set(platform, bytes);
  }
  await publishRelease(developerId, productId, version);
  files.set(version, byPlatform);
}

/** key-id → base64url raw key from the DID document the service serves ("z" + base58btc(0xed 0x01 ‖ key)). */
async function keysFromDidDocument(): Promise<Record<string, string>> {
  const doc = (await (await fetch(`${server.url}/.well-known/did.json`)).json()) as {
    verificationMethod: Array<{ id: string; publicKeyMultibase: string }>;
  };
  return didDocumentKeysBase64url(doc);
}

beforeAll(async () => {
  server = await startLicensingServer();
  // Signed local links and did:web ids name this server, as they name BASE_URL in production.
  process.env.BASE_URL = server.url;
  process.env.STORAGE_DRIVER = "local";
  process.env.UPLOAD_DIR = uploads;
  resetEnv();
  resetObjectStore();

  const id = unique();
  const dev = await sellingDeveloper(`iu-${id}@example.com`, { name: `IU ${id}`, website: null, bio: "" });
  await getDb().developer.update({ where: { id: dev.id }, data: { createdAt: new Date(Date.now() - 30 * 86_400_000) } });
  const product = await createProduct(
    dev.id,
    productInputSchema.parse({
      name: `Update Synth ${id}`,
      description: "A product used by the generated update-check tests, with a long enough description.",
      plugin_id: `com.test.iu${id}`,
      price_cents: 1500,
      category: "audio-plugins",
      max_machines: 2,
      seat_model: "per-machine",
      platforms: ["linux", "windows"],
      download_url: "https://builds.example.com/update-synth.tar.gz",
      icon_url: "/icons/tape-warmth.svg",
    }),
    { publish: true },
  );
  developerId = dev.id;
  productId = product.id;
  appId = product.pluginId;

  await publish("1.0.0", { "linux-x64": "synth-1.0.0-linux-x64.tar.gz", "windows-x64": "synth-1.0.0-windows-x64.zip" });
  await publish("1.1.0", { "linux-x64": "synth-1.1.0-linux-x64.tar.gz", "windows-x64": "synth-1.1.0-windows-x64.zip" });
  await publish("1.2.0-beta.1", { "linux-x64": "synth-1.2.0-beta.1-linux-x64.tar.gz" }, "beta");
  serviceKeys = await keysFromDidDocument();
}, 120_000);

afterAll(async () => {
  await getDb().product.updateMany({ where: { id: productId }, data: { status: "unlisted" } });
  await server.close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();
  resetObjectStore();
  rmSync(root, { recursive: true, force: true });
});

function generate(language: IntegrationLanguage) {
  const dir = mkdtempSync(join(root, `${language}-`));
  const markdown = generateLicenseIntegration({ language, app_id: appId, server_url: server.url, public_keys: serviceKeys });
  expect(extractFiles(markdown, dir).size).toBeGreaterThan(0);
  return { dir, markdown };
}

function expectRun(r: Run, status: number, pattern: RegExp): void {
  expect(r.out, r.out).toMatch(pattern);
  expect(r.status, r.out).toBe(status);
}

/** The stored object (UPLOAD_DIR/<key>) of a published artifact, and its row. */
async function storedArtifact(version: string, platform: string) {
  const artifact = await getDb().artifact.findFirstOrThrow({ where: { platform, release: { productId, version } } });
  return { artifact, path: join(uploads, artifact.storageKey) };
}

/** Files in a folder, temporary ones included (a refused download must leave none). */
const listing = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/** The generated program through the update check: found, downloaded, verified, up to date, tampering, refusals. */
async function exerciseUpdates(p: Program): Promise<void> {
  server.reset();
  const { run } = programRunner(p, appId, root);
  const license = await issueLicense(getDb(), {
    productId,
    buyerEmail: `iu-buyer-${unique()}@example.com`,
    maxMachines: 1,
    source: "complimentary",
    expiresAt: null,
  });
  const check = (version: string, platform: string, download?: string, channel = "stable") =>
    run(undefined, ["--check-update", version, "--platform", platform, "--channel", channel, ...(download ? ["--download", download] : [])]);

  // Nothing stored yet: the check needs an activated key first, and asks the server nothing.
  expectRun(await check("1.0.0", "linux-x64"), 1, /Update failed \(needs_key\)/);
  expect(server.state.routes).toEqual([]);

  // Activated and validated by the generated code itself (the update check needs an activated machine).
  expectRun(await run(license.key), 0, /License valid/);
  const fingerprint = server.state.calls.find((c) => c.path === "/activate")!.body.machine_fingerprint!;

  // From 1.0.0 on Linux: 1.1.0's Linux file is found, downloaded through its signed link, verified and written.
  const downloads = mkdtempSync(join(root, "downloads-"));
  const target = join(downloads, "synth.tar.gz");
  const linux = files.get("1.1.0")!.get("linux-x64")!;
  let r = await check("1.0.0", "linux-x64", target);
  expectRun(r, 0, /Update available: 1\.1\.0 \(synth-1\.1\.0-linux-x64\.tar\.gz, \d+ bytes\)/);
  expect(r.out).toMatch(/Downloaded and verified 1\.1\.0/);
  expect(/sha256 ([0-9a-f]{64})/.exec(r.out)?.[1]).toBe(sha256(linux));
  expect(readFileSync(target).equals(linux)).toBe(true);
  expect(listing(downloads)).toEqual(["synth.tar.gz"]);
  // The check named this product and machine, and the file came from the storage driver's signed link.
  const updateCall = server.state.routes.find((c) => c.path === `/api/updates/${appId}`);
  expect(updateCall?.status, JSON.stringify(server.state.routes)).toBe(200);
  expect(server.state.routes.some((c) => c.path.startsWith("/api/files/artifacts/") && c.status === 200)).toBe(true);
  expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);

  // The other platform gets its own file.
  expectRun(await check("1.0.0", "windows-x64"), 0, /Update available: 1\.1\.0 \(synth-1\.1\.0-windows-x64\.zip/);

  // On 1.1.0 there is nothing newer on the stable channel; the beta channel offers the beta, verified the same way.
  r = await check("1.1.0", "linux-x64", join(downloads, "none.bin"));
  expectRun(r, 0, /Up to date/);
  expect(existsSync(join(downloads, "none.bin"))).toBe(false);
  const beta = join(downloads, "beta.tar.gz");
  r = await check("1.1.0", "linux-x64", beta, "beta");
  expectRun(r, 0, /Update available: 1\.2\.0-beta\.1 .*\n.*Downloaded and verified 1\.2\.0-beta\.1/);
  expect(readFileSync(beta).equals(files.get("1.2.0-beta.1")!.get("linux-x64")!)).toBe(true);
  rmSync(beta);

  // Stored bytes changed (same size): refused on the SHA-256, nothing written, no temporary file left.
  const { artifact, path } = await storedArtifact("1.1.0", "linux-x64");
  const tampered = Buffer.from(linux);
  tampered[100]! ^= 0xff;
  const refusedTarget = join(downloads, "refused.tar.gz");
  try {
    writeFileSync(path, tampered);
    expectRun(await check("1.0.0", "linux-x64", refusedTarget), 1, /Update failed \(sha256_mismatch\)/);
    expect(listing(downloads)).toEqual(["synth.tar.gz"]);

    // Longer than announced: refused on the size.
    writeFileSync(path, Buffer.concat([linux, Buffer.from("extra")]));
    expectRun(await check("1.0.0", "linux-x64", refusedTarget), 1, /Update failed \(size_mismatch\)/);
    expect(listing(downloads)).toEqual(["synth.tar.gz"]);

    // Bytes and recorded SHA-256 both changed (storage and database, not the signing key): refused on the signature.
    writeFileSync(path, tampered);
    await getDb().artifact.update({ where: { id: artifact.id }, data: { sha256: sha256(tampered) } });
    expectRun(await check("1.0.0", "linux-x64", refusedTarget), 1, /Update failed \(signature_invalid\)/);
    expect(listing(downloads)).toEqual(["synth.tar.gz"]);
  } finally {
    writeFileSync(path, linux);
    await getDb().artifact.update({ where: { id: artifact.id }, data: { sha256: sha256(linux) } });
  }
  // Restored: the same check downloads again.
  expectRun(await check("1.0.0", "linux-x64", refusedTarget), 0, /Downloaded and verified 1\.1\.0/);

  // A revoked license: the server's problem code, no file.
  const other = join(downloads, "other.tar.gz");
  await setLicenseStatus({ licenseId: license.id, active: false, reason: "test" });
  expectRun(await check("1.0.0", "linux-x64", other), 1, /Update failed \(license_revoked\)/);
  await setLicenseStatus({ licenseId: license.id, active: true });
  // A refunded one (what the payment side records on a refund).
  await getDb().license.update({
    where: { id: license.id },
    data: { isActive: false, revokedAt: new Date(), revokedReason: "refund", revocation: "refunded" },
  });
  licenseCache().invalidate(license.key);
  expectRun(await check("1.0.0", "linux-x64", other), 1, /Update failed \(license_refunded\)/);
  expect(existsSync(other)).toBe(false);
}

const needs = (what: string) => ` (needs ${what})`;

describe.skipIf(!tools.machineId)("generated update checks against the service" + (tools.machineId ? "" : needs("/etc/machine-id")), () => {
  it("the generated Markdown shows the update check", () => {
    expect(generate("python").markdown).toMatch(/check_for_update\(/);
    expect(generate("electron").markdown).toMatch(/checkForUpdate\(/);
  });

  describe.skipIf(!tools.python)("Python" + needs("python3"), () => {
    it("finds, downloads and verifies an update with the pure-Python Ed25519 verifier", async () => {
      const { dir } = generate("python");
      // A `cryptography` that cannot be imported: the generated code uses its own RFC 8032 verifier.
      const env = withoutCryptography(dir);
      await exerciseUpdates({ cmd: "python3", args: ["license_check.py"], cwd: dir, env });
    }, 180_000);

    it.skipIf(!tools.pythonCryptography)(
      "finds, downloads and verifies an update with cryptography" + needs("python3-cryptography"),
      async () => {
        const { dir } = generate("python");
        expect(mustRun(SYSTEM_PYTHON, ["-c", "import license_check; print(license_check.ed25519_backend())"], { cwd: dir }).trim()).toBe(
          "cryptography",
        );
        await exerciseUpdates({ cmd: SYSTEM_PYTHON, args: ["license_check.py"], cwd: dir });
      },
      180_000,
    );
  });

  describe("Node (Electron's license module)", () => {
    it("finds, downloads and verifies an update", async () => {
      const { dir } = generate("electron");
      for (const f of ["license.js", "main.js"]) mustRun(process.execPath, ["--check", f], { cwd: dir });
      writeElectronUpdateCli(dir, appId);
      await exerciseUpdates({ cmd: process.execPath, args: ["update-cli.js"], cwd: dir });
    }, 180_000);
  });
});
