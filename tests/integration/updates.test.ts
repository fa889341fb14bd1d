import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as checkRoute } from "@/app/api/updates/[plugin_id]/route";
import { GET as downloadRoute } from "@/app/api/updates/[plugin_id]/download/route";
import { GET as keysRoute } from "@/app/api/updates/keys/route";
import { GET as buyerDownload } from "@/app/downloads/[id]/[artifact]/route";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { didDocument } from "@/lib/identity/did";
import { didDocumentKey } from "../helpers/did-keys";
import { yankRelease } from "@/lib/releases/manage";
import { artifactDownloadPath, licenseDownloads } from "@/lib/updates/downloads";
import { electronFeed, sparkleAppcast, tauriFeed } from "@/lib/updates/feeds";
import { fingerprint, newLicense } from "../helpers/licenses";
import { call, expectProblem, type Reply } from "../helpers/http";
import { dropTempUploads, fetchSigned, licensedMachine, productWithReleases, sha256, useTempUploads, type Fixture } from "./updates.fixtures";

/**
 * The update check a licensed app makes (GET /api/updates/{plugin_id}), its download, the verification keys and the
 * buyer's download links: the newest entitled build with a signed URL whose bytes match the hashes and whose
 * Ed25519 signature verifies against did.json, channel / platform / format selection, the update policies, and every
 * refusal as its problem code.
 */

const DAY = 86_400_000;

beforeAll(useTempUploads);
afterAll(async () => {
  await dropTempUploads();
  await disconnectDb();
});

interface Creds {
  key: string;
  machine: string;
}

function check(
  fx: Pick<Fixture, "pluginId">,
  creds: Creds | null,
  query: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const qs = new URLSearchParams(query).toString();
  return call(checkRoute, `/api/updates/${fx.pluginId}?${qs}`, {
    params: { plugin_id: fx.pluginId },
    headers: { ...(creds ? { "x-license-key": creds.key, "x-machine-fingerprint": creds.machine } : {}), ...headers },
  });
}

function download(fx: Pick<Fixture, "pluginId">, creds: Creds, query: Record<string, string>): Promise<Reply> {
  const qs = new URLSearchParams(query).toString();
  return call(downloadRoute, `/api/updates/${fx.pluginId}/download?${qs}`, {
    params: { plugin_id: fx.pluginId },
    headers: { "x-license-key": creds.key, "x-machine-fingerprint": creds.machine },
  });
}

/** did.json's Ed25519 key of a verification method: multibase "z" base58btc of 0xed 0x01 ‖ key. */
async function didKey(keyId: string): Promise<Uint8Array> {
  return didDocumentKey(await didDocument(), keyId);
}

const APP = [
  { platform: "linux-x64", filename: "Synth-x86_64.AppImage" },
  { platform: "windows-x64", filename: "Synth-Setup.exe" },
  { platform: "macos-universal", filename: "Synth-mac.zip" },
];

