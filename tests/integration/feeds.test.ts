import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { XMLParser } from "fast-xml-parser";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as checkRoute } from "@/app/api/updates/[plugin_id]/route";
import { GET as fileRoute } from "@/app/api/updates/[plugin_id]/feeds/[token]/[file]/route";
import { GET as appcastRoute } from "@/app/api/updates/[plugin_id]/feeds/[token]/appcast.xml/route";
import { GET as tauriRoute } from "@/app/api/updates/[plugin_id]/feeds/[token]/tauri.json/route";
import { GET as artifactRoute } from "@/app/api/updates/[plugin_id]/feeds/[token]/artifacts/[artifact_id]/route";
import { GET as namedArtifactRoute } from "@/app/api/updates/[plugin_id]/feeds/[token]/artifacts/[artifact_id]/[name]/route";
import { GET as keysRoute } from "@/app/api/updates/keys/route";
import { disconnectDb, getDb } from "@/lib/db";
import { storedSearchText } from "@/lib/marketplace/search-text";
import { syncProductSearch } from "@/lib/marketplace/search-index";
import { deactivateMachine } from "@/lib/licensing/deactivate-machine";
import { renderNotes } from "@/lib/releases/notes";
import { cdata, xmlEscape } from "@/lib/updates/feeds";
import { call, expectProblem, type Reply } from "../helpers/http";
import { dropTempUploads, fetchSigned, licensedMachine, productWithReleases, sha512b64, useTempUploads, type Fixture } from "./updates.fixtures";

/**
 * The feeds real updaters read, each checked the way its updater reads it: electron-updater's own generic provider
 * (fed through our route handlers) parses latest*.yml and resolves its files; the Sparkle appcast is parsed with
 * fast-xml-parser against Sparkle's documented structure and its edSignature verified with tweetnacl over the
 * downloaded bytes; the Tauri v2 JSON is checked against the documented structure and its minisign signature verified
 * with tweetnacl per the minisign format. Feed tokens of deactivated machines and revoked licenses are refused.
 */

// electron-updater's own code (no electron binary needed for the provider and its parsing).
const require = createRequire(import.meta.url);
const { GenericProvider } = require("electron-updater/out/providers/GenericProvider") as {
  GenericProvider: new (
    config: { provider: "generic"; url: string; channel?: string },
    updater: { channel: string | null; isAddNoCacheQuery: boolean },
    runtime: { isUseMultipleRangeRequest: boolean; platform: "darwin" | "linux" | "win32"; executor: unknown },
  ) => {
    getLatestVersion(): Promise<{
      version: string;
      files: Array<{ url: string; sha512: string; size: number }>;
      releaseDate: string;
      releaseNotes?: string;
    }>;
    resolveFiles(info: unknown): Array<{ url: URL; info: { url: string; sha512: string; size: number } }>;
  };
};
const { findFile } = require("electron-updater/out/providers/Provider") as {
  findFile: (files: Array<{ url: URL }>, extension: string, not?: string[]) => { url: URL; info: { sha512: string } } | undefined;
};
const { MacUpdater } = require("electron-updater/out/MacUpdater") as {
  MacUpdater: { filterFilesForArch<F>(files: F[], isArm64Mac: boolean): F[] };
};
const { HttpError } = require("builder-util-runtime") as { HttpError: new (status: number, message?: string) => Error };

beforeAll(useTempUploads);
afterAll(async () => {
  await dropTempUploads();
  await disconnectDb();
});

/** Serves a feed URL through the route handler Next would pick for it. */
function get(url: string): Promise<Reply> {
  const u = new URL(url);
  const m = /^\/api\/updates\/([^/]+)\/feeds\/([^/]+)\/(.+)$/.exec(u.pathname);
  if (!m) throw new Error(`not a feed URL: ${url}`);
  const [, plugin_id = "", token = "", rest = ""] = m;
  const path = u.pathname + u.search;
  const art = /^artifacts\/([^/]+)(?:\/([^/]+))?$/.exec(rest);
  if (art?.[2]) return call(namedArtifactRoute, path, { params: { plugin_id, token, artifact_id: art[1]!, name: decodeURIComponent(art[2]) } });
  if (art) return call(artifactRoute, path, { params: { plugin_id, token, artifact_id: art[1]! } });
  if (rest === "appcast.xml") return call(appcastRoute, path, { params: { plugin_id, token } });
  if (rest === "tauri.json") return call(tauriRoute, path, { params: { plugin_id, token } });
  return call(fileRoute, path, { params: { plugin_id, token, file: rest } });
}

