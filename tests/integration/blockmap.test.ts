import { EventEmitter } from "node:events";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@/lib/db";
import { ingestArtifact, sweepOrphanArtifacts } from "@/lib/releases/ingest";
import { createRelease, deleteArtifact, publishRelease } from "@/lib/releases/manage";
import { objectStore } from "@/lib/storage";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { blockmapFile, blockmapOf } from "../helpers/blockmap";
import { expectProblem } from "../helpers/http";
import { dropTempUploads, licensedMachine, productWithReleases, useTempUploads, type Fixture } from "./updates.fixtures";

/**
 * electron-updater's blockmap path, run with electron-updater's own NsisUpdater (its GenericProvider, the
 * differential downloader and its fallback to a full download) against the service over HTTP, counting the bytes
 * each update moves:
 *
 * - without blockmaps, the "<download URL>.blockmap" electron-updater asks for first is 404 (not the installer), so it
 *   falls back and fetches the installer exactly once;
 * - with the seller's blockmaps of the old and new installer, it fetches only the blocks that changed.
 *
 * The blockmaps are made by tests/helpers/blockmap.ts (builder-util-runtime's format; app-builder-bin is not
 * installed). The only stand-ins are the Electron parts: an AppAdapter, the platform reported as win32, and an HTTP
 * executor on node:http that follows redirects as Electron's net module does.
 */

const require = createRequire(import.meta.url);
interface Updater {
  httpExecutor: unknown;
  logger: unknown;
  autoInstallOnAppQuit: boolean;
  setFeedURL(options: { provider: "generic"; url: string; useMultipleRangeRequest?: boolean }): void;
  checkForUpdates(): Promise<{ updateInfo: { version: string }; downloadPromise: Promise<string[]> | null } | null>;
}
const { NsisUpdater } = require("electron-updater/out/NsisUpdater") as {
  NsisUpdater: new (options: null, app: unknown) => Updater & { createProviderRuntimeOptions(): Record<string, unknown> };
};
const { ElectronHttpExecutor } = require("electron-updater/out/electronHttpExecutor") as {
  ElectronHttpExecutor: new (login: null) => object;
};

interface Hit {
  path: string;
  status: number;
  bytes: number;
  range: string | null;
}

type RequestOptions = {
  protocol: string;
  hostname: string;
  port?: string | number | null;
  path: string;
  method?: string;
  headers?: OutgoingHttpHeaders;
};

/** electron-updater's executor with Electron's net request replaced by node:http, following redirects as net does; logs every response. */
function executor(log: Hit[]): object {
  class NodeNetExecutor extends ElectronHttpExecutor {
    createRequest(options: RequestOptions, callback: (response: IncomingMessage) => void) {
      const req = new EventEmitter() as EventEmitter & { end(): void; abort(): void; followRedirect(): void };
      let current: ClientRequest | undefined;
      const go = (opts: RequestOptions, hops: number) => {
        const base = `${opts.protocol}//${opts.hostname}${opts.port ? `:${opts.port}` : ""}`;
        const url = new URL(opts.path, base);
        const headers = opts.headers ?? {};
        const range = (headers.range ?? headers.Range ?? null) as string | null;
        current = httpRequest(
          { protocol: opts.protocol, hostname: opts.hostname, port: opts.port ?? undefined, path: opts.path, method: opts.method ?? "GET", headers },
          (res) => {
            const status = res.statusCode ?? 0;
            const hit: Hit = { path: decodeURIComponent(url.pathname), status, bytes: 0, range };
            log.push(hit);
            if (status >= 300 && status < 400 && res.headers.location && hops < 5) {
              res.resume();
              const next = new URL(res.headers.location, url);
              go({ ...opts, protocol: next.protocol, hostname: next.hostname, port: next.port, path: `${next.pathname}${next.search}` }, hops + 1);
              return;
            }
            res.on("data", (chunk: Buffer) => {
              hit.bytes += chunk.length;
            });
            callback(res);
          },
        );
        current.on("error", (error) => req.emit("error", error));
        current.end();
      };
      req.end = () => go(options, 0);
      req.abort = () => current?.destroy();
      req.followRedirect = () => undefined;
      return req;
    }
  }
  return new NodeNetExecutor(null);
}

/** An installed app at `version` on Windows whose NSIS install left `installer` in the updater's cache, as electron-builder's installer does. */
async function installedApp(version: string, installer: Buffer) {
  const dir = await mkdtemp(join(tmpdir(), "ilm-electron-app-"));
  const cacheDir = join(dir, "cache", "synth-updater");
  await mkdir(cacheDir, { recursive: true });
  await writeFile(join(cacheDir, "installer.exe"), installer);
  await writeFile(join(dir, "app-update.yml"), "provider: generic\nurl: https://unused.invalid\nupdaterCacheDirName: synth-updater\n");
  const app = {
    version,
    name: "Synth",
    isPackaged: true,
    appUpdateConfigPath: join(dir, "app-update.yml"),
    userDataPath: join(dir, "user-data"),
    baseCachePath: join(dir, "cache"),
    whenReady: () => Promise.resolve(),
    relaunch: () => undefined,
    quit: () => undefined,
    onQuit: () => undefined,
  };
  return { dir, app };
}