describe("GET /api/updates/{plugin_id}: the update check", () => {
  let fx: Fixture;
  let creds: Creds;
  beforeAll(async () => {
    fx = await productWithReleases([
      { version: "1.0.0", files: APP, notes: "First release" },
      { version: "1.1.0", files: APP, notes: "**Faster** filters" },
      { version: "1.2.0-beta.1", channel: "beta", files: APP.slice(0, 1), notes: "Beta" },
    ]);
    creds = await licensedMachine(fx);
  });

  it("answers the newest entitled release with a signed URL; the bytes match the hashes and the signature verifies with did.json", async () => {
    const r = await check(fx, creds, { version: "1.0.0", platform: "linux-x64" });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("cache-control")).toContain("no-store");
    expect(r.body).toMatchObject({
      status: "update_available",
      current_version: "1.0.0",
      channel: "stable",
      updates_until: null,
      newer_not_entitled: null,
      latest: { version: "1.1.0", channel: "stable", notes: "**Faster** filters" },
    });
    const a = r.body.latest.artifact;
    expect(a).toMatchObject({ platform: "linux-x64", format: null, filename: "Synth-x86_64.AppImage", size: 4096 });
    expect(new Date(a.url_expires_at).getTime()).toBeGreaterThan(Date.now());
    expect(new Date(a.url_expires_at).getTime()).toBeLessThan(Date.now() + 3_600_000);

    const file = await fetchSigned(a.url);
    expect(file.status).toBe(200);
    expect(file.bytes.equals(fx.bytes.get("1.1.0/Synth-x86_64.AppImage")!)).toBe(true);
    expect(sha256(file.bytes)).toBe(a.sha256);
    expect(file.bytes.length).toBe(a.size);
    const key = await didKey(a.signature_key_id);
    expect(nacl.sign.detached.verify(new Uint8Array(file.bytes), Buffer.from(a.signature, "base64"), key)).toBe(true);
    const tampered = Buffer.from(file.bytes);
    tampered[100] = (tampered[100] ?? 0) ^ 0xff;
    expect(nacl.sign.detached.verify(new Uint8Array(tampered), Buffer.from(a.signature, "base64"), key)).toBe(false);

    // This machine's feeds.
    expect(r.body.feeds.electron).toMatch(
      new RegExp(`^http://localhost:3000/api/updates/${fx.pluginId.replace(/\./g, "\\.")}/feeds/[a-z0-9]+\\.[A-Za-z0-9_-]{32}$`),
    );
    expect(r.body.feeds.sparkle).toBe(`${r.body.feeds.electron}/appcast.xml`);
    expect(r.body.feeds.tauri).toBe(`${r.body.feeds.electron}/tauri.json`);
  });

  it("is up to date on the newest version (and newer), and answers the newest without a version", async () => {
    const same = await check(fx, creds, { version: "1.1.0", platform: "linux-x64" });
    expect(same.body).toMatchObject({ status: "up_to_date", current_version: "1.1.0", latest: { version: "1.1.0" } });
    const ahead = await check(fx, creds, { version: "v2.0.0", platform: "linux-x64" });
    expect(ahead.body).toMatchObject({ status: "up_to_date", current_version: "2.0.0" });
    const none = await check(fx, creds, { platform: "linux-x64" });
    expect(none.body).toMatchObject({ status: "update_available", current_version: null, latest: { version: "1.1.0" } });
  });

  it("picks the platform's build; Apple silicon and Intel Macs fall back to a universal build; no build means no update", async () => {
    const win = await check(fx, creds, { version: "1.0.0", platform: "windows-x64" });
    expect(win.body.latest.artifact).toMatchObject({ platform: "windows-x64", filename: "Synth-Setup.exe" });
    const mac = await check(fx, creds, { version: "1.0.0", platform: "macos-arm64" });
    expect(mac.body.latest.artifact).toMatchObject({ platform: "macos-universal", filename: "Synth-mac.zip" });
    const arm = await check(fx, creds, { version: "1.0.0", platform: "linux-arm64" });
    expect(arm.body).toMatchObject({ status: "no_build_for_platform", latest: null });
  });

  it("beta sees beta and stable releases (the newest wins); stable sees stable only", async () => {
    const beta = await check(fx, creds, { version: "1.1.0", platform: "linux-x64", channel: "beta" });
    expect(beta.body).toMatchObject({ status: "update_available", channel: "beta", latest: { version: "1.2.0-beta.1", channel: "beta" } });
    // On Windows the beta has no build: the newest stable one is the answer.
    const win = await check(fx, creds, { version: "1.0.0", platform: "windows-x64", channel: "beta" });
    expect(win.body.latest).toMatchObject({ version: "1.1.0", channel: "stable" });
    const stable = await check(fx, creds, { version: "1.1.0", platform: "linux-x64" });
    expect(stable.body.status).toBe("up_to_date");
  });

  it("takes the key as Authorization: License <key> and the fingerprint as a query parameter", async () => {
    const r = await check(
      fx,
      null,
      { version: "1.0.0", platform: "linux-x64", fingerprint: creds.machine },
      { authorization: `License ${creds.key}` },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body.latest.version).toBe("1.1.0");
  });

  it("refuses bad input with 400 problems", async () => {
    expectProblem(await check(fx, null, { platform: "linux-x64" }), 400, "invalid_header");
    expectProblem(await check(fx, { key: "nope", machine: creds.machine }, { platform: "linux-x64" }), 400, "invalid_header");
    expectProblem(await check(fx, { key: creds.key, machine: "xyz" }, { platform: "linux-x64" }), 400, "invalid_header");
    expectProblem(await check(fx, creds, { platform: "amiga-68k" }), 400, "invalid_query");
    expectProblem(await check(fx, creds, { version: "latest", platform: "linux-x64" }), 400, "invalid_query");
    expectProblem(await check(fx, creds, { platform: "linux-x64", channel: "nightly" }), 400, "invalid_query");
  });

  it("GET …/download redirects to the newest entitled build, or a named version", async () => {
    const newest = await download(fx, creds, { platform: "windows-x64" });
    expect(newest.status, newest.text).toBe(302);
    expect(newest.headers.get("cache-control")).toContain("no-store");
    const file = await fetchSigned(newest.headers.get("location")!);
    expect(file.bytes.equals(fx.bytes.get("1.1.0/Synth-Setup.exe")!)).toBe(true);
    expect(file.headers.get("content-disposition")).toContain("Synth-Setup.exe");

    const older = await download(fx, creds, { platform: "windows-x64", version: "1.0.0" });
    expect((await fetchSigned(older.headers.get("location")!)).bytes.equals(fx.bytes.get("1.0.0/Synth-Setup.exe")!)).toBe(true);
    expectProblem(await download(fx, creds, { platform: "windows-x64", version: "9.9.9" }), 404, "release_not_found");
    expectProblem(await download(fx, creds, { platform: "linux-arm64", version: "1.0.0" }), 404, "artifact_not_found");
  });

  it("publishes the verification keys apps embed, current first, the same as did.json", async () => {
    const r = await call(keysRoute, "/api/updates/keys");
    expect(r.status).toBe(200);
    const [current] = r.body.ed25519;
    expect(Buffer.from(current.public_key_base64, "base64").equals(Buffer.from(await didKey(current.key_id)))).toBe(true);
    expect(r.body.minisign[0].key_id).toBe(current.key_id);
    const pub = Buffer.from(r.body.minisign[0].pubkey, "base64").toString("utf8").split("\n");
    expect(pub[0]).toMatch(/^untrusted comment: minisign public key [0-9A-F]{16}$/);
    const raw = Buffer.from(pub[1]!, "base64");
    expect(raw.subarray(0, 2).toString()).toBe("Ed");
    expect(raw.subarray(10).equals(Buffer.from(current.public_key_base64, "base64"))).toBe(true);
  });
});