/** electron-updater's HTTP executor, answered by our route handlers. */
const executor = {
  async request(options: { protocol: string; hostname: string; port?: string; path: string }) {
    const r = await get(`${options.protocol}//${options.hostname}${options.port ? `:${options.port}` : ""}${options.path}`);
    if (r.status !== 200) throw new HttpError(r.status, r.text);
    return r.text;
  },
};
const provider = (url: string, platform: "darwin" | "linux" | "win32", channel: string | null = null) =>
  new GenericProvider({ provider: "generic", url }, { channel, isAddNoCacheQuery: true }, { isUseMultipleRangeRequest: false, platform, executor });

/** Follows a feed's download link: 302 to a signed URL, then the bytes. */
async function downloadFrom(url: string): Promise<Buffer> {
  const r = await get(url);
  expect(r.status, r.text).toBe(302);
  const file = await fetchSigned(r.headers.get("location")!);
  expect(file.status).toBe(200);
  return file.bytes;
}

const APP = [
  { platform: "windows-x64", filename: "Synth-Setup-x64.exe" },
  { platform: "windows-arm64", filename: "Synth-Setup-arm64.exe" },
  { platform: "macos-universal", filename: "Synth.app.tar.gz" },
  { platform: "macos-x64", filename: "Synth-x64-mac.zip" },
  { platform: "macos-arm64", filename: "Synth-arm64-mac.zip" },
  { platform: "linux-x64", filename: "Synth-x86_64.AppImage" },
  { platform: "linux-arm64", filename: "Synth-arm64.AppImage" },
  { platform: "windows-x64", format: "vst3", filename: "Synth-VST3-win.zip" },
];
const NOTES = "Fixes <b>bold</b> & `code`; a tricky ]]> sequence and [a link](https://example.com).";

let fx: Fixture;
let feeds: { electron: string; sparkle: string; tauri: string };
let keys: { ed25519: Array<{ key_id: string; public_key_base64: string }>; minisign: Array<{ key_id: string; pubkey: string }> };
let creds: { key: string; machine: string };

async function feedsOf(f: Fixture, c: { key: string; machine: string }) {
  const r = await call(checkRoute, `/api/updates/${f.pluginId}?platform=linux-x64`, {
    params: { plugin_id: f.pluginId },
    headers: { "x-license-key": c.key, "x-machine-fingerprint": c.machine },
  });
  expect(r.status, r.text).toBe(200);
  return r.body.feeds as typeof feeds;
}

beforeAll(async () => {
  fx = await productWithReleases([
    { version: "1.0.0", files: APP, notes: "First", publishedDaysAgo: 10 },
    { version: "1.1.0", files: APP, notes: NOTES, publishedDaysAgo: 1 },
    { version: "1.2.0-beta.1", channel: "beta", files: APP.slice(0, 1), notes: "Beta" },
  ]);
  // A name that needs XML escaping in the appcast; the search haystack and index follow it, as a product edit keeps them.
  const row = await getDb().product.findUniqueOrThrow({ where: { id: fx.productId }, include: { developer: { select: { name: true } } } });
  const name = `Synth & <Co> "Pro" ${fx.pluginId}`;
  await getDb().$transaction(async (tx) => {
    await tx.product.update({ where: { id: fx.productId }, data: { name, searchText: storedSearchText({ ...row, name }, row.developer.name) } });
    await syncProductSearch(tx, { productIds: [fx.productId] });
  });
  creds = await licensedMachine(fx);
  feeds = await feedsOf(fx, creds);
  keys = (await call(keysRoute, "/api/updates/keys")).body;
});

