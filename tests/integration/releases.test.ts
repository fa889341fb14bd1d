import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as listPublic } from "@/app/api/marketplace/product/[id]/releases/route";
import { GET as listOwn, POST as createOwn } from "@/app/api/v1/products/[id]/releases/route";
import { DELETE as deleteOwn, PATCH as patchOwn } from "@/app/api/v1/products/[id]/releases/[version]/route";
import { POST as publishOwn } from "@/app/api/v1/products/[id]/releases/[version]/publish/route";
import { POST as yankOwn } from "@/app/api/v1/products/[id]/releases/[version]/yank/route";
import { DELETE as deleteArtifactRoute } from "@/app/api/v1/products/[id]/releases/[version]/artifacts/[artifact_id]/route";
import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { createProduct } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { didDocument } from "@/lib/identity/did";
import { didDocumentKey } from "../helpers/did-keys";
import { signingKeys } from "@/lib/identity/service-keys";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { sweepOrphanArtifacts } from "@/lib/releases/ingest";
import { latestReleases } from "@/lib/releases/read";
import { minisignPublicKey } from "@/lib/releases/sign";
import { objectStore, resetObjectStore } from "@/lib/storage/index";
import { call, expectProblem, type Reply } from "../helpers/http";
import { startLeanServer } from "../helpers/lean-server";
import { sellingDeveloper } from "../helpers/sellers";

/**
 * Releases end to end through the REST handlers: the seller lifecycle (draft, upload, publish, edit, yank, delete),
 * every bad input of the issue (oversized uploads refused while streaming, wrong content, path tricks in names,
 * non-semver and duplicate versions, racing creates and uploads, checksum mismatch) leaving nothing half-stored,
 * and the artifact signatures verified with tweetnacl against did.json and the minisign format.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const saved = { ...process.env };
let lean: Awaited<ReturnType<typeof startLeanServer>>;
let scratch = "";
const seller = { cookie: "", devId: "", product: "" };
const other = { cookie: "", product: "" };

const ZIP = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from(`release bytes ${run} `.repeat(50))]);
const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.from("an AppImage")]);

const productBody = (name: string, pluginId: string) => ({
  name,
  tagline: "A product with releases.",
  description: "A product created by the releases test, with a long enough description to be accepted.",
  plugin_id: pluginId,
  price_cents: 1500,
  category: "audio-plugins",
  max_machines: 2,
  seat_model: "per-machine",
  platforms: ["linux", "windows", "macos"],
  download_url: "https://example.com/download.zip",
  icon_url: "/icons/tape-warmth.svg",
});

async function signedInSeller(tag: string) {
  const email = `releases-${tag}-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Releases ${tag} ${run}`, website: null, bio: "" });
  const product = await createProduct(dev.id, productInputSchema.parse(productBody(`Releases ${tag} ${run}`, `com.releases.${tag}${run}`)), {
    publish: true,
  });
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  return { cookie: `${session.cookieName}=${session.cookieValue}`, devId: dev.id, product: product.id };
}

function setEnv(values: Record<string, string>) {
  Object.assign(process.env, values);
  resetEnv();
  resetObjectStore();
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "releases-test-"));
  // Uploads stream to os.tmpdir(): a private one, so "no temporary file remains" is checkable.
  mkdirSync(join(scratch, "tmp"));
  setEnv({ UPLOAD_DIR: join(scratch, "store"), TMPDIR: join(scratch, "tmp") });
  lean = await startLeanServer();
  Object.assign(seller, await signedInSeller("a"));
  Object.assign(other, await signedInSeller("b"));
});

afterAll(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) Reflect.deleteProperty(process.env, k);
  Object.assign(process.env, saved);
  resetEnv();
  resetObjectStore();
  await lean.close();
  rmSync(scratch, { recursive: true, force: true });
  await disconnectDb();
});

const base = (product = seller.product) => `/api/v1/products/${product}/releases`;
const auth = (cookie = seller.cookie) => ({ cookie });

const create = (body: unknown, who = seller) =>
  call(createOwn, base(who.product), { method: "POST", headers: auth(who.cookie), json: body, params: { id: who.product } });
const patch = (version: string, body: unknown) =>
  call(patchOwn, `${base()}/${version}`, { method: "PATCH", headers: auth(), json: body, params: { id: seller.product, version } });
const publish = (version: string) =>
  call(publishOwn, `${base()}/${version}/publish`, { method: "POST", headers: auth(), params: { id: seller.product, version } });
const yank = (version: string) =>
  call(yankOwn, `${base()}/${version}/yank`, { method: "POST", headers: auth(), params: { id: seller.product, version } });
const remove = (version: string) =>
  call(deleteOwn, `${base()}/${version}`, { method: "DELETE", headers: auth(), params: { id: seller.product, version } });
const listMine = (who: { cookie: string; product: string } = seller) =>
  call(listOwn, base(who.product), { headers: auth(who.cookie), params: { id: who.product } });
const listPublished = (product = seller.product) => call(listPublic, `/api/marketplace/product/${product}/releases`, { params: { id: product } });

/** PUT an artifact through the lean path (as server.ts serves it). */
async function upload(
  version: string,
  query: Record<string, string>,
  body: Buffer | string,
  headers: Record<string, string> = {},
  product = seller.product,
  cookie = seller.cookie,
): Promise<Reply> {
  const qs = new URLSearchParams(query).toString();
  const r = await fetch(`${lean.base}${base(product)}/${encodeURIComponent(version)}/artifacts?${qs}`, {
    method: "PUT",
    headers: { cookie, "content-type": "application/octet-stream", ...headers },
    body: typeof body === "string" ? body : new Uint8Array(body),
  });
  const text = await r.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, headers: r.headers, body: parsed, text };
}

