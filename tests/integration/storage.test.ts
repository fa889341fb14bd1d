import { createReadStream } from "node:fs";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as filesGet, HEAD as filesHead } from "@/app/api/files/[...key]/route";
import { GET as uploadRoute } from "@/app/uploads/[file]/route";
import { createProduct } from "@/lib/selling/products";
import { openUpload, saveUploads, sweepUploads, uploadUsage } from "@/lib/selling/uploads";
import { disconnectDb, getDb } from "@/lib/db";
import { env, parseEnv, resetEnv } from "@/lib/env";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { checkStorageSettings, objectStore, resetObjectStore, S3ObjectStore, type ObjectStore } from "@/lib/storage";
import { call, expectProblem, type Reply } from "../helpers/http";
import { startS3Server } from "../helpers/s3-server";
import { sellingDeveloper } from "../helpers/sellers";

/**
 * One behavioural suite for both storage drivers: the local disk (a temporary UPLOAD_DIR) and S3 (s3rver, a real
 * S3-compatible server from the npm registry, started here). The integration projects run it on SQLite and on
 * PostgreSQL (the local driver's link secret and the uploads' product references live in the database).
 */

const STORAGE_SETTINGS = [
  "STORAGE_DRIVER",
  "UPLOAD_DIR",
  "S3_BUCKET",
  "S3_REGION",
  "S3_ENDPOINT",
  "S3_FORCE_PATH_STYLE",
  "S3_ACCESS_KEY_ID",
  "S3_SECRET_ACCESS_KEY",
  "S3_PREFIX",
];
const saved = Object.fromEntries(STORAGE_SETTINGS.map((k) => [k, process.env[k]]));

function useSettings(values: Record<string, string>): void {
  for (const k of STORAGE_SETTINGS) Reflect.deleteProperty(process.env, k);
  Object.assign(process.env, values);
  resetEnv();
  resetObjectStore();
}

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();
  resetObjectStore();
  // Products with uploaded icons are not the demo catalogue's (tests/integration/database.test.ts checks its icons).
  await getDb().product.updateMany({ where: { developer: { email: { startsWith: "st-" } } }, data: { status: "unlisted" } });
  await disconnectDb();
});

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const text = async (body: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};
async function keysOf(store: ObjectStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const item of store.list(prefix)) keys.push(item.key);
  return keys.sort();
}

/** Calls /api/files/<key>?… the way Next does (the catch-all's segments decoded). */
async function callFiles(url: string, init: RequestInit = {}, handler = filesGet): Promise<Reply> {
  const u = new URL(url);
  const key = u.pathname.slice("/api/files/".length).split("/").map(decodeURIComponent);
  return call(handler, `${u.pathname}${u.search}`, { ...init, params: { key } as unknown as Record<string, string> });
}

/** Fetches a signed URL: the route handler for the local driver, the S3 server over HTTP for S3. */
async function fetchSigned(url: string, init: RequestInit = {}): Promise<Reply> {
  if (url.startsWith(env().BASE_URL)) return callFiles(url, init);
  const response = await fetch(url, init);
  const body = await response.text();
  return { status: response.status, headers: response.headers, body, text: body };
}