describe("several files for one platform (a .dmg to install, a .zip to update from)", () => {
  let fx: Fixture;
  let creds: Creds;
  let token: string;
  beforeAll(async () => {
    fx = await productWithReleases([
      {
        version: "1.0.0",
        files: [
          { platform: "macos-universal", filename: "Synth.dmg" },
          { platform: "macos-universal", filename: "Synth-mac.zip" },
          { platform: "macos-universal", filename: "Synth.app.tar.gz" },
          { platform: "windows-x64", filename: "Synth-win.zip" },
          { platform: "windows-x64", filename: "Synth-Setup.exe" },
        ],
      },
    ]);
    creds = await licensedMachine(fx);
    const first = await check(fx, creds, { platform: "macos-universal" });
    token = /\/feeds\/([^/]+)$/.exec(first.body.feeds.electron as string)![1]!;
  });

  it("the check offers what updaters install unless the app names a file_type; each file keeps its own type", async () => {
    const mac = await check(fx, creds, { version: "0.9.0", platform: "macos-arm64" });
    expect(mac.body.latest.artifact).toMatchObject({ filename: "Synth-mac.zip", file_type: "zip" });
    const dmg = await check(fx, creds, { version: "0.9.0", platform: "macos-arm64", file_type: "dmg" });
    expect(dmg.body.latest.artifact).toMatchObject({ filename: "Synth.dmg", file_type: "dmg" });
    const tgz = await check(fx, creds, { version: "0.9.0", platform: "macos-universal", file_type: "tar.gz" });
    expect(tgz.body.latest.artifact).toMatchObject({ filename: "Synth.app.tar.gz", file_type: "tar.gz" });
    const win = await check(fx, creds, { version: "0.9.0", platform: "windows-x64" });
    expect(win.body.latest.artifact).toMatchObject({ filename: "Synth-Setup.exe", file_type: "exe" });
    const none = await check(fx, creds, { version: "0.9.0", platform: "windows-x64", file_type: "msi" });
    expect(none.body).toMatchObject({ status: "no_build_for_platform", latest: null });
    expectProblem(await check(fx, creds, { platform: "windows-x64", file_type: "iso" }), 400, "invalid_query");
    const dl = await download(fx, creds, { platform: "macos-universal", file_type: "dmg" });
    expect(dl.status).toBe(302);
    const file = await fetchSigned(dl.headers.get("location")!);
    expect(file.bytes.equals(fx.bytes.get("1.0.0/Synth.dmg")!)).toBe(true);
  });

  it("each feed lists the file its updater installs", async () => {
    const yml = await electronFeed(fx.pluginId, token, "latest-mac.yml");
    expect(yml).toContain("Synth-mac.zip");
    expect(yml).not.toContain("Synth.dmg");
    expect(await electronFeed(fx.pluginId, token, "latest.yml")).toContain("Synth-Setup.exe");
    const appcast = await sparkleAppcast(fx.pluginId, token);
    expect(appcast).toContain("Synth-mac.zip");
    expect(appcast).not.toContain("Synth.dmg");
    const tauri = await tauriFeed(fx.pluginId, token);
    expect(tauri.platforms["darwin-aarch64"]!.url).toContain("Synth.app.tar.gz");
    expect(tauri.platforms["windows-x86_64"]!.url).toContain("Synth-Setup.exe");
  });
});