async function storedKeys(product = seller.product): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of objectStore().list(`artifacts/${product}/`)) keys.push(o.key);
  return keys;
}
const tempFiles = () => readdirSync(join(scratch, "tmp")).filter((f) => f.startsWith("ilm-artifact-"));
const artifactRows = (version: string) => getDb().artifact.count({ where: { release: { productId: seller.product, version } } });

describe("the release lifecycle", () => {
  it("creates a draft, uploads artifacts, publishes, edits notes, yanks; the public list shows published releases only", async () => {
    const created = await create({ version: "1.0.0", notes: "First **release**.\n\n<script>alert(1)</script> [site](https://example.com)" });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ version: "1.0.0", channel: "stable", status: "draft", published_at: null, artifacts: [] });
    expect(created.body.notes_html).toContain("<strong>release</strong>");
    expect(created.body.notes_html).not.toContain("<script>");
    expect(created.body.notes_html).toContain('<a href="https://example.com" rel="nofollow ugc">site</a>');

    expect((await listPublished()).body.releases).toEqual([]);
    expectProblem(await publish("1.0.0"), 409, "release_has_no_artifacts");

    const sha = createHash("sha256").update(ZIP).digest("hex");
    const art = await upload("1.0.0", { platform: "windows-x64", filename: "My App 1.0.0 (x64).zip" }, ZIP, { "X-Checksum-SHA256": sha });
    expect(art.status, art.text).toBe(201);
    expect(art.body).toMatchObject({ platform: "windows-x64", format: null, filename: "My App 1.0.0 (x64).zip", size: ZIP.length, sha256: sha });
    expect(art.body.sha512).toBe(createHash("sha512").update(ZIP).digest("base64"));
    const linux = await upload("1.0.0", { platform: "linux-x64", filename: "myapp.AppImage" }, ELF);
    expect(linux.status, linux.text).toBe(201);
    expect(linux.body.content_type).toBe("application/vnd.appimage");
    expect(await storedKeys()).toHaveLength(2);

    const published = await publish("1.0.0");
    expect(published.status, published.text).toBe(200);
    expect(published.body.status).toBe("published");
    expect(published.body.published_at).toEqual(expect.any(String));
    expect(published.body.artifacts).toHaveLength(2);
    // Publishing again changes nothing.
    expect((await publish("1.0.0")).body.published_at).toBe(published.body.published_at);

    // Published: artifacts and channel are frozen, notes are not.
    expectProblem(await upload("1.0.0", { platform: "macos-universal", filename: "app.zip" }, ZIP), 409, "release_not_draft");
    expectProblem(await patch("1.0.0", { channel: "beta" }), 409, "release_not_draft");
    const edited = await patch("1.0.0", { notes: "Fixed notes." });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ notes: "Fixed notes.", status: "published" });
    expectProblem(await remove("1.0.0"), 409, "release_not_draft");
    expectProblem(
      await call(deleteArtifactRoute, `${base()}/1.0.0/artifacts/${art.body.id}`, {
        method: "DELETE",
        headers: auth(),
        params: { id: seller.product, version: "1.0.0", artifact_id: art.body.id },
      }),
      409,
      "release_not_draft",
    );

    // A beta draft and a newer version: newest first by semver, drafts only in the seller's list.
    expect((await create({ version: "1.1.0-beta.1", channel: "beta" })).status).toBe(201);
    expect((await create({ version: "1.0.10" })).status).toBe(201);
    const mine = await listMine();
    expect(mine.body.releases.map((r: { version: string }) => r.version)).toEqual(["1.1.0-beta.1", "1.0.10", "1.0.0"]);
    const pub = await listPublished();
    expect(pub.status, pub.text).toBe(200);
    expect(pub.body.product_id).toBe(seller.product);
    expect(pub.body.releases.map((r: { version: string }) => r.version)).toEqual(["1.0.0"]);

    expectProblem(await yank("1.0.10"), 409, "release_not_published");
    const yanked = await yank("1.0.0");
    expect(yanked.body).toMatchObject({ status: "yanked", yanked_at: expect.any(String) });
    expect((await yank("1.0.0")).status).toBe(200);
    expect((await listPublished()).body.releases).toEqual([]);
    expectProblem(await publish("1.0.0"), 409, "release_yanked");
  });

  it("deletes drafts with their files, and single artifacts of drafts", async () => {
    expect((await create({ version: "5.0.0" })).status).toBe(201);
    const a = await upload(
      "5.0.0",
      { platform: "macos-universal", filename: "app.dmg" },
      Buffer.concat([Buffer.alloc(1000, 7), Buffer.from("koly"), Buffer.alloc(508)]),
    );
    expect(a.status, a.text).toBe(201);
    const b = await upload("5.0.0", { platform: "macos-universal", format: "vst3", filename: "plugin.vst3.zip" }, ZIP);
    expect(b.status, b.text).toBe(201);
    const keysBefore = await storedKeys();
    const rows = await getDb().artifact.findMany({ where: { id: { in: [a.body.id, b.body.id] } } });
    const del = await call(deleteArtifactRoute, `${base()}/5.0.0/artifacts/${a.body.id}`, {
      method: "DELETE",
      headers: auth(),
      params: { id: seller.product, version: "5.0.0", artifact_id: a.body.id },
    });
    expect(del.status, del.text).toBe(200);
    expect(await objectStore().head(rows.find((r) => r.id === a.body.id)!.storageKey)).toBeNull();
    expect((await storedKeys()).length).toBe(keysBefore.length - 1);
    const gone = await remove("5.0.0");
    expect(gone.status, gone.text).toBe(200);
    expect(await objectStore().head(rows.find((r) => r.id === b.body.id)!.storageKey)).toBeNull();
    expect(await getDb().release.count({ where: { productId: seller.product, version: "5.0.0" } })).toBe(0);
    expectProblem(await remove("5.0.0"), 404, "release_not_found");
  });

  it("keeps sellers apart: another seller's product is 404 everywhere", async () => {
    expectProblem(await create({ version: "1.0.0" }, { ...seller, product: other.product }), 404, "product_not_found");
    expectProblem(await listMine({ ...other, product: seller.product }), 404, "product_not_found");
    expectProblem(
      await upload("1.0.10", { platform: "linux-x64", filename: "a.zip" }, ZIP, {}, seller.product, other.cookie),
      404,
      "product_not_found",
    );
    const anonymous = await call(listOwn, base(), { params: { id: seller.product } });
    expect(anonymous.status).toBe(401);
    expectProblem(await listPublished("no-such-product"), 404, "product_not_found");
  });
});