interface Driver {
  name: "local" | "s3";
  start(): Promise<{ env: Record<string, string>; close(): Promise<void> }>;
}
const DRIVERS: Driver[] = [
  {
    name: "local",
    async start() {
      const dir = await mkdtemp(join(tmpdir(), "ilm-storage-"));
      return { env: { STORAGE_DRIVER: "local", UPLOAD_DIR: dir }, close: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: "s3",
    async start() {
      const server = await startS3Server();
      // A prefix, as a bucket shared with other data would have: keys must come back without it.
      return { env: { ...server.env, S3_PREFIX: "ilm/" }, close: () => server.close() };
    },
  },
];

describe.each(DRIVERS)("$name driver", (driver) => {
  let settings: Record<string, string> = {};
  let started: { env: Record<string, string>; close(): Promise<void> } | undefined;
  let store: ObjectStore;
  const k = (key: string) => `t-${run}/${key}`;

  beforeAll(async () => {
    started = await driver.start();
    settings = started.env;
    useSettings(settings);
    store = objectStore();
  });
  afterAll(async () => {
    if (store instanceof S3ObjectStore) await store.close();
    await started?.close();
  });

  it("is the configured driver, one per process until the settings change", () => {
    expect(store.driver).toBe(driver.name);
    expect(objectStore()).toBe(store);
  });

  it("puts (a Buffer or a stream), gets, heads, replaces and deletes", async () => {
    await store.put(k("docs/readme.txt"), Buffer.from("hello world"), { size: 11, contentType: "text/plain" });
    const head = await store.head(k("docs/readme.txt"));
    expect(head).toMatchObject({ size: 11, contentType: "text/plain" });
    expect(Math.abs((head?.lastModified.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
    const got = await store.get(k("docs/readme.txt"));
    expect(got).toMatchObject({ size: 11, contentType: "text/plain" });
    expect(await text(got!.body)).toBe("hello world");

    const temp = join(tmpdir(), `ilm-storage-body-${run}.bin`);
    const big = Buffer.alloc(300 * 1024, 7);
    await writeFile(temp, big);
    try {
      await store.put(k("docs/readme.txt"), createReadStream(temp), { size: big.byteLength, contentType: "text/plain" });
    } finally {
      await rm(temp, { force: true });
    }
    expect((await store.head(k("docs/readme.txt")))?.size).toBe(big.byteLength);
    const again = await store.get(k("docs/readme.txt"));
    const chunks: Buffer[] = [];
    for await (const chunk of again!.body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(big)).toBe(true);

    await store.delete(k("docs/readme.txt"));
    expect(await store.head(k("docs/readme.txt"))).toBeNull();
    expect(await store.get(k("docs/readme.txt"))).toBeNull();
    // Deleting what is not there is not an error.
    await expect(store.delete(k("docs/readme.txt"))).resolves.toBeUndefined();
    await expect(store.delete(k("never/was.bin"))).resolves.toBeUndefined();
  });

  it("lists by key prefix, recursively, across pages", async () => {
    const keys = [k("list/a/1.bin"), k("list/a/2.bin"), k("list/a/sub/3.bin"), k("list/b/4.bin"), k("listx/5.bin")];
    for (const key of keys) await store.put(key, Buffer.from(key), { size: Buffer.byteLength(key), contentType: "application/octet-stream" });
    expect(await keysOf(store, k("list/a/"))).toEqual([k("list/a/1.bin"), k("list/a/2.bin"), k("list/a/sub/3.bin")]);
    expect(await keysOf(store, k("list/"))).toEqual(keys.slice(0, 4));
    // A prefix is a string prefix, not a directory.
    expect(await keysOf(store, k("list"))).toEqual(keys);
    expect(await keysOf(store, k("list/a/1"))).toEqual([k("list/a/1.bin")]);
    expect(await keysOf(store, k("nothing/"))).toEqual([]);
    const items = [];
    for await (const item of store.list(k("list/b/"))) items.push(item);
    expect(items).toEqual([{ key: k("list/b/4.bin"), size: Buffer.byteLength(k("list/b/4.bin")), lastModified: expect.any(Date) }]);
    if (store instanceof S3ObjectStore) {
      // Two keys per ListObjectsV2 page: the continuation tokens are followed.
      const paged = new S3ObjectStore(parseEnv({ ...settings }), 2);
      try {
        expect(await keysOf(paged, k("list"))).toEqual(keys);
      } finally {
        await paged.close();
      }
    }
  });

  it("refuses unsafe keys before touching anything", async () => {
    const unsafe = [
      "",
      "../escape.txt",
      "a/../../escape.txt",
      "/abs.txt",
      "a//b",
      "a/./b",
      "a\\b",
      "a b",
      "ü.txt",
      "a/",
      "..",
      ".",
      "x?y",
      "%2e%2e/x",
      "x".repeat(1025),
    ];
    for (const key of unsafe) {
      const opts = { size: 1, contentType: "text/plain" };
      await expect(store.put(key, Buffer.from("x"), opts), key).rejects.toMatchObject({ status: 400, code: "storage_key_invalid" });
      await expect(store.get(key), key).rejects.toMatchObject({ code: "storage_key_invalid" });
      await expect(store.head(key), key).rejects.toMatchObject({ code: "storage_key_invalid" });
      await expect(store.delete(key), key).rejects.toMatchObject({ code: "storage_key_invalid" });
      await expect(store.signedUrl(key, { filename: "x", contentType: "text/plain" }), key).rejects.toMatchObject({ code: "storage_key_invalid" });
    }
    const typeOnly = { filename: "x", contentType: "text/html\r\nSet-Cookie: a=b" };
    await expect(store.signedUrl(k("safe.txt"), typeOnly)).rejects.toThrow(/not a content type/);
    // A file name of any Unicode (even a lone surrogate) becomes a header safely.
    const odd = await store.signedUrl(k("safe.txt"), { filename: 'a"b\\c\r\n\ud800.txt', contentType: "text/plain" });
    expect(odd.url).toMatch(/^http/);
    if (driver.name === "local") {
      const parent = join(settings.UPLOAD_DIR!, "..");
      await expect(stat(join(parent, "escape.txt"))).rejects.toMatchObject({ code: "ENOENT" });
    }
  });

  it("never shows a half-written object: a failed write leaves the previous one", async () => {
    await store.put(k("atomic/file.bin"), Buffer.from("version one"), { size: 11, contentType: "application/octet-stream" });
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(64 * 1024, 1));
        setTimeout(() => this.destroy(new Error("client went away")), 10);
      },
    });
    // The body's own error, at once (the S3 driver aborts its request instead of waiting for the missing bytes).
    // On a loaded machine s3rver has been seen to reset the connection first (CI: "write ECONNRESET"); the put
    // still fails at once, and that is what matters here, so S3 may answer the connection's error instead.
    const failed = driver.name === "local" ? /^client went away$/ : /^(client went away|write ECONNRESET|write EPIPE|socket hang up)$/;
    await expect(store.put(k("atomic/file.bin"), failing, { size: 10 * 1024 * 1024, contentType: "application/octet-stream" })).rejects.toThrow(
      failed,
    );
    // Whatever failed first, the body is released, and its later error is not left unhandled.
    expect(failing.destroyed).toBe(true);
    expect(await keysOf(store, k("atomic/"))).toEqual([k("atomic/file.bin")]);
    // s3rver keeps what it received of an aborted upload (S3 itself stores nothing shorter than Content-Length):
    // the previous object is checked on the local driver only.
    if (driver.name === "local") {
      const kept = await store.get(k("atomic/file.bin"));
      expect(await text(kept!.body)).toBe("version one");
      // Nor a temporary file left behind.
      expect(await readdir(join(settings.UPLOAD_DIR!, `t-${run}`, "atomic"))).toEqual(["file.bin"]);
      // A body shorter than announced is refused, not stored.
      await expect(store.put(k("atomic/short.bin"), Buffer.from("abc"), { size: 4, contentType: "application/octet-stream" })).rejects.toThrow(
        /expected 4/,
      );
      expect(await store.head(k("atomic/short.bin"))).toBeNull();
    }
  });

  it("signs a URL that downloads the object as an attachment, with single ranges", async () => {
    const body = "0123456789abcdefghij";
    await store.put(k("dl/app-1.0.0.zip"), Buffer.from(body), { size: body.length, contentType: "application/zip" });
    const before = Date.now();
    const signed = await store.signedUrl(k("dl/app-1.0.0.zip"), { filename: "Ünïcode App 1.0.0.zip", contentType: "application/zip" });
    expect(signed.expiresAt.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 299_000);
    expect(signed.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 301_000);
    const url = new URL(signed.url);
    if (driver.name === "local") {
      expect(signed.url.startsWith(`${env().BASE_URL}/api/files/t-${run}/dl/app-1.0.0.zip?`)).toBe(true);
      expect([...url.searchParams.keys()].sort()).toEqual(["exp", "name", "sig", "type"]);
    } else {
      expect(url.origin).toBe(settings.S3_ENDPOINT);
      expect(url.pathname).toBe(`/${settings.S3_BUCKET!}/ilm/t-${run}/dl/app-1.0.0.zip`);
      expect(url.searchParams.get("X-Amz-Expires")).toBe("300");
      expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
      expect(url.searchParams.get("response-content-type")).toBe("application/zip");
    }

    const whole = await fetchSigned(signed.url);
    expect(whole.status).toBe(200);
    expect(whole.text).toBe(body);
    expect(whole.headers.get("content-type")).toBe("application/zip");
    expect(whole.headers.get("content-length")).toBe(String(body.length));
    expect(whole.headers.get("content-disposition")).toBe(
      `attachment; filename="_n_code App 1.0.0.zip"; filename*=UTF-8''%C3%9Cn%C3%AFcode%20App%201.0.0.zip`,
    );
    expect(whole.headers.get("cache-control")).toBe("private, no-store");

    const middle = await fetchSigned(signed.url, { headers: { range: "bytes=5-9" } });
    expect(middle.status).toBe(206);
    expect(middle.text).toBe("56789");
    expect(middle.headers.get("content-range")).toBe(`bytes 5-9/${String(body.length)}`);
    expect(middle.headers.get("content-length")).toBe("5");
    const tail = await fetchSigned(signed.url, { headers: { range: "bytes=15-" } });
    expect([tail.status, tail.text]).toEqual([206, "fghij"]);
    if (driver.name === "local") {
      // The last n bytes (s3rver answers these from the start; S3 itself serves them).
      const suffix = await fetchSigned(signed.url, { headers: { range: "bytes=-3" } });
      expect([suffix.status, suffix.text]).toEqual([206, "hij"]);
    }
    const beyond = await fetchSigned(signed.url, { headers: { range: "bytes=50-" } });
    expect(beyond.status).toBe(416);
  });

  // Each driver's own link checks (registered for that driver only).
  if (driver.name === "local")
    it("local links: HEAD, and tampered, foreign or expired links are refused", async () => {
      await store.put(k("dl/secret.bin"), Buffer.from("secret bytes"), { size: 12, contentType: "application/octet-stream" });
      const { url } = await store.signedUrl(k("dl/secret.bin"), { filename: "secret.bin", contentType: "application/octet-stream" });
      const head = await callFiles(url, { method: "HEAD" }, filesHead);
      expect(head.status).toBe(200);
      expect(head.text).toBe("");
      expect(head.headers.get("content-length")).toBe("12");
      expect(head.headers.get("x-content-type-options")).toBe("nosniff");
      // Resuming with If-Range: the rest when the object is the same, the whole object when it changed.
      const etag = head.headers.get("etag")!;
      const resumed = await callFiles(url, { headers: { range: "bytes=7-", "if-range": etag } });
      expect([resumed.status, resumed.text]).toEqual([206, "bytes"]);
      const changed = await callFiles(url, { headers: { range: "bytes=7-", "if-range": '"0-0"' } });
      expect([changed.status, changed.text]).toEqual([200, "secret bytes"]);
      // Ranges this server does not serve are ignored (the whole object), as RFC 9110 allows: several ranges, a
      // reversed one, another unit.
      for (const range of ["bytes=0-1,4-5", "bytes=5-2", "items=0-1", "bytes=-"]) {
        const whole = await callFiles(url, { headers: { range } });
        expect([whole.status, whole.text], range).toEqual([200, "secret bytes"]);
      }
      const clipped = await callFiles(url, { headers: { range: "bytes=7-999" } });
      expect([clipped.status, clipped.headers.get("content-range"), clipped.text]).toEqual([206, "bytes 7-11/12", "bytes"]);

      const u = new URL(url);
      const variant = (change: (v: URL) => void) => {
        const v = new URL(u);
        change(v);
        return v.toString();
      };
      const tampered = [
        variant((v) => v.searchParams.set("sig", `${v.searchParams.get("sig")!.slice(0, -2)}AA`)),
        variant((v) => v.searchParams.set("exp", String(Number(v.searchParams.get("exp")) + 3600))),
        variant((v) => v.searchParams.set("name", "other.exe")),
        variant((v) => v.searchParams.set("type", "text/html")),
        variant((v) => v.searchParams.delete("sig")),
        variant((v) => v.searchParams.delete("type")),
        variant((v) => v.searchParams.set("exp", "soon")),
        variant((v) => (v.pathname = v.pathname.replace("secret.bin", "other.bin"))),
      ];
      for (const bad of tampered) expectProblem(await callFiles(bad), 403, "download_link_invalid");
      // A link for another object does not open this one.
      await store.put(k("dl/other.bin"), Buffer.from("other"), { size: 5, contentType: "application/octet-stream" });
      const other = new URL((await store.signedUrl(k("dl/other.bin"), { filename: "secret.bin", contentType: "application/octet-stream" })).url);
      expectProblem(await callFiles(variant((v) => v.searchParams.set("sig", other.searchParams.get("sig")!))), 403, "download_link_invalid");

      const odd = await store.signedUrl(k("dl/secret.bin"), { filename: 'a"b\\c\r\n\ud800 é.txt', contentType: "application/octet-stream" });
      const oddReply = await callFiles(odd.url);
      expect(oddReply.status).toBe(200);
      expect(oddReply.headers.get("content-disposition")).toBe(
        `attachment; filename="a_b_c___ _.txt"; filename*=UTF-8''a%22b%5Cc%0D%0A%EF%BF%BD%20%C3%A9.txt`,
      );

      const expired = await store.signedUrl(k("dl/secret.bin"), {
        filename: "secret.bin",
        contentType: "application/octet-stream",
        expiresInSeconds: -1,
      });
      expectProblem(await callFiles(expired.url), 410, "download_link_expired");
      await store.delete(k("dl/secret.bin"));
      expectProblem(await callFiles(url), 404, "file_not_found");
    });

  if (driver.name === "s3")
    it("S3 links expire, and /api/files answers 404", async () => {
      await store.put(k("dl/short.bin"), Buffer.from("short"), { size: 5, contentType: "application/octet-stream" });
      const short = await store.signedUrl(k("dl/short.bin"), { filename: "short.bin", contentType: "application/octet-stream", expiresInSeconds: 1 });
      expect(new URL(short.url).searchParams.get("X-Amz-Expires")).toBe("1");
      // s3rver refuses it once its second has passed: polled, not slept on.
      await expect.poll(async () => (await fetch(short.url)).status, { timeout: 10_000, interval: 100 }).toBe(403);
      // s3rver does not check presigned signatures (AWS, R2 and MinIO do): only the URL's form is checked above.
      expectProblem(
        await call(filesGet, `/api/files/t-${run}/dl/short.bin?exp=1&name=a&type=b&sig=c`, {
          params: { key: [`t-${run}`, "dl", "short.bin"] } as never,
        }),
        404,
        "file_not_found",
      );
    });

  describe("product images", () => {
    const png = (seed: string) =>
      Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d4948445200000080000000800806000000", "hex"), Buffer.from(seed), Buffer.alloc(2048)]);
    const input = (icon: string) =>
      productInputSchema.parse({
        name: `Storage Product ${run}${Math.random().toString(36).slice(2, 6)}`,
        description: "A product used by the storage tests, long enough to be valid.",
        plugin_id: `com.test.st${run}${Math.random().toString(36).slice(2, 6)}`,
        price_cents: 1500,
        category: "audio-plugins",
        max_machines: 2,
        seat_model: "per-machine",
        platforms: ["linux"],
        download_url: "https://builds.example.com/app.zip",
        icon_url: icon,
        images: [],
      });

    it("are stored, counted, served and swept through the store", async () => {
      const dev = await sellingDeveloper(`st-${driver.name}-${run}@example.com`, { name: `St ${driver.name} ${run}`, website: null, bio: "" });
      const [used, orphan] = await saveUploads(dev.id, [png(`used-${driver.name}-${run}`), png(`orphan-${driver.name}-${run}`)]);
      if (!used || !orphan) throw new Error("no paths");
      expect(used).toMatch(/^\/uploads\/[a-f0-9]{12}-[a-f0-9]{32}\.png$/);
      const name = used.slice("/uploads/".length);
      // Flat keys: the public name is the object's key.
      expect(await store.head(name)).toMatchObject({ size: png(`used-${driver.name}-${run}`).byteLength });
      expect(await uploadUsage(dev.id)).toBe(png(`used-${driver.name}-${run}`).byteLength + png(`orphan-${driver.name}-${run}`).byteLength);
      const served = await call(uploadRoute, used, { params: { file: name } });
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe("image/png");
      expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(served.text.length).toBeGreaterThan(2000);
      expect(await openUpload("not-an-upload.txt")).toBeNull();

      await createProduct(dev.id, input(used), { publish: true });
      // Not yet past the grace period: nothing goes.
      await sweepUploads();
      expect(await store.head(orphan.slice("/uploads/".length))).not.toBeNull();
      // Two hours later the unreferenced one goes, the referenced one and other objects stay.
      await store.put(k("img/keep.bin"), Buffer.from("k"), { size: 1, contentType: "application/octet-stream" });
      expect(await sweepUploads(3_600_000, Date.now() + 2 * 3_600_000)).toBeGreaterThanOrEqual(1);
      expect(await store.head(orphan.slice("/uploads/".length))).toBeNull();
      expect(await store.head(name)).not.toBeNull();
      expect(await store.head(k("img/keep.bin"))).not.toBeNull();
      expect(await uploadUsage(dev.id)).toBe(png(`used-${driver.name}-${run}`).byteLength);
    });
  });
});

describe("storage settings", () => {
  it("refuses the S3 driver without a bucket, a bad prefix, or half the credentials, at start", () => {
    expect(() => checkStorageSettings(parseEnv({ STORAGE_DRIVER: "s3" }))).toThrow(/STORAGE_DRIVER=s3 needs S3_BUCKET/);
    expect(() => checkStorageSettings(parseEnv({ STORAGE_DRIVER: "s3", S3_BUCKET: "b", S3_PREFIX: "../x/" }))).toThrow(/S3_PREFIX/);
    expect(() => checkStorageSettings(parseEnv({ STORAGE_DRIVER: "s3", S3_BUCKET: "b", S3_ACCESS_KEY_ID: "id" }))).toThrow(/S3_SECRET_ACCESS_KEY/);
    expect(() => checkStorageSettings(parseEnv({ STORAGE_DRIVER: "s3", S3_BUCKET: "b", S3_PREFIX: "ilm/" }))).not.toThrow();
    expect(() => checkStorageSettings(parseEnv({}))).not.toThrow();
  });
});

describe("S3 driver when the connection fails before the body does", () => {
  it("rejects with the connection's error, releases the body, and leaves its later error handled", async () => {
    // A server that takes the request's headers and resets the connection, as a stale or overloaded peer does.
    const { createServer } = await import("node:net");
    const server = createServer((socket) => {
      socket.once("data", () => socket.resetAndDestroy());
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const store = new S3ObjectStore({
      ...parseEnv({}),
      S3_BUCKET: "b",
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_FORCE_PATH_STYLE: "on",
      S3_ACCESS_KEY_ID: "id",
      S3_SECRET_ACCESS_KEY: "secret",
    });
    const body = new Readable({
      read() {
        this.push(Buffer.alloc(16 * 1024, 1));
      },
    });
    try {
      await expect(store.put("late/file.bin", body, { size: 10 * 1024 * 1024, contentType: "application/octet-stream" })).rejects.toThrow(
        /ECONNRESET|EPIPE|socket hang up/,
      );
      expect(body.destroyed).toBe(true);
      // The body fails too, but only later, once the put has given up on it: without a listener that error would be
      // an uncaught exception, which Vitest reports once its event has run (two turns of the event loop, waited for
      // here instead of sleeping past a timer that failed the body after 1.5 s).
      body.destroy(new Error("too late"));
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      await store.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