describe("yanked releases", () => {
  it("are never offered or downloaded, by the check, the download or a feed", async () => {
    const fx = await productWithReleases([
      { version: "1.0.0", files: APP, publishedDaysAgo: 5 },
      { version: "1.1.0", files: APP },
    ]);
    const creds = await licensedMachine(fx);
    const before = await check(fx, creds, { version: "1.0.0", platform: "linux-x64" });
    expect(before.body.latest.version).toBe("1.1.0");
    await yankRelease(fx.devId, fx.productId, "1.1.0");
    const after = await check(fx, creds, { version: "1.0.0", platform: "linux-x64" });
    expect(after.body).toMatchObject({ status: "up_to_date", latest: { version: "1.0.0" }, newer_not_entitled: null });
    expectProblem(await download(fx, creds, { platform: "linux-x64", version: "1.1.0" }), 404, "release_not_found");
    // The feeds name the machine, never the license key.
    expect(JSON.stringify(after.body.feeds)).not.toContain(creds.key);
    expect(JSON.stringify(after.body.feeds)).not.toContain(creds.machine);
  });
});

describe("update policies", () => {
  it("days: a license whose updates ended gets 1.0.x only, with the newer version named; a download of it is refused", async () => {
    const fx = await productWithReleases(
      [
        { version: "1.0.0", files: APP, publishedDaysAgo: 100 },
        { version: "1.0.1", files: APP, publishedDaysAgo: 80 },
        { version: "1.1.0", files: APP },
      ],
      { updatePolicy: "days", updateDays: 30 },
    );
    const creds = await licensedMachine(fx, { issuedDaysAgo: 100 });
    const r = await check(fx, creds, { version: "1.0.0", platform: "linux-x64" });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ status: "update_available", latest: { version: "1.0.1" }, newer_not_entitled: "1.1.0" });
    expect(Math.abs(new Date(r.body.updates_until).getTime() - (Date.now() - 70 * DAY))).toBeLessThan(60_000);
    const onLatest = await check(fx, creds, { version: "1.0.1", platform: "linux-x64" });
    expect(onLatest.body).toMatchObject({ status: "up_to_date", newer_not_entitled: "1.1.0" });

    expectProblem(await download(fx, creds, { platform: "linux-x64", version: "1.1.0" }), 403, "release_not_entitled");
    const ok = await download(fx, creds, { platform: "linux-x64" });
    expect((await fetchSigned(ok.headers.get("location")!)).bytes.equals(fx.bytes.get("1.0.1/Synth-x86_64.AppImage")!)).toBe(true);

    // A license bought today gets everything.
    const fresh = await licensedMachine(fx);
    const now = await check(fx, fresh, { version: "1.0.0", platform: "linux-x64" });
    expect(now.body).toMatchObject({ latest: { version: "1.1.0" }, newer_not_entitled: null });
  });

  it("major: the majors out at purchase and their updates, not the next major", async () => {
    const fx = await productWithReleases(
      [
        { version: "1.0.0", files: APP, publishedDaysAgo: 50 },
        { version: "2.0.0", files: APP, publishedDaysAgo: 5 },
        { version: "1.5.0", files: APP, publishedDaysAgo: 1 },
      ],
      { updatePolicy: "major" },
    );
    const creds = await licensedMachine(fx, { issuedDaysAgo: 20 });
    const r = await check(fx, creds, { version: "1.0.0", platform: "windows-x64" });
    expect(r.body).toMatchObject({ status: "update_available", latest: { version: "1.5.0" }, newer_not_entitled: "2.0.0", updates_until: null });
  });

  it("a trial is entitled like a purchase while it runs", async () => {
    const fx = await productWithReleases([{ version: "1.0.0", files: APP }]);
    const creds = await licensedMachine(fx);
    await getDb().license.update({ where: { key: creds.key }, data: { trial: true, source: "trial", expiresAt: new Date(Date.now() + 7 * DAY) } });
    const r = await check(fx, creds, { platform: "linux-x64" });
    expect(r.body).toMatchObject({ status: "update_available", latest: { version: "1.0.0" } });
  });
});