describe("versions", () => {
  it.each([
    ["v1.0.0", /without the leading "v": 1\.0\.0/],
    ["1.0", /not a semantic version/],
    ["01.0.0", /not a semantic version/],
    ["1.0.0+build.5", /Build metadata/],
    ["1.0.0-", /not a semantic version/],
    ["one", /not a semantic version/],
    ["", /required/],
  ])("refuses %j with 400 invalid_version", async (version, detail) => {
    const r = await create({ version });
    expectProblem(r, 400, "invalid_version");
    expect(r.body.detail).toMatch(detail);
  });

  it("refuses a version longer than 64 characters", async () => {
    expect((await create({ version: `1.0.0-${"a".repeat(70)}` })).status).toBe(400);
  });

  it("refuses a duplicate version with 409 release_exists", async () => {
    expect((await create({ version: "7.0.0" })).status).toBe(201);
    expectProblem(await create({ version: "7.0.0" }), 409, "release_exists");
  });

  it("lets exactly one of five racing creates of one version win", async () => {
    const replies = await Promise.all(Array.from({ length: 5 }, () => create({ version: "8.0.0" })));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const r of replies.filter((x) => x.status === 409)) expect(r.body.code).toBe("release_exists");
    expect(await getDb().release.count({ where: { productId: seller.product, version: "8.0.0" } })).toBe(1);
  });
});

