import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as checkRoute } from "@/app/api/updates/[plugin_id]/route";
import { GET as namedArtifactRoute } from "@/app/api/updates/[plugin_id]/feeds/[token]/artifacts/[artifact_id]/[name]/route";
import { GET as tauriRoute } from "@/app/api/updates/[plugin_id]/feeds/[token]/tauri.json/route";
import { GET as keysRoute } from "@/app/api/updates/keys/route";
import { disconnectDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { resetObjectStore } from "@/lib/storage";
import { call } from "../helpers/http";
import { startS3Server } from "../helpers/s3-server";
import { licensedMachine, productWithReleases, sha256 } from "./updates.fixtures";

/**
 * The update check and a feed's download on the S3 driver (s3rver, a real S3-compatible server from the npm registry):
 * the URL an app gets is a presigned GET on the bucket, and the bytes fetched from it over HTTP match the SHA-256 and
 * the Ed25519 signature.
 */

let server: Awaited<ReturnType<typeof startS3Server>>;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  server = await startS3Server();
  for (const [k, v] of Object.entries(server.env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  resetEnv();
  resetObjectStore();
}, 60_000);

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();
  resetObjectStore();
  await server.close();
  await disconnectDb();
});

describe("updates on the S3 driver", () => {
  it("answers a presigned bucket URL whose bytes match the hash and signature; a feed's link redirects to one too", async () => {
    const fx = await productWithReleases([
      { version: "1.0.0", files: [{ platform: "windows-x64", filename: "Synth-Setup.exe" }], publishedDaysAgo: 3 },
      { version: "1.1.0", files: [{ platform: "windows-x64", filename: "Synth-Setup.exe" }] },
    ]);
    const creds = await licensedMachine(fx);
    const r = await call(checkRoute, `/api/updates/${fx.pluginId}?version=1.0.0&platform=windows-x64`, {
      params: { plugin_id: fx.pluginId },
      headers: { "x-license-key": creds.key, "x-machine-fingerprint": creds.machine },
    });
    expect(r.status, r.text).toBe(200);
    const a = r.body.latest.artifact;
    expect(r.body.latest.version).toBe("1.1.0");
    expect(a.url.startsWith(`${server.endpoint}/${server.bucket}/artifacts/`)).toBe(true);
    expect(a.url).toContain("X-Amz-Signature=");
    const res = await fetch(a.url);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(sha256(bytes)).toBe(a.sha256);
    expect(bytes.equals(fx.bytes.get("1.1.0/Synth-Setup.exe")!)).toBe(true);
    const keys = (await call(keysRoute, "/api/updates/keys")).body;
    const key = Buffer.from(keys.ed25519[0].public_key_base64, "base64");
    expect(nacl.sign.detached.verify(new Uint8Array(bytes), Buffer.from(a.signature, "base64"), new Uint8Array(key))).toBe(true);

    const token = new URL(r.body.feeds.tauri).pathname.split("/")[5]!;
    const tauri = await call(tauriRoute, new URL(r.body.feeds.tauri).pathname, { params: { plugin_id: fx.pluginId, token } });
    const link = new URL(tauri.body.platforms["windows-x86_64"].url);
    const [, , , , , , , artifact_id = "", name = ""] = link.pathname.split("/");
    const redirect = await call(namedArtifactRoute, link.pathname, { params: { plugin_id: fx.pluginId, token, artifact_id, name } });
    expect(redirect.status, redirect.text).toBe(302);
    const again = await fetch(redirect.headers.get("location")!);
    expect(sha256(Buffer.from(await again.arrayBuffer()))).toBe(a.sha256);
  });
});