describe("electron-updater generic provider", () => {
  it("latest.yml: electron-updater's provider reads the newest stable version and resolves files whose sha512 and size match the download", async () => {
    const p = provider(feeds.electron, "win32");
    const info = await p.getLatestVersion();
    expect(info.version).toBe("1.1.0");
    expect(info.releaseNotes).toBe(NOTES);
    expect(new Date(info.releaseDate).getTime()).toBeLessThan(Date.now());
    const files = p.resolveFiles(info);
    expect(files).toHaveLength(2); // both Windows app builds; never the VST3 zip
    // NSIS picks the .exe for this machine's architecture.
    const chosen = findFile(files, "exe")!;
    expect(chosen.url.pathname).toContain(`-${process.arch === "arm64" ? "arm64" : "x64"}`);
    for (const f of files) {
      const bytes = await downloadFrom(f.url.href);
      expect(sha512b64(bytes)).toBe(f.info.sha512);
      expect(bytes.length).toBe(f.info.size);
    }
    // The raw document has the fields electron-builder writes.
    const raw = await get(`${feeds.electron}/latest.yml`);
    expect(raw.headers.get("content-type")).toMatch(/^text\/yaml/);
    expect(raw.text).toMatch(/^version: 1\.1\.0$/m);
    expect(raw.text).toMatch(/^path: /m);
    expect(raw.text).toMatch(/^sha512: /m);
    expect(raw.text).toMatch(/^releaseDate: /m);
  });

  it("latest-mac.yml lists the .zip builds (what Squirrel.Mac installs), each Mac picks its own; latest-linux.yml the x64 AppImage, latest-linux-arm64.yml the arm64 one", async () => {
    const mac = provider(feeds.electron, "darwin");
    const macFiles = mac.resolveFiles(await mac.getLatestVersion());
    const name = (f: { url: URL }) => f.url.pathname.split("/").pop();
    expect(macFiles.map(name)).toEqual(["macos-x64-Synth-x64-mac.zip", "macos-arm64-Synth-arm64-mac.zip"]);
    // MacUpdater's own choice on an Apple silicon and on an Intel Mac.
    const arm = findFile(MacUpdater.filterFilesForArch(macFiles, true), "zip", ["pkg", "dmg"])!;
    const intel = findFile(MacUpdater.filterFilesForArch(macFiles, false), "zip", ["pkg", "dmg"])!;
    expect(name(arm)).toBe("macos-arm64-Synth-arm64-mac.zip");
    expect(name(intel)).toBe("macos-x64-Synth-x64-mac.zip");
    const bytes = await downloadFrom(arm.url.href);
    expect(bytes.equals(fx.bytes.get("1.1.0/Synth-arm64-mac.zip")!)).toBe(true);
    expect(sha512b64(bytes)).toBe(arm.info.sha512);

    const linux = provider(feeds.electron, "linux");
    const linuxFiles = linux.resolveFiles(await linux.getLatestVersion());
    expect(linuxFiles.map((f) => f.url.pathname.split("/").pop())).toEqual([
      process.arch === "x64" ? "linux-x64-Synth-x86_64.AppImage" : `linux-${process.arch}-Synth-${process.arch}.AppImage`,
    ]);
    expect(sha512b64(await downloadFrom(linuxFiles[0]!.url.href))).toBe(linuxFiles[0]!.info.sha512);

    const armLinux = await get(`${feeds.electron}/latest-linux-arm64.yml`);
    expect(armLinux.status).toBe(200);
    expect(armLinux.text).toContain("linux-arm64-Synth-arm64.AppImage");
  });

  it("beta.yml: the beta channel sees the newest of beta and stable", async () => {
    const beta = provider(feeds.electron, "win32", "beta");
    const info = await beta.getLatestVersion();
    expect(info.version).toBe("1.2.0-beta.1");
    // The beta has no Linux build: beta-linux.yml answers the newest stable one.
    const linux = await get(`${feeds.electron}/beta-linux.yml`);
    expect(linux.text).toMatch(/^version: 1\.1\.0$/m);
  });
});