describe("racing publishes of one version", () => {
  it("publish once: every racer gets the same published release", async () => {
    expect((await create({ version: "12.0.0" })).status).toBe(201);
    expect((await upload("12.0.0", { platform: "linux-x64", filename: "app.zip" }, ZIP)).status).toBe(201);
    const replies = await Promise.all(Array.from({ length: 5 }, () => publish("12.0.0")));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(replies.map((r) => r.body.published_at)).size).toBe(1);
    const row = await getDb().release.findFirstOrThrow({ where: { productId: seller.product, version: "12.0.0" } });
    expect(row.publishedAt?.toISOString()).toBe(replies[0]!.body.published_at);
  });
});

describe("latest releases for listings", () => {
  it("is the newest published stable release by semver; beta, draft and yanked releases don't count", async () => {
    expect((await create({ version: "13.0.0-beta.1", channel: "beta" })).status).toBe(201);
    expect((await upload("13.0.0-beta.1", { platform: "linux-x64", filename: "app.zip" }, ZIP)).status).toBe(201);
    expect((await publish("13.0.0-beta.1")).status).toBe(200);
    const latest = await latestReleases([seller.product, other.product, seller.product]);
    expect([...latest.keys()]).toEqual([seller.product]);
    expect(latest.get(seller.product)).toEqual({ version: "12.0.0", published_at: expect.any(String) });
    expect((await listPublished()).body.releases.map((r: { version: string }) => r.version)).toEqual(["13.0.0-beta.1", "12.0.0"]);
  });
});