describe("refusals: each its problem code, never a URL", () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await productWithReleases([{ version: "1.0.0", files: APP }]);
  });

  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    ["refunded", { isActive: false, revocation: "refunded" }, 403, "license_refunded"],
    ["revoked", { isActive: false, revocation: "seller" }, 403, "license_revoked"],
    ["suspended (dispute open)", { isActive: false, revocation: "disputed" }, 403, "license_suspended"],
    ["expired", { expiresAt: new Date(Date.now() - DAY) }, 403, "license_expired"],
    ["trial over", { trial: true, source: "trial", expiresAt: new Date(Date.now() - DAY) }, 403, "trial_expired"],
  ];
  for (const [name, data, status, code] of cases) {
    it(`${name}: ${status} ${code} on the check, the download and the buyer's link`, async () => {
      const creds = await licensedMachine(fx);
      const license = await getDb().license.update({ where: { key: creds.key }, data });
      const r = await check(fx, creds, { platform: "linux-x64" });
      expectProblem(r, status, code);
      expect(r.text).not.toContain("/api/files/");
      expectProblem(await download(fx, creds, { platform: "linux-x64" }), status, code);
      const artifactId = fx.artifacts.get("1.0.0")!.get("Synth-x86_64.AppImage")!;
      const path = artifactDownloadPath(fx.productId, artifactId, license);
      expectProblem(await call(buyerDownload, path, { params: { id: fx.productId, artifact: artifactId } }), status, code);
    });
  }

  it("an unknown key and another product's key are the same 404 license_not_found", async () => {
    const creds = await licensedMachine(fx);
    const unknown = await check(fx, { key: "ZZZZ-ZZZZ-ZZZZ-ZZZZ", machine: creds.machine }, { platform: "linux-x64" });
    expectProblem(unknown, 404, "license_not_found");
    const { license } = await newLicense();
    const other = await check(fx, { key: license.key, machine: creds.machine }, { platform: "linux-x64" });
    expectProblem(other, 404, "license_not_found");
    expect(other.body.detail).toBe(unknown.body.detail);
  });

  it("a machine the license is not activated on is 403 machine_not_activated", async () => {
    const creds = await licensedMachine(fx);
    expectProblem(await check(fx, { key: creds.key, machine: fingerprint() }, { platform: "linux-x64" }), 403, "machine_not_activated");
  });

  it("counts against the per-key rate limit /validate uses", async () => {
    const creds = await licensedMachine(fx);
    process.env.RATE_LIMIT_PER_KEY_PER_MIN = "2";
    resetEnv();
    try {
      const replies = [];
      for (let i = 0; i < 3; i++) replies.push(await check(fx, creds, { platform: "linux-x64" }, { "x-ilm-client-address": `203.0.113.${i}` }));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 429]);
    } finally {
      process.env.RATE_LIMIT_PER_KEY_PER_MIN = "1000000";
      resetEnv();
    }
  });
});