describe("Sparkle appcast", () => {
  it("is RSS 2.0 in Sparkle's structure, escaped, and each enclosure's edSignature verifies over the downloaded bytes", async () => {
    const r = await get(feeds.sparkle);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/rss\+xml/);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", isArray: (name) => name === "item" }).parse(r.text);
    expect(doc.rss["@version"]).toBe("2.0");
    expect(doc.rss["@xmlns:sparkle"]).toBe("http://www.andymatuschak.org/xml-namespaces/sparkle");
    const channel = doc.rss.channel;
    expect(channel.title).toBe(`Synth & <Co> "Pro" ${fx.pluginId} updates`);
    const items = channel.item as Array<Record<string, any>>;
    // One item per entitled macOS release, newest first (the beta has no macOS build).
    expect(items.map((i) => i["sparkle:version"])).toEqual(["1.1.0", "1.0.0"]);
    const [newest] = items;
    expect(newest!["sparkle:shortVersionString"]).toBe("1.1.0");
    expect(newest!["sparkle:channel"]).toBeUndefined();
    expect(newest!.title).toBe("Version 1.1.0");
    expect(newest!.pubDate).toMatch(
      /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/,
    );
    // The notes' HTML arrives whole (rendering escapes the "]]>" in the Markdown; cdata() splits one anyway).
    expect(newest!.description).toBe(renderNotes(NOTES));
    expect(newest!.description).toContain("]]&gt;");
    const enclosure = newest!.enclosure;
    expect(enclosure["@type"]).toBe("application/octet-stream");
    const bytes = await downloadFrom(enclosure["@url"]);
    expect(bytes.equals(fx.bytes.get("1.1.0/Synth.app.tar.gz")!)).toBe(true);
    expect(Number(enclosure["@length"])).toBe(bytes.length);
    const key = Buffer.from(keys.ed25519[0]!.public_key_base64, "base64");
    expect(key.length).toBe(32);
    const sig = Buffer.from(enclosure["@sparkle:edSignature"], "base64");
    expect(nacl.sign.detached.verify(new Uint8Array(bytes), new Uint8Array(sig), new Uint8Array(key))).toBe(true);
  });

  it("CDATA and XML escaping keep any text whole", () => {
    const text = "a ]]> b <c> & \"d\" 'e'";
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" }).parse(`<x y="${xmlEscape(text)}">${cdata(text)}</x>`);
    expect(doc.x["#text"]).toBe(text);
    expect(doc.x["@y"]).toBe(text);
  });

  it("tags beta items with sparkle:channel", async () => {
    const beta = await productWithReleases([
      { version: "2.0.0", files: APP.slice(2, 3), publishedDaysAgo: 2 },
      { version: "2.1.0-beta.1", channel: "beta", files: APP.slice(2, 3) },
    ]);
    const c = await licensedMachine(beta);
    const f = await feedsOf(beta, c);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", isArray: (name) => name === "item" }).parse(
      (await get(f.sparkle)).text,
    );
    const items = doc.rss.channel.item as Array<Record<string, any>>;
    expect(items.map((i) => [i["sparkle:version"], i["sparkle:channel"]])).toEqual([
      ["2.1.0-beta.1", "beta"],
      ["2.0.0", undefined],
    ]);
  });
});

/** minisign's public key (Tauri's pubkey): base64 of its text, whose second line is base64("Ed" ‖ key id ‖ key). */
function minisignPublicKey(pubkey: string): { keyId: Buffer; key: Uint8Array } {
  const lines = Buffer.from(pubkey, "base64").toString("utf8").split("\n");
  expect(lines[0]).toMatch(/^untrusted comment: /);
  const raw = Buffer.from(lines[1]!, "base64");
  expect(raw.length).toBe(42);
  expect(raw.subarray(0, 2).toString("latin1")).toBe("Ed");
  return { keyId: raw.subarray(2, 10), key: new Uint8Array(raw.subarray(10)) };
}

/** Verifies a minisign signature file (base64 of its text, as Tauri has it) over `bytes` with tweetnacl. */
function verifyMinisign(signature: string, bytes: Buffer, pub: { keyId: Buffer; key: Uint8Array }): boolean {
  const lines = Buffer.from(signature, "base64").toString("utf8").split("\n");
  expect(lines[0]).toMatch(/^untrusted comment: /);
  const sigLine = Buffer.from(lines[1]!, "base64");
  expect(sigLine.length).toBe(74);
  const algorithm = sigLine.subarray(0, 2).toString("latin1");
  expect(sigLine.subarray(2, 10).equals(pub.keyId)).toBe(true);
  const fileSig = new Uint8Array(sigLine.subarray(10));
  expect(lines[2]).toMatch(/^trusted comment: /);
  const trusted = lines[2]!.slice("trusted comment: ".length);
  const globalSig = new Uint8Array(Buffer.from(lines[3]!, "base64"));
  // "ED": Ed25519 over BLAKE2b-512 of the file (prehashed); "Ed": over the file itself (legacy).
  const message = algorithm === "ED" ? createHash("blake2b512").update(bytes).digest() : bytes;
  const fileOk = nacl.sign.detached.verify(new Uint8Array(message), fileSig, pub.key);
  const globalOk = nacl.sign.detached.verify(new Uint8Array(Buffer.concat([Buffer.from(fileSig), Buffer.from(trusted)])), globalSig, pub.key);
  return fileOk && globalOk;
}

