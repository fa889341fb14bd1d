import { Readable } from "node:stream";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as checkRoute } from "@/app/api/updates/[plugin_id]/route";
import { GET as fileRoute } from "@/app/api/updates/[plugin_id]/feeds/[token]/[file]/route";
import { GET as tauriRoute } from "@/app/api/updates/[plugin_id]/feeds/[token]/tauri.json/route";
import { LicenseDownloads, leadingRelease } from "@/components/licenses/license-downloads";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { flushValidations } from "@/lib/licensing/validation-log";
import { ingestArtifact } from "@/lib/releases/ingest";
import { createRelease, publishRelease, yankRelease } from "@/lib/releases/manage";
import { createEndpoint, createEndpointInputSchema } from "@/lib/seller-webhooks/endpoints";
import { SELLER_EVENT_TYPES } from "@/lib/seller-webhooks/events";
import { licenseDownloads } from "@/lib/updates/downloads";
import { call } from "../helpers/http";
import { dropTempUploads, licensedMachine, productWithReleases, useTempUploads } from "./updates.fixtures";

/**
 * The release rules of issue 34 item 10: the `release.yanked` seller event (queued with the yank, `format` null for an
 * application as in the API), reserved Windows names and plugin formats on applications refused, versions taken only
 * as sent, update checks and feed fetches counted as the machine's "last seen" with its app version, a platform with
 * no build told apart from "up to date", and a buyer's downloads led by the newest stable release, never a beta.
 */

const saved = process.env.WEBHOOK_ALLOW_PRIVATE;
beforeAll(async () => {
  await useTempUploads();
  process.env.WEBHOOK_ALLOW_PRIVATE = "on";
  resetEnv();
});
afterAll(async () => {
  if (saved === undefined) delete process.env.WEBHOOK_ALLOW_PRIVATE;
  else process.env.WEBHOOK_ALLOW_PRIVATE = saved;
  await dropTempUploads();
  await disconnectDb();
});

const APP = { platform: "windows-x64", filename: "Synth-Setup.exe" };
const VST3 = { platform: "windows-x64", format: "vst3", filename: "Synth-VST3.zip" };
const exe = () => Buffer.concat([Buffer.from("MZ"), Buffer.alloc(1022, 7)]);
const zip = () => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(1020, 7)]);

describe("release events", () => {
  it("yanking queues one release.yanked event; application artifacts have format null in release webhooks", async () => {
    const fx = await productWithReleases([]);
    await createEndpoint(
      fx.devId,
      createEndpointInputSchema.parse({ url: "http://127.0.0.1:9/hook", events: ["release.published", "release.yanked"] }),
    );
    await createRelease(fx.devId, fx.productId, { version: "1.0.0" });
    for (const f of [APP, VST3]) {
      const bytes = f.filename.endsWith(".exe") ? exe() : zip();
      await ingestArtifact(fx.devId, fx.productId, "1.0.0", { ...f, stream: Readable.from([bytes]), contentLength: bytes.length });
    }
    await publishRelease(fx.devId, fx.productId, "1.0.0");
    await yankRelease(fx.devId, fx.productId, "1.0.0");
    await yankRelease(fx.devId, fx.productId, "1.0.0"); // idempotent: no second event
    expect(SELLER_EVENT_TYPES).toContain("release.yanked");
    const rows = await getDb().webhookDelivery.findMany({
      where: { kind: "seller", payload: { contains: fx.productId } },
      orderBy: { createdAt: "asc" },
    });
    expect(rows.map((r) => r.eventType)).toEqual(["release.published", "release.yanked"]);
    const [published, yanked] = rows.map((r) => JSON.parse(r.payload) as { type: string; data: any });
    const formats = (d: any) => (d.release.artifacts as Array<{ format: string | null }>).map((a) => a.format).sort();
    expect(formats(published!.data)).toEqual([null, "vst3"]);
    expect(formats(yanked!.data)).toEqual([null, "vst3"]);
    expect(yanked!.type).toBe("release.yanked");
    expect(yanked!.data.release).toMatchObject({ version: "1.0.0", yanked_at: expect.any(String), published_at: expect.any(String) });
    expect(yanked!.data.product).toMatchObject({ id: fx.productId, plugin_id: fx.pluginId });
  });
});

