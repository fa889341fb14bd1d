import { mkdirSync, mkdtempSync, readdirSync, rmSync, watch } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prerender } from "react-dom/static";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import ReleasesPage from "@/app/(dashboard)/dashboard/(app)/products/[id]/releases/page";
import { POST as createOwn } from "@/app/api/v1/products/[id]/releases/route";
import { DELETE as deleteOwn } from "@/app/api/v1/products/[id]/releases/[version]/route";
import { POST as publishOwn } from "@/app/api/v1/products/[id]/releases/[version]/publish/route";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { MAX_DRAFT_RELEASES_PER_PRODUCT } from "@/lib/releases/manage";
import { objectStore, resetObjectStore } from "@/lib/storage/index";
import { call, expectProblem, type Reply } from "../helpers/http";
import { startLeanServer } from "../helpers/lean-server";
import { createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

/**
 * Release artifacts have a quota per seller (ARTIFACT_QUOTA_MB, the files of all their releases) and a product has at
 * most MAX_DRAFT_RELEASES_PER_PRODUCT drafts (issue 31, item 2: one token stored 45 × 1 MB, and at the default
 * ARTIFACT_MAX_MB the same loop stores 23 GB). Each test uses a seller of its own, so what one stores does not count
 * against another. The quota is lowered to 1 MB (1,048,576 bytes) through the environment.
 */

// The dashboard page reads its session cookie through next/headers; here it comes from `cookieJar`.
let cookieJar = new Map<string, string>();
vi.mock("next/headers", () => ({
  cookies: () => Promise.resolve({ get: (name: string) => (cookieJar.has(name) ? { name, value: cookieJar.get(name) } : undefined) }),
  headers: () => Promise.resolve(new Headers()),
}));
// Rendered outside the app router: the upload form's router (it refreshes the page after an upload) is inert here.
vi.mock("next/navigation", async (original) => ({
  ...(await original<object>()),
  useRouter: () => ({ refresh: () => undefined, push: () => undefined, replace: () => undefined, back: () => undefined, prefetch: () => undefined }),
}));

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const saved = { ...process.env };
let lean: Awaited<ReturnType<typeof startLeanServer>>;
let scratch = "";
const MiB = 1024 * 1024;
const KiB = 1024;

/** A .zip of `size` bytes (its magic bytes, then filler). */
const zip = (size: number) => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(size - 4, 0x2a)]);

function setEnv(values: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();
  resetObjectStore();
}

interface Seller {
  devId: string;
  cookie: string;
  products: string[];
}

let sellers = 0;
/** A new seller with `count` products, each with a draft release 1.0.0, signed in to the dashboard. */
async function newSeller(count = 1): Promise<Seller> {
  const tag = `q${++sellers}`;
  const email = `quota-${tag}-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Quota ${tag} ${run}`, website: null, bio: "" });
  const products: string[] = [];
  for (let i = 0; i < count; i++) products.push((await createTestProduct(dev.id, `Quota ${tag} ${i} ${run}`, `com.quota.${tag}p${i}${run}`)).id);
  const seller = { devId: dev.id, cookie: await sellerCookie(email), products };
  for (const p of products) expect((await create(seller, p, "1.0.0")).status).toBe(201);
  return seller;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "release-quota-test-"));
  // Uploads stream to os.tmpdir(): a private one, so "no temporary file was made or left" is checkable.
  mkdirSync(join(scratch, "tmp"));
  setEnv({ UPLOAD_DIR: join(scratch, "store"), TMPDIR: join(scratch, "tmp"), ARTIFACT_QUOTA_MB: "1" });
  lean = await startLeanServer();
});