/** electron-updater's NsisUpdater, told it runs on Windows; `useMultipleRangeRequest: false` as the README says for this service. */
function windowsUpdater(app: unknown, feed: string, log: Hit[]): Updater {
  class WindowsUpdater extends NsisUpdater {
    createProviderRuntimeOptions() {
      return { ...super.createProviderRuntimeOptions(), platform: "win32" };
    }
  }
  const u = new WindowsUpdater(null, app);
  u.httpExecutor = executor(log);
  u.logger = null;
  u.autoInstallOnAppQuit = false;
  u.setFeedURL({ provider: "generic", url: feed, useMultipleRangeRequest: false });
  return u;
}

/** Installer bytes: a PE header, then `size` bytes of a fixed pseudo-random stream. */
function installerBytes(size: number, seed: number): Buffer {
  const out = Buffer.alloc(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  out.write("MZ", 0, "latin1");
  return out;
}

const OLD = installerBytes(640 * 1024, 7);
/** The new version: the old one with 24 KiB rewritten in the middle and 3 KiB inserted near the end. */
const NEW = (() => {
  const changed = Buffer.from(OLD);
  installerBytes(24 * 1024, 99).copy(changed, 300_000);
  return Buffer.concat([changed.subarray(0, 560_000), installerBytes(3 * 1024, 1234), changed.subarray(560_000)]);
})();

let server: AppServer;
const temps: string[] = [];

beforeAll(async () => {
  await useTempUploads();
  server = await startAppServer();
});
afterAll(async () => {
  await server.close();
  for (const t of temps) await rm(t, { recursive: true, force: true });
  await dropTempUploads();
  await disconnectDb();
});

/** Uploads one file of a draft release through the seller's ingest, as the PUT endpoint does. */
const upload = (fx: Fixture, version: string, filename: string, bytes: Buffer) =>
  ingestArtifact(fx.devId, fx.productId, version, {
    platform: "windows-x64",
    format: "",
    filename,
    stream: Readable.from([bytes]),
    contentLength: bytes.length,
  });

/** A product with 1.0.0 and 1.1.0 Windows installers (and their blockmaps when `blockmaps`), a license on a machine, its electron feed URL. */
async function product(blockmaps: boolean) {
  const fx = await productWithReleases([]);
  for (const [version, bytes] of [
    ["1.0.0", OLD],
    ["1.1.0", NEW],
  ] as const) {
    await createRelease(fx.devId, fx.productId, { version });
    await upload(fx, version, `Synth-Setup-${version}.exe`, bytes);
    if (blockmaps) await upload(fx, version, `Synth-Setup-${version}.exe.blockmap`, blockmapFile(bytes));
    await publishRelease(fx.devId, fx.productId, version);
  }
  const machine = await licensedMachine(fx);
  const check = await server.get(`/api/updates/${fx.pluginId}?platform=windows-x64&version=1.0.0`, {
    "x-license-key": machine.key,
    "x-machine-fingerprint": machine.machine,
  });
  expect(check.status, check.text).toBe(200);
  return { fx, feed: check.body.feeds.electron as string };
}

/** Runs electron-updater's check and download as an installed 1.0.0; the traffic and the file it produced. */
async function update(feed: string) {
  const { dir, app } = await installedApp("1.0.0", OLD);
  temps.push(dir);
  const log: Hit[] = [];
  const u = windowsUpdater(app, feed, log);
  const result = await u.checkForUpdates();
  expect(result?.updateInfo.version).toBe("1.1.0");
  const [file] = (await result?.downloadPromise) ?? [];
  expect(file).toBeDefined();
  const installerHits = log.filter((h) => h.path.startsWith("/api/files/") && h.path.endsWith(".exe"));
  return {
    log,
    bytes: await readFile(file ?? ""),
    installerHits,
    installerBytes: installerHits.reduce((n, h) => n + h.bytes, 0),
    blockmapAsks: log.filter((h) => h.path.includes("/feeds/") && h.path.endsWith(".blockmap")),
  };
}

describe("electron-updater's NsisUpdater against the feeds", () => {
  it("without blockmaps: the .blockmap link is 404, so the installer is fetched exactly once, in full", async () => {
    const { feed } = await product(false);
    const run = await update(feed);
    expect(run.bytes.equals(NEW)).toBe(true);
    // electron-updater asked for the new installer's blockmap, got 404 and fell back once.
    expect(run.blockmapAsks.map((h) => h.status)).toEqual([404]);
    expect(run.installerHits.map((h) => [h.status, h.range])).toEqual([[200, null]]);
    expect(run.installerBytes).toBe(NEW.length);
  });

  it("with the seller's blockmaps: the differential download fetches only the changed blocks", async () => {
    const { feed } = await product(true);
    const run = await update(feed);
    expect(run.bytes.equals(NEW)).toBe(true);
    // The new blockmap at <URL>.blockmap, then the old one at the URL with 1.0.0 for 1.1.0: both redirected to the files.
    expect(run.blockmapAsks.map((h) => [h.path.replace(/^.*\//, ""), h.status])).toEqual([
      ["windows-x64-Synth-Setup-1.1.0.exe.blockmap", 302],
      ["windows-x64-Synth-Setup-1.0.0.exe.blockmap", 302],
    ]);
    // Only ranges of the installer, never the whole file; exactly the bytes of the blocks the old installer lacks.
    expect(run.installerHits.length).toBeGreaterThan(0);
    expect(run.installerHits.every((h) => h.status === 206 && h.range !== null)).toBe(true);
    const old = new Set(blockmapOf(OLD).files[0]?.checksums);
    const fresh = blockmapOf(NEW).files[0]!;
    const changed = fresh.sizes.reduce((n, size, i) => n + (old.has(fresh.checksums[i] ?? "") ? 0 : size), 0);
    expect(run.installerBytes).toBe(changed);
    expect(changed).toBeLessThan(NEW.length / 4);
    expect(changed).toBeGreaterThanOrEqual(24 * 1024 + 3 * 1024);
  });
});

describe("feed links by name", () => {
  it("answer the build only under its own name; its blockmap under name + .blockmap; anything else is a 404 problem", async () => {
    const { fx, feed } = await product(true);
    const row = await getDb().artifact.findFirstOrThrow({ where: { release: { productId: fx.productId, version: "1.1.0" }, fileType: "exe" } });
    const link = `${feed}/artifacts/${row.id}`;
    const get = (target: string) => server.send(target, { redirect: "manual" });
    const own = await get(`${link}/windows-x64-Synth-Setup-1.1.0.exe`);
    expect(own.status).toBe(302);
    const map = await get(`${link}/windows-x64-Synth-Setup-1.1.0.exe.blockmap`);
    expect(map.status).toBe(302);
    const file = await fetch(map.headers.get("location") ?? "");
    const parsed = JSON.parse(gunzipSync(Buffer.from(await file.arrayBuffer())).toString("utf8")) as { files: Array<{ sizes: number[] }> };
    expect(parsed.files[0]?.sizes.reduce((a, b) => a + b, 0)).toBe(NEW.length);
    for (const name of ["Synth-Setup-1.1.0.exe", "windows-x64-Synth-Setup-1.1.0.exe.sig", "windows-x64-other.exe.blockmap", "latest.yml"]) {
      const r = await get(`${link}/${name}`);
      expectProblem(r, 404, "artifact_not_found");
    }
  });

  it("a blockmap is refused unless it describes an uploaded file of the draft, byte for byte", async () => {
    const fx = await productWithReleases([]);
    await createRelease(fx.devId, fx.productId, { version: "2.0.0" });
    await expect(upload(fx, "2.0.0", "Synth-Setup-2.0.0.exe.blockmap", blockmapFile(NEW))).rejects.toMatchObject({
      code: "blockmap_without_file",
      status: 409,
    });
    await upload(fx, "2.0.0", "Synth-Setup-2.0.0.exe", NEW);
    await expect(upload(fx, "2.0.0", "Synth-Setup-2.0.0.exe.blockmap", blockmapFile(OLD))).rejects.toMatchObject({
      code: "invalid_blockmap",
      status: 422,
    });
    await expect(upload(fx, "2.0.0", "Synth-Setup-2.0.0.exe.blockmap", Buffer.from("not gzip"))).rejects.toMatchObject({ status: 415 });
    const view = await upload(fx, "2.0.0", "Synth-Setup-2.0.0.exe.blockmap", blockmapFile(NEW));
    expect(view).toMatchObject({ filename: "Synth-Setup-2.0.0.exe", size: NEW.length, blockmap_size: blockmapFile(NEW).length });
    await expect(upload(fx, "2.0.0", "Synth-Setup-2.0.0.exe.blockmap", blockmapFile(NEW))).rejects.toMatchObject({
      code: "artifact_exists",
      status: 409,
    });
    // The orphan sweep keeps a blockmap its artifact refers to; deleting the artifact deletes both objects.
    const row = await getDb().artifact.findFirstOrThrow({ where: { id: view.id } });
    expect(row.blockmapKey).not.toBeNull();
    await sweepOrphanArtifacts(0);
    expect(await objectStore().head(row.blockmapKey ?? "")).toMatchObject({ size: blockmapFile(NEW).length });
    await deleteArtifact(fx.devId, fx.productId, "2.0.0", view.id);
    expect(await objectStore().head(row.blockmapKey ?? "")).toBeNull();
    expect(await objectStore().head(row.storageKey)).toBeNull();
  });
});