describe("artifact and version rules", () => {
  const upload = (fx: { devId: string; productId: string }, version: string, f: { platform: string; format?: string; filename: string }) => {
    const bytes = /\.zip$/i.test(f.filename) ? zip() : exe();
    return ingestArtifact(fx.devId, fx.productId, version, { ...f, stream: Readable.from([bytes]), contentLength: bytes.length });
  };

  it("refuses file names Windows reserves for devices, with any extension, case, or trailing dots and spaces", async () => {
    const fx = await productWithReleases([]);
    await createRelease(fx.devId, fx.productId, { version: "1.0.0" });
    for (const filename of ["CON.exe", "nul.zip", "Com1.exe", "LPT9.zip", "aux.tar.gz", "PRN .exe", "con.setup.exe", "COM1.dll", "LPT1.txt"]) {
      await expect(upload(fx, "1.0.0", { platform: "windows-x64", filename }), filename).rejects.toMatchObject({
        code: "invalid_filename",
        status: 400,
      });
    }
    await expect(upload(fx, "1.0.0", { platform: "windows-x64", filename: "CON.exe.blockmap" })).rejects.toMatchObject({ code: "invalid_filename" });
    // Names that only start like a device are fine.
    for (const filename of ["Console.exe", "CONNECT.zip", "com10-setup.msi".replace(".msi", ".exe")]) {
      await expect(upload(fx, "1.0.0", { platform: "windows-x64", filename })).resolves.toMatchObject({ filename });
      await getDb().artifact.deleteMany({ where: { filename } });
    }
  });

  it("refuses plugin formats on a product that is not an audio plugin", async () => {
    const fx = await productWithReleases([]);
    await getDb().product.update({ where: { id: fx.productId }, data: { category: "desktop-apps" } });
    await createRelease(fx.devId, fx.productId, { version: "1.0.0" });
    await expect(upload(fx, "1.0.0", VST3)).rejects.toMatchObject({ code: "invalid_format", status: 400 });
    await expect(upload(fx, "1.0.0", APP)).resolves.toMatchObject({ format: null });
    await getDb().product.update({ where: { id: fx.productId }, data: { category: "audio-plugins" } });
    await expect(upload(fx, "1.0.0", VST3)).resolves.toMatchObject({ format: "vst3" });
  });

  it("takes a version only as sent: spaces around it are refused with a clear problem, not trimmed", async () => {
    const fx = await productWithReleases([]);
    for (const version of [" 1.2.3", "1.2.3 ", "\t1.2.3"]) {
      await expect(createRelease(fx.devId, fx.productId, { version }), JSON.stringify(version)).rejects.toMatchObject({
        code: "invalid_version",
        status: 400,
        message: expect.stringContaining("spaces around it"),
      });
    }
    await expect(createRelease(fx.devId, fx.productId, { version: "1.2.3" })).resolves.toMatchObject({ version: "1.2.3" });
  });
});