describe("bad artifacts leave nothing behind", () => {
  beforeAll(async () => {
    expect((await create({ version: "9.0.0" })).status).toBe(201);
  });

  async function expectNothingStored() {
    expect(await artifactRows("9.0.0")).toBe(0);
    // The file name, not the whole key: a key's random hex part can spell "bad".
    expect((await storedKeys()).filter((k) => k.slice(k.lastIndexOf("/") + 1).includes("bad"))).toEqual([]);
    expect(tempFiles()).toEqual([]);
  }

  it.each([
    ["../bad.zip"],
    ["a/bad.zip"],
    ["..\\bad.zip"],
    ["bad\u0000.zip"],
    [`${"b".repeat(117)}.zip`],
    [".bad.zip"],
    ["bad..zip"],
    ["bad.exe"],
    ["bad"],
    [".zip"],
    ["bad.zip "],
  ])("refuses the filename %j with 400", async (filename) => {
    const r = await upload("9.0.0", { platform: "linux-x64", filename }, ZIP);
    expect(r.status, r.text).toBe(400);
    // Control characters and over-long names are refused by the query's schema already (invalid_query), the rest by the artifact rules.
    expect(r.body.code).toMatch(/^invalid_(filename|query)$/);
    await expectNothingStored();
  });

  it("refuses unknown platforms and formats, and formats a platform does not have", async () => {
    expect((await upload("9.0.0", { platform: "amiga", filename: "bad.zip" }, ZIP)).status).toBe(400);
    expect((await upload("9.0.0", { platform: "linux-x64", format: "rtas", filename: "bad.zip" }, ZIP)).status).toBe(400);
    expectProblem(await upload("9.0.0", { platform: "windows-x64", format: "au", filename: "bad.zip" }, ZIP), 400, "invalid_format");
    await expectNothingStored();
  });

  it("refuses content that does not match the extension with 415", async () => {
    expectProblem(await upload("9.0.0", { platform: "linux-x64", filename: "bad.zip" }, "plain text, not a zip"), 415, "artifact_content_mismatch");
    expectProblem(await upload("9.0.0", { platform: "windows-x64", filename: "bad.exe" }, ZIP), 415, "artifact_content_mismatch");
    expectProblem(await upload("9.0.0", { platform: "macos-x64", filename: "bad.dmg" }, ZIP), 415, "artifact_content_mismatch");
    expectProblem(await upload("9.0.0", { platform: "linux-x64", filename: "bad.deb" }, ELF), 415, "artifact_content_mismatch");
    await expectNothingStored();
  });

  it("refuses an empty body, and a checksum mismatch with 422", async () => {
    expectProblem(await upload("9.0.0", { platform: "linux-x64", filename: "bad.zip" }, Buffer.alloc(0)), 400, "artifact_empty");
    expectProblem(
      await upload("9.0.0", { platform: "linux-x64", filename: "bad.zip" }, ZIP, { "X-Checksum-SHA256": "0".repeat(64) }),
      422,
      "artifact_checksum_mismatch",
    );
    expectProblem(
      await upload("9.0.0", { platform: "linux-x64", filename: "bad.zip" }, ZIP, { "X-Checksum-SHA256": "xyz" }),
      400,
      "invalid_checksum",
    );
    await expectNothingStored();
  });

  it("refuses a declared Content-Length over ARTIFACT_MAX_MB at once", async () => {
    setEnv({ ARTIFACT_MAX_MB: "1" });
    try {
      const r = await rawPut("9.0.0", "bad.zip", { "content-length": String(3 * 1024 * 1024) }, async () => {});
      expect(r.status).toBe(413);
      expect(JSON.parse(r.text).code).toBe("artifact_too_large");
    } finally {
      setEnv({ ARTIFACT_MAX_MB: "512" });
    }
    await expectNothingStored();
  });

  it("refuses an oversized upload while it streams, before the client has finished sending", async () => {
    setEnv({ ARTIFACT_MAX_MB: "1" });
    let finished = false;
    try {
      const chunk = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(64 * 1024 - 4, 1)]);
      const r = await rawPut("9.0.0", "bad.zip", { "transfer-encoding": "chunked" }, async (write, stopped) => {
        // 3 MB in 48 chunks of 64 KB, 25 ms apart: over a second of sending.
        for (let i = 0; i < 48 && !stopped(); i++) {
          await write(chunk);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        finished = !stopped();
      });
      expect(r.status, r.text).toBe(413);
      expect(JSON.parse(r.text).code).toBe("artifact_too_large");
      expect(r.sentBytes).toBeLessThan(3 * 1024 * 1024);
      expect(r.sentBytes).toBeGreaterThan(1024 * 1024);
      expect(finished).toBe(false);
    } finally {
      setEnv({ ARTIFACT_MAX_MB: "512" });
    }
    // The refused upload's clean-up may still be finishing after the answer: waited for, not slept on.
    await vi.waitFor(expectNothingStored, { timeout: 5_000, interval: 20 });
  });
});