afterEach(() => {
  setEnv({ ARTIFACT_QUOTA_MB: "1" });
  cookieJar = new Map();
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

const releases = (product: string) => `/api/v1/products/${product}/releases`;
const create = (s: Seller, product: string, version: string) =>
  call(createOwn, releases(product), { method: "POST", headers: { cookie: s.cookie }, json: { version }, params: { id: product } });

const artifactsPath = (product: string, platform: string, filename: string, version = "1.0.0") =>
  `${releases(product)}/${version}/artifacts?platform=${platform}&filename=${encodeURIComponent(filename)}`;

/** PUT a whole body with its Content-Length through the lean path (as server.ts serves it). */
async function upload(s: Seller, product: string, platform: string, filename: string, body: Buffer): Promise<Reply> {
  const r = await fetch(lean.base + artifactsPath(product, platform, filename), {
    method: "PUT",
    headers: { cookie: s.cookie, "content-type": "application/octet-stream" },
    body: new Uint8Array(body),
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

/**
 * A PUT with node:http, so the test decides when each byte goes and sees the answer arrive while it is still
 * sending: `send` writes the body with `write` until `stopped()` (the answer came or the connection closed).
 * Without a content-length header the body goes chunked. `sentBytes` is what had been written when the answer came.
 */
function rawPut(
  s: Seller,
  path: string,
  headers: Record<string, string>,
  send: (write: (b: Buffer) => Promise<void>, stopped: () => boolean) => Promise<void>,
): Promise<{ status: number; text: string; sentBytes: number }> {
  return new Promise((resolve, reject) => {
    let sentBytes = 0;
    let done = false;
    const req = httpRequest(new URL(lean.base + path), { method: "PUT", headers: { cookie: s.cookie, ...headers } }, (res) => {
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
    // The head goes out now, not with the first write: the server sees the request before any of its body.
    req.flushHeaders();
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tempFiles = () => readdirSync(join(scratch, "tmp")).filter((f) => f.startsWith("ilm-artifact-"));
const artifactRows = (s: Seller) =>
  getDb().artifact.findMany({ where: { release: { product: { developerId: s.devId } } }, select: { size: true, storageKey: true } });
async function storedKeys(s: Seller): Promise<string[]> {
  const keys: string[] = [];
  for (const p of s.products) for await (const o of objectStore().list(`artifacts/${p}/`)) keys.push(o.key);
  return keys.sort();
}

/** What the seller's storage holds is exactly the rows' objects, within the quota, and no temporary file is left. */
async function expectStoredOnly(s: Seller, count: number) {
  const rows = await artifactRows(s);
  expect(rows).toHaveLength(count);
  expect(rows.reduce((n, r) => n + r.size, 0)).toBeLessThanOrEqual(MiB);
  expect(await storedKeys(s)).toEqual(rows.map((r) => r.storageKey).sort());
  expect(tempFiles()).toEqual([]);
}

describe("a declared Content-Length that does not fit the quota", () => {
  it("is refused with 413 artifact_quota_exceeded before a byte of the body is read: no row, no object, no temporary file", async () => {
    const s = await newSeller();
    const [product] = s.products as [string];
    // Every file created in the temporary directory meanwhile, even one deleted at once.
    const created: string[] = [];
    const watcher = watch(join(scratch, "tmp"), (_event, name) => {
      if (name) created.push(name);
    });
    try {
      const body = zip(2 * MiB);
      const r = await rawPut(s, artifactsPath(product, "linux-x64", "big.zip"), { "content-length": String(body.length) }, async (write, stopped) => {
        // The body is held back for up to 10 s: an answer in that time was given without it. Then it goes (a server
        // that waits for it gets it all, and stores it).
        for (let waited = 0; waited < 10_000 && !stopped(); waited += 20) await sleep(20);
        await write(body);
      });
      expect(r.status, r.text).toBe(413);
      const problem = JSON.parse(r.text) as { code: string; detail: string };
      expect(problem.code).toBe("artifact_quota_exceeded");
      expect(problem.detail).toContain("0.0 MB of your 1 MB");
      expect(problem.detail).toContain("this file (2.0 MB) does not fit");
      expect(r.sentBytes).toBe(0);
      await sleep(50);
      expect(created.filter((f) => f.startsWith("ilm-artifact-"))).toEqual([]);
    } finally {
      watcher.close();
    }
    await expectStoredOnly(s, 0);
  });

  it("counts what is stored already: 512 KiB stored, 600 KiB declared is refused at once", async () => {
    const s = await newSeller();
    const [product] = s.products as [string];
    const first = await upload(s, product, "linux-x64", "half.zip", zip(512 * KiB));
    expect(first.status, first.text).toBe(201);
    const r = await rawPut(s, artifactsPath(product, "windows-x64", "more.zip"), { "content-length": String(600 * KiB) }, async (write, stopped) => {
      for (let waited = 0; waited < 10_000 && !stopped(); waited += 20) await sleep(20);
      await write(zip(600 * KiB));
    });
    expect(r.status, r.text).toBe(413);
    const problem = JSON.parse(r.text) as { code: string; detail: string };
    expect(problem.code).toBe("artifact_quota_exceeded");
    expect(problem.detail).toContain("0.5 MB of your 1 MB of storage (ARTIFACT_QUOTA_MB), leaving 0.5 MB");
    expect(r.sentBytes).toBe(0);
    await expectStoredOnly(s, 1);
    // What fits still goes in.
    expect((await upload(s, product, "windows-x64", "rest.zip", zip(512 * KiB))).status).toBe(201);
    await expectStoredOnly(s, 2);
  });
});

describe("bodies without Content-Length (chunked)", () => {
  it("are refused while they stream in, once past the room left", async () => {
    const s = await newSeller();
    const [product] = s.products as [string];
    const chunk = zip(64 * KiB);
    let finished = false;
    const r = await rawPut(s, artifactsPath(product, "linux-x64", "stream.zip"), { "transfer-encoding": "chunked" }, async (write, stopped) => {
      // 2 MiB in 32 chunks of 64 KiB, 20 ms apart.
      for (let i = 0; i < 32 && !stopped(); i++) {
        await write(chunk);
        await sleep(20);
      }
      finished = !stopped();
    });
    expect(r.status, r.text).toBe(413);
    expect(JSON.parse(r.text).code).toBe("artifact_quota_exceeded");
    expect(finished).toBe(false);
    expect(r.sentBytes).toBeLessThan(2 * MiB);
    // The refused upload's clean-up may still be finishing after the answer: waited for, not slept on.
    await vi.waitFor(() => expectStoredOnly(s, 0), { timeout: 5_000, interval: 20 });
  });

  it("that each fit but not together are refused at the transaction's check: one stored, nothing of the other", async () => {
    // Two products of one seller: the quota is the seller's, not the release's.
    const s = await newSeller(2);
    const [a, b] = s.products as [string, string];
    const body = zip(700 * KiB);
    let release!: () => void;
    const bothStreaming = new Promise<void>((resolve) => (release = resolve));
    const send = async (write: (b: Buffer) => Promise<void>) => {
      await write(body.subarray(0, 64 * KiB));
      await bothStreaming;
      await write(body.subarray(64 * KiB));
    };
    const replies = Promise.all([
      rawPut(s, artifactsPath(a, "linux-x64", "a.zip"), { "transfer-encoding": "chunked" }, send),
      rawPut(s, artifactsPath(b, "linux-x64", "b.zip"), { "transfer-encoding": "chunked" }, send),
    ]);
    // Both passed the check before the body (nothing stored yet, no length declared) and stream to temporary files.
    await vi.waitFor(() => expect(tempFiles()).toHaveLength(2), { timeout: 5_000, interval: 10 });
    release();
    const done = await replies;
    expect(done.map((r) => r.status).sort(), done.map((r) => r.text).join("\n")).toEqual([201, 413]);
    const refused = JSON.parse(done.find((r) => r.status === 413)!.text) as { code: string; detail: string };
    expect(refused.code).toBe("artifact_quota_exceeded");
    expect(refused.detail).toContain("0.7 MB of your 1 MB");
    await vi.waitFor(() => expectStoredOnly(s, 1), { timeout: 5_000, interval: 20 });
  });
});

describe("racing uploads", () => {
  it("of one seller's products cannot together pass the quota: of six 400 KiB files exactly two are stored", async () => {
    const s = await newSeller(2);
    const platforms = ["linux-x64", "windows-x64", "macos-universal"];
    const replies = await Promise.all(
      s.products.flatMap((p) => platforms.map((platform) => upload(s, p, platform, `race-${platform}.zip`, zip(400 * KiB)))),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses, replies.map((r) => r.text).join("\n")).toEqual([201, 201, 413, 413, 413, 413]);
    for (const r of replies.filter((x) => x.status === 413)) expect(r.body.code).toBe("artifact_quota_exceeded");
    await vi.waitFor(() => expectStoredOnly(s, 2), { timeout: 5_000, interval: 20 });
  });
});

describe("draft releases per product", () => {
  it(`are at most ${MAX_DRAFT_RELEASES_PER_PRODUCT}: the next is 409 too_many_draft_releases, racing creates included; publishing or deleting one makes room`, async () => {
    setEnv({ ARTIFACT_QUOTA_MB: undefined });
    const s = await newSeller();
    const [product] = s.products as [string];
    // 1.0.0 is a draft already; two short of the limit, then four racing creates: exactly two get in.
    for (let i = 1; i < MAX_DRAFT_RELEASES_PER_PRODUCT - 2; i++) expect((await create(s, product, `1.0.${i}`)).status).toBe(201);
    const racing = await Promise.all([2, 3, 4, 5].map((i) => create(s, product, `2.0.${i}`)));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 409, 409]);
    for (const r of racing.filter((x) => x.status === 409)) expect(r.body.code).toBe("too_many_draft_releases");
    const drafts = () => getDb().release.count({ where: { productId: product, status: "draft" } });
    expect(await drafts()).toBe(MAX_DRAFT_RELEASES_PER_PRODUCT);

    const refused = await create(s, product, "3.0.0");
    expectProblem(refused, 409, "too_many_draft_releases");
    expect(refused.body.detail).toContain(`(${MAX_DRAFT_RELEASES_PER_PRODUCT})`);
    expect(await getDb().release.count({ where: { productId: product, version: "3.0.0" } })).toBe(0);

    // A published release is no draft: publishing one makes room for one.
    expect((await upload(s, product, "linux-x64", "app.zip", zip(4 * KiB))).status).toBe(201);
    const published = await call(publishOwn, `${releases(product)}/1.0.0/publish`, {
      method: "POST",
      headers: { cookie: s.cookie },
      params: { id: product, version: "1.0.0" },
    });
    expect(published.status, published.text).toBe(200);
    expect((await create(s, product, "3.0.0")).status).toBe(201);
    expectProblem(await create(s, product, "3.0.1"), 409, "too_many_draft_releases");
    // So does deleting one.
    const deleted = await call(deleteOwn, `${releases(product)}/1.0.1`, {
      method: "DELETE",
      headers: { cookie: s.cookie },
      params: { id: product, version: "1.0.1" },
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await create(s, product, "3.0.1")).status).toBe(201);
  });
});

describe("the dashboard's releases page", () => {
  it("shows the seller's storage against the quota, summed from the database over all their products' releases", async () => {
    setEnv({ ARTIFACT_QUOTA_MB: undefined }); // the default, 5120 MB
    const s = await newSeller(2);
    const [a, b] = s.products as [string, string];
    expect((await upload(s, a, "linux-x64", "app.zip", zip(100_000))).status).toBe(201);
    // Two large files on the other product, written as rows (4 GB in all: past what a 32-bit sum holds).
    const other = await getDb().release.findFirstOrThrow({ where: { productId: b, version: "1.0.0" } });
    for (const platform of ["windows-x64", "macos-universal"]) {
      await getDb().artifact.create({
        data: {
          releaseId: other.id,
          platform,
          fileType: "zip",
          filename: "big.zip",
          contentType: "application/zip",
          size: 2_000_000_000,
          sha256: "0".repeat(64),
          sha512: "",
          signature: "",
          minisign: "",
          keyId: "ed25519-1",
          storageKey: `artifacts/${b}/${run}${platform}/big.zip`,
        },
      });
    }
    // Another seller's files do not count.
    const stranger = await newSeller();
    expect((await upload(stranger, stranger.products[0]!, "linux-x64", "app.zip", zip(900 * KiB))).status).toBe(201);

    const [name, value] = s.cookie.split("=") as [string, string];
    cookieJar.set(name, value);
    const page = await ReleasesPage({ params: Promise.resolve({ id: a }), searchParams: Promise.resolve({}) });
    const html = await new Response((await prerender(page)).prelude).text();
    // 4,000,100,000 bytes of 5,368,709,120 (5120 MiB), in the project's decimal units (lib/format.ts formatBytes).
    expect(html.replace(/<!-- -->/g, "")).toContain("Storage: 4.0 GB of 5.4 GB used");
    expect(html).toContain('aria-valuenow="74"');
  });
});