describe("update checks and feeds", () => {
  it("count as the machine's last seen, with the app version they report (written once per new version)", async () => {
    const fx = await productWithReleases([{ version: "1.0.0", files: [APP] }]);
    const m = await licensedMachine(fx);
    const activation = () => getDb().activation.findFirstOrThrow({ where: { license: { key: m.key } } });
    await getDb().activation.updateMany({ where: { license: { key: m.key } }, data: { lastValidatedAt: null, appVersion: null } });
    await flushValidations();
    const headers = { "x-license-key": m.key, "x-machine-fingerprint": m.machine };
    const r = await call(checkRoute, `/api/updates/${fx.pluginId}?platform=windows-x64&version=0.9.0`, {
      params: { plugin_id: fx.pluginId },
      headers,
    });
    expect(r.status, r.text).toBe(200);
    expect((await activation()).lastValidatedAt).toBeNull(); // buffered, as /validate's
    await flushValidations();
    const seen = await activation();
    expect(seen.lastValidatedAt).not.toBeNull();
    expect(seen.appVersion).toBe("0.9.0");

    const [, token] = /\/feeds\/([^/]+)$/.exec(r.body.feeds.electron as string) ?? [];
    await getDb().activation.update({ where: { id: seen.id }, data: { lastValidatedAt: null } });
    const feed = await call(fileRoute, `/api/updates/${fx.pluginId}/feeds/${token}/latest.yml?version=1.0.0`, {
      params: { plugin_id: fx.pluginId, token: token!, file: "latest.yml" },
    });
    expect(feed.status, feed.text).toBe(200);
    await flushValidations();
    expect(await activation()).toMatchObject({ appVersion: "1.0.0", lastValidatedAt: expect.any(Date) });

    await getDb().activation.update({ where: { id: seen.id }, data: { lastValidatedAt: null } });
    const tauri = await call(tauriRoute, `/api/updates/${fx.pluginId}/feeds/${token}/tauri.json`, {
      params: { plugin_id: fx.pluginId, token: token! },
    });
    expect(tauri.status, tauri.text).toBe(200);
    await flushValidations();
    // Without a version the stored one stays.
    expect(await activation()).toMatchObject({ appVersion: "1.0.0", lastValidatedAt: expect.any(Date) });
  });

  it("answer no_build_for_platform, not up_to_date, when releases exist but none for the platform", async () => {
    const fx = await productWithReleases([{ version: "1.0.0", files: [APP] }]);
    const m = await licensedMachine(fx);
    const check = (q: string) =>
      call(checkRoute, `/api/updates/${fx.pluginId}?${q}`, {
        params: { plugin_id: fx.pluginId },
        headers: { "x-license-key": m.key, "x-machine-fingerprint": m.machine },
      });
    const linux = await check("platform=linux-x64&version=1.0.0");
    expect(linux.status).toBe(200);
    expect(linux.body).toMatchObject({ status: "no_build_for_platform", latest: null });
    const windows = await check("platform=windows-x64&version=1.0.0");
    expect(windows.body).toMatchObject({ status: "up_to_date", latest: { version: "1.0.0" } });
    expect((await check("platform=windows-x64&version=0.9.0")).body.status).toBe("update_available");
    const none = await productWithReleases([]);
    const n = await licensedMachine(none);
    const empty = await call(checkRoute, `/api/updates/${none.pluginId}?platform=linux-x64`, {
      params: { plugin_id: none.pluginId },
      headers: { "x-license-key": n.key, "x-machine-fingerprint": n.machine },
    });
    expect(empty.body).toMatchObject({ status: "up_to_date", latest: null });
  });
});

describe("a buyer's downloads", () => {
  it("lead with the newest stable release; a newer beta is offered apart, never first", async () => {
    const fx = await productWithReleases([
      { version: "1.0.0", files: [APP], publishedDaysAgo: 20 },
      { version: "1.1.0", files: [APP], publishedDaysAgo: 10 },
      { version: "1.2.0-beta.1", channel: "beta", files: [APP], publishedDaysAgo: 1 },
    ]);
    const m = await licensedMachine(fx);
    const downloads = await licenseDownloads(m.license.id);
    expect(downloads.releases.map((r) => r.version)).toEqual(["1.2.0-beta.1", "1.1.0", "1.0.0"]);
    const { lead, betas, older } = leadingRelease(downloads.releases);
    expect([lead?.version, betas.map((r) => r.version), older.map((r) => r.version)]).toEqual(["1.1.0", ["1.2.0-beta.1"], ["1.0.0"]]);
    const html = renderToStaticMarkup(LicenseDownloads({ downloads, productName: "Synth", productPage: "/p", idPrefix: "order", now: Date.now() }));
    const first = /Version ([0-9A-Za-z.-]+)/.exec(html)?.[1];
    expect(first).toBe("1.1.0");
    expect(html).toContain('data-testid="beta-downloads"');
    expect(html.indexOf("1.2.0-beta.1")).toBeGreaterThan(html.indexOf("Version 1.1.0"));
    // Only betas: the newest beta leads (there is nothing else to offer).
    expect(
      leadingRelease([
        { channel: "beta", v: 2 },
        { channel: "beta", v: 1 },
      ]).lead,
    ).toEqual({ channel: "beta", v: 2 });
    expect(leadingRelease([]).lead).toBeUndefined();
  });
});