/**
 * A PUT with node:http, so the test sees the answer arrive while it is still sending: `send` writes the body with
 * `write` until `stopped()` (the answer came or the connection closed).
 */
function rawPut(
  version: string,
  filename: string,
  headers: Record<string, string>,
  send: (write: (b: Buffer) => Promise<void>, stopped: () => boolean) => Promise<void>,
): Promise<{ status: number; text: string; sentBytes: number }> {
  const url = new URL(`${lean.base}${base()}/${version}/artifacts?platform=linux-x64&filename=${encodeURIComponent(filename)}`);
  return new Promise((resolve, reject) => {
    let sentBytes = 0;
    let done = false;
    const req = httpRequest(url, { method: "PUT", headers: { cookie: seller.cookie, ...headers } }, (res) => {
      done = true;
      const sentAtAnswer = sentBytes;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), sentBytes: sentAtAnswer });
        req.destroy();
      });
    });
    req.on("error", (e) => {
      if (!done) reject(e);
    });
    const write = (b: Buffer) =>
      new Promise<void>((ok) => {
        if (done || req.destroyed) {
          ok();
          return;
        }
        sentBytes += b.length;
        req.write(b, () => ok());
      });
    void send(write, () => done || req.destroyed).then(() => {
      if (!done && !req.destroyed) req.end();
    });
  });
}

describe("racing uploads of one platform", () => {
  it("stores one: one 201, one 409 artifact_exists, exactly one object", async () => {
    expect((await create({ version: "10.0.0" })).status).toBe(201);
    const before = await storedKeys();
    const replies = await Promise.all([
      upload("10.0.0", { platform: "linux-arm64", filename: "one.zip" }, ZIP),
      upload("10.0.0", { platform: "linux-arm64", filename: "two.zip" }, ZIP),
    ]);
    expect(replies.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(replies.find((r) => r.status === 409)!.body.code).toBe("artifact_exists");
    const after = (await storedKeys()).filter((k) => !before.includes(k));
    expect(after).toHaveLength(1);
    const row = await getDb().artifact.findFirstOrThrow({ where: { release: { productId: seller.product, version: "10.0.0" } } });
    expect(after[0]).toBe(row.storageKey);
    expect(tempFiles()).toEqual([]);
  });
});

describe("orphan sweep", () => {
  it("deletes artifact objects without a row once older than the grace, and keeps those with one", async () => {
    const orphan = `artifacts/${seller.product}/${"ab".repeat(12)}/orphan.zip`;
    await objectStore().put(orphan, ZIP, { size: ZIP.length, contentType: "application/zip" });
    const kept = await storedKeys();
    expect(await sweepOrphanArtifacts(60 * 60 * 1000)).toBe(0);
    expect(await objectStore().head(orphan)).not.toBeNull();
    const removed = await sweepOrphanArtifacts(0, Date.now() + 1000);
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await objectStore().head(orphan)).toBeNull();
    const rows = await getDb().artifact.findMany({ where: { release: { productId: seller.product } }, select: { storageKey: true } });
    for (const r of rows) expect(kept).toContain(r.storageKey);
    for (const r of rows) expect(await objectStore().head(r.storageKey)).not.toBeNull();
  });
});

// --- Signatures, checked independently: tweetnacl and the minisign format spec (https://jedisct1.github.io/minisign/).

/** The raw Ed25519 key of a did.json verification method (Multikey: "z" + base58btc(0xed 0x01 ‖ key)). */
async function didKey(methodId: string): Promise<Uint8Array> {
  return didDocumentKey(await didDocument(), methodId);
}