describe("Tauri v2 static JSON", () => {
  it("has the documented structure; every platform's minisign signature verifies over the downloaded bytes", async () => {
    const r = await get(feeds.tauri);
    expect(r.status, r.text).toBe(200);
    const body = r.body as { version: string; notes: string; pub_date: string; platforms: Record<string, { signature: string; url: string }> };
    expect(Object.keys(body).sort()).toEqual(["notes", "platforms", "pub_date", "version"]);
    expect(body.version).toBe("1.1.0");
    expect(body.notes).toBe(NOTES);
    expect(body.pub_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/); // RFC 3339
    expect(Object.keys(body.platforms).sort()).toEqual(
      ["darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64"].sort(),
    );
    for (const key of Object.keys(body.platforms)) expect(key).toMatch(/^(linux|darwin|windows)-(x86_64|aarch64|i686|armv7)$/);
    // Only what Tauri installs: on macOS the .app.tar.gz (the universal one serves both architectures), not the zips.
    expect(body.platforms["darwin-aarch64"]!.url).toMatch(/macos-universal-Synth\.app\.tar\.gz$/);
    expect(body.platforms["darwin-x86_64"]!.url).toBe(body.platforms["darwin-aarch64"]!.url);
    expect(body.platforms["windows-x86_64"]!.url).toMatch(/windows-x64-Synth-Setup-x64\.exe$/);
    const pub = minisignPublicKey(keys.minisign[0]!.pubkey);
    for (const [key, entry] of Object.entries(body.platforms)) {
      const bytes = await downloadFrom(entry.url);
      expect(verifyMinisign(entry.signature, bytes, pub), key).toBe(true);
      const flipped = Buffer.from(bytes);
      flipped[7] = (flipped[7] ?? 0) ^ 1;
      expect(verifyMinisign(entry.signature, flipped, pub), key).toBe(false);
    }
    const beta = await get(`${feeds.tauri}?channel=beta`);
    expect(beta.body.version).toBe("1.2.0-beta.1");
    expect(Object.keys(beta.body.platforms)).toEqual(["windows-x86_64"]);
  });
});

describe("feed tokens", () => {
  it("a forged token, another product's plugin_id, or an unknown file is refused without saying why", async () => {
    const token = new URL(feeds.electron).pathname.split("/")[5]!;
    const forged = `${token.split(".")[0]}.${"A".repeat(32)}`;
    expectProblem(await get(feeds.tauri.replace(token, forged)), 404, "license_not_found");
    expectProblem(await get(feeds.tauri.replace(token, "nonsense")), 404, "license_not_found");
    expectProblem(await get(feeds.tauri.replace(`/${fx.pluginId}/`, "/com.other.product/")), 404, "license_not_found");
    expectProblem(await get(`${feeds.electron}/latest-solaris.yml`), 400, "invalid_path");
  });

  it("stops working when the machine is deactivated, also for links from a feed read before", async () => {
    const f = await productWithReleases([{ version: "1.0.0", files: APP }]);
    const c = await licensedMachine(f);
    const urls = await feedsOf(f, c);
    const yml = await get(`${urls.electron}/latest.yml`);
    expect(yml.status).toBe(200);
    const link = /url: (\S+)/.exec(yml.text)![1]!;
    expect((await get(link)).status).toBe(302);
    await deactivateMachine({ license_key: c.key, machine_fingerprint: c.machine });
    expectProblem(await get(`${urls.electron}/latest.yml`), 403, "machine_not_activated");
    expectProblem(await get(urls.sparkle), 403, "machine_not_activated");
    expectProblem(await get(urls.tauri), 403, "machine_not_activated");
    expectProblem(await get(link), 403, "machine_not_activated");
  });

  it("stops working when the license is revoked or refunded", async () => {
    const f = await productWithReleases([{ version: "1.0.0", files: APP }]);
    for (const [revocation, code] of [
      ["seller", "license_revoked"],
      ["refunded", "license_refunded"],
    ] as const) {
      const c = await licensedMachine(f);
      const urls = await feedsOf(f, c);
      const link = /url: (\S+)/.exec((await get(`${urls.electron}/latest.yml`)).text)![1]!;
      await getDb().license.update({ where: { key: c.key }, data: { isActive: false, revocation } });
      expectProblem(await get(`${urls.electron}/latest.yml`), 403, code);
      expectProblem(await get(urls.tauri), 403, code);
      expectProblem(await get(link), 403, code);
    }
  });

  it("a feed's link to a build outside the license's entitlement is refused", async () => {
    const f = await productWithReleases(
      [
        { version: "1.0.0", files: APP, publishedDaysAgo: 100 },
        { version: "2.0.0", files: APP },
      ],
      { updatePolicy: "days", updateDays: 10 },
    );
    const c = await licensedMachine(f, { issuedDaysAgo: 100 });
    const urls = await feedsOf(f, c);
    expect((await get(urls.tauri)).body.version).toBe("1.0.0");
    const newer = f.artifacts.get("2.0.0")!.get("Synth-x86_64.AppImage")!;
    expectProblem(await get(`${urls.electron}/artifacts/${newer}`), 403, "release_not_entitled");
    expectProblem(await get(`${urls.electron}/artifacts/nosuchartifact`), 404, "artifact_not_found");
  });
});