describe("buyer downloads (/downloads/{product}/{artifact})", () => {
  it("lists the entitled releases with links that redirect to the file; forged links and unentitled builds are refused", async () => {
    const fx = await productWithReleases(
      [
        { version: "1.0.0", files: APP, publishedDaysAgo: 100 },
        { version: "2.0.0", files: APP },
      ],
      { updatePolicy: "days", updateDays: 10 },
    );
    const { license } = await licensedMachine(fx, { issuedDaysAgo: 100 });
    const listed = await licenseDownloads(license.id);
    expect(listed.releases.map((r) => r.version)).toEqual(["1.0.0"]);
    expect(listed.newer_not_entitled).toBe("2.0.0");
    expect(listed.updates_until).not.toBeNull();
    const art = listed.releases[0]!.artifacts.find((a) => a.platform === "windows-x64")!;
    expect(art.download_path).toBe(artifactDownloadPath(fx.productId, art.id, license));

    const get = (path: string, artifact: string) => call(buyerDownload, path, { params: { id: fx.productId, artifact } });
    const ok = await get(art.download_path, art.id);
    expect(ok.status, ok.text).toBe(302);
    expect(ok.headers.get("referrer-policy")).toBe("no-referrer");
    expect((await fetchSigned(ok.headers.get("location")!)).bytes.equals(fx.bytes.get("1.0.0/Synth-Setup.exe")!)).toBe(true);

    const newer = fx.artifacts.get("2.0.0")!.get("Synth-Setup.exe")!;
    expectProblem(await get(artifactDownloadPath(fx.productId, newer, license), newer), 403, "release_not_entitled");
    expectProblem(await get(`/downloads/${fx.productId}/${art.id}`, art.id), 403, "download_license_required");
    expectProblem(await get(`/downloads/${fx.productId}/${art.id}?t=${license.id}.${"A".repeat(32)}`, art.id), 403, "download_license_required");
    expectProblem(await get(artifactDownloadPath(fx.productId, "nosuchartifact", license), "nosuchartifact"), 404, "artifact_not_found");

    // An unlisted product: its holders keep their downloads, everyone else learns nothing.
    await getDb().product.update({ where: { id: fx.productId }, data: { status: "unlisted" } });
    expect((await get(art.download_path, art.id)).status).toBe(302);
    expectProblem(await get(`/downloads/${fx.productId}/${art.id}`, art.id), 404, "product_not_found");
  });

  it("a license not in force lists nothing", async () => {
    const fx = await productWithReleases([{ version: "1.0.0", files: APP }]);
    const { license } = await licensedMachine(fx);
    await getDb().license.update({ where: { id: license.id }, data: { isActive: false, revocation: "refunded" } });
    expect(await licenseDownloads(license.id)).toEqual({ releases: [], updates_until: null, newer_not_entitled: null });
  });
});