describe("artifact signatures", () => {
  it("verify against did.json with tweetnacl, and the minisign signature follows the minisign format", async () => {
    expect((await create({ version: "11.0.0" })).status).toBe(201);
    const bytes = Buffer.concat([ZIP, Buffer.from("signed payload")]);
    const art = await upload(
      "11.0.0",
      { platform: "macos-arm64", filename: "Signed App.app.tar.gz" },
      Buffer.concat([Buffer.from([0x1f, 0x8b]), bytes]),
    );
    expect(art.status, art.text).toBe(201);
    const file = Buffer.concat([Buffer.from([0x1f, 0x8b]), bytes]);

    // The plain Ed25519 signature over the exact bytes, with the key did.json publishes under signature_key_id.
    expect(art.body.signature_key_id).toMatch(/^did:web:.+#ed25519-\d+$/);
    const pk = await didKey(art.body.signature_key_id);
    const signature = Buffer.from(art.body.signature, "base64");
    expect(nacl.sign.detached.verify(file, signature, pk)).toBe(true);
    expect(nacl.sign.detached.verify(Buffer.concat([file, Buffer.from("x")]), signature, pk)).toBe(false);
    expect(art.body.sha256).toBe(createHash("sha256").update(file).digest("hex"));

    // minisign public key file: "untrusted comment: …" then base64("Ed" ‖ key id (8) ‖ public key (32)).
    const { current } = await signingKeys();
    const pubText = Buffer.from(minisignPublicKey(current), "base64").toString();
    const pubLines = pubText.split("\n");
    expect(pubLines[0]).toMatch(/^untrusted comment: minisign public key [0-9A-F]{16}$/);
    expect(pubLines[2]).toBe("");
    const pubBin = Buffer.from(pubLines[1]!, "base64");
    expect(pubBin).toHaveLength(42);
    expect(pubBin.subarray(0, 2).toString()).toBe("Ed");
    const keyId = pubBin.subarray(2, 10);
    // minisign prints the key id as a little-endian 64-bit number.
    expect(pubLines[0]!.slice(-16)).toBe(Buffer.from(keyId).reverse().toString("hex").toUpperCase());
    expect(Buffer.from(pubBin.subarray(10)).equals(Buffer.from(pk))).toBe(true);

    // The signature file (the `minisign` column, base64 of the file text, as Tauri's `signature` field).
    const row = await getDb().artifact.findUniqueOrThrow({ where: { id: art.body.id } });
    const sigText = Buffer.from(row.minisign, "base64").toString();
    const lines = sigText.split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^untrusted comment: /);
    const sigBin = Buffer.from(lines[1]!, "base64");
    expect(sigBin).toHaveLength(74);
    expect(sigBin.subarray(0, 2).toString()).toBe("ED"); // prehashed: Ed25519 over BLAKE2b-512 of the file
    expect(Buffer.from(sigBin.subarray(2, 10)).equals(keyId)).toBe(true);
    const fileSig = sigBin.subarray(10);
    const prehash = createHash("blake2b512").update(file).digest();
    expect(nacl.sign.detached.verify(prehash, fileSig, pk)).toBe(true);
    expect(lines[2]).toMatch(/^trusted comment: timestamp:\d+\tfile:Signed App\.app\.tar\.gz$/);
    const trusted = lines[2]!.slice("trusted comment: ".length);
    const globalSig = Buffer.from(lines[3]!, "base64");
    expect(nacl.sign.detached.verify(Buffer.concat([fileSig, Buffer.from(trusted)]), globalSig, pk)).toBe(true);
    expect(nacl.sign.detached.verify(Buffer.concat([fileSig, Buffer.from(`${trusted}x`)]), globalSig, pk)).toBe(false);
    expect(lines[4]).toBe("");

    // The stored object is the uploaded file.
    const got = await objectStore().get(row.storageKey);
    const chunks: Buffer[] = [];
    for await (const c of got!.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(file)).toBe(true);
  });
});
