import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as listRoute, PUT as reorderRoute } from "@/app/api/v1/products/[id]/media/route";
import { DELETE as deleteRoute, PATCH as patchRoute } from "@/app/api/v1/products/[id]/media/[media_id]/route";
import { GET as mediaFile, HEAD as mediaHead } from "@/app/uploads/media/[file]/route";
import { disconnectDb, getDb } from "@/lib/db";
import { coverArt, demoClip, encodePng } from "@/lib/media/generate";
import { MEDIA_RULES } from "@/lib/media/limits";
import { MEDIA_VARIANT_WIDTH, mediaSrcSet, variantKey } from "@/lib/media/variant";
import { imageSize } from "@/lib/selling/image-size";
import { objectStore } from "@/lib/storage";
import { call, expectProblem, type Reply } from "../helpers/http";
import { startLeanServer } from "../helpers/lean-server";
import { createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

/**
 * Issue 35, item 1: products lead with uploaded pictures and play uploaded demos. Uploads stream on the lean path
 * (as server.ts serves them) and are checked by their bytes; alt text, order and deletion run through execute() by
 * the REST routes; the files are served with byte ranges while the product is listed, and not otherwise.
 */

const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
let lean: Awaited<ReturnType<typeof startLeanServer>>;
const seller = { cookie: "", devId: "", product: "" };
const other = { cookie: "", devId: "", product: "" };

/** A plain RGB PNG of the given size, different for every `shade`. */
function png(width: number, height: number, shade = 0): Buffer {
  const rgb = new Uint8Array(width * height * 3);
  rgb.fill(shade);
  return encodePng(width, height, rgb);
}

async function upload(query: Record<string, string>, body: Uint8Array, who = seller, product = who.product): Promise<Reply> {
  const r = await fetch(`${lean.base}/api/v1/products/${product}/media/upload?${new URLSearchParams(query).toString()}`, {
    method: "PUT",
    headers: { cookie: who.cookie, "content-type": "application/octet-stream" },
    body: Buffer.from(body),
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

const auth = (who = seller) => ({ cookie: who.cookie, origin: "http://localhost:3000" });
const list = (who = seller) => call(listRoute, `/api/v1/products/${who.product}/media`, { headers: auth(who), params: { id: who.product } });
const fileName = (url: string) => url.split("/").pop()!;
const getFile = (url: string, headers: Record<string, string> = {}) => call(mediaFile, url, { headers, params: { file: fileName(url) } });
async function fileBytes(url: string, headers: Record<string, string> = {}) {
  const response = await mediaFile(new Request(`http://localhost:3000${url}`, { headers }), { params: Promise.resolve({ file: fileName(url) }) });
  return { response, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function signedIn(tag: string) {
  const email = `media-${tag}-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Media ${tag} ${run}`, website: null, bio: "" });
  const product = await createTestProduct(dev.id, `Media ${tag} ${run}`, `com.media.${tag}${run}`);
  // Listed, whatever a new product starts as: the store shows (and serves the media of) listed products only.
  await getDb().product.update({ where: { id: product.id }, data: { status: "active" } });
  return { cookie: await sellerCookie(email), devId: dev.id, product: product.id };
}

beforeAll(async () => {
  lean = await startLeanServer();
  Object.assign(seller, await signedIn("a"));
  Object.assign(other, await signedIn("b"));
});

afterAll(async () => {
  await lean.close();
  await disconnectDb();
});

describe("uploading product media", () => {
  it("refuses files that are not what the kind takes, by their bytes, and names the rule", async () => {
    expectProblem(await upload({ kind: "cover", alt: "A cover" }, Buffer.from("not an image at all")), 415, "media_type");
    // A GIF is an image, but not one media takes.
    expectProblem(await upload({ kind: "image", alt: "A GIF" }, Buffer.concat([Buffer.from("GIF89a"), Buffer.alloc(64)])), 415, "media_type");
    // A WAV file is no picture, and a PNG no audio.
    expectProblem(await upload({ kind: "image", alt: "Sound" }, demoClip("x", "delay", 0.1)), 415, "media_type");
    expectProblem(await upload({ kind: "audio" }, png(400, 300)), 415, "media_type");
    // A cover must be wide and large; a screenshot at least 320 × 200.
    const square = await upload({ kind: "cover", alt: "Square" }, png(1200, 1200));
    expectProblem(square, 422, "media_dimensions");
    expect(square.body.detail).toContain("1200 × 1200");
    expectProblem(await upload({ kind: "cover", alt: "Small" }, png(800, 420)), 422, "media_dimensions");
    expectProblem(await upload({ kind: "image", alt: "Tiny" }, png(100, 80)), 422, "media_dimensions");
    // Images need alt text; control characters are refused.
    expectProblem(await upload({ kind: "image" }, png(400, 300)), 400, "media_alt_required");
    expectProblem(await upload({ kind: "image", alt: "bell\u0007" }, png(400, 300)), 400, "invalid_query");
    expectProblem(await upload({ kind: "image", alt: "Empty" }, new Uint8Array(0)), 400, "media_empty");
    expectProblem(await upload({ kind: "poster", alt: "?" }, png(400, 300)), 400, "invalid_query");
    // Larger than the kind allows: refused (the declared length says so before the body is read).
    expectProblem(await upload({ kind: "image", alt: "Huge" }, new Uint8Array(MEDIA_RULES.image.maxBytes + 1)), 413, "media_too_large");
    // Another seller's product, or none at all: not found.
    expectProblem(await upload({ kind: "image", alt: "Theirs" }, png(400, 300), seller, other.product), 404, "product_not_found");
    expect((await list()).body.media).toEqual([]);
  });

  it("stores, describes, orders and deletes media through the operations", async () => {
    const cover = await upload({ kind: "cover", alt: "Cover art" }, coverArt(`cover-${run}`));
    expect(cover.status, cover.text).toBe(201);
    expect(cover.body).toMatchObject({ kind: "cover", content_type: "image/png", width: 1200, height: 630, alt: "Cover art", position: 0 });
    expect(cover.body.url).toMatch(/^\/uploads\/media\/[a-f0-9]{32}\.png$/);
    const first = await upload({ kind: "image", alt: "First screen", caption: "The editor" }, png(400, 300, 10));
    const second = await upload({ kind: "image", alt: "Second screen" }, png(640, 400, 20));
    const audio = await upload({ kind: "audio", caption: "Before and after" }, demoClip(`a-${run}`, "compression", 0.5));
    for (const r of [first, second, audio]) expect(r.status, r.text).toBe(201);
    expect(audio.body).toMatchObject({ kind: "audio", content_type: "audio/wav", width: null, duration_ms: expect.any(Number) });
    expect(audio.body.duration_ms).toBeGreaterThan(1000);
    // The same file again is the same item, not a second one.
    const again = await upload({ kind: "image", alt: "First screen" }, png(400, 300, 10));
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    let media = (await list()).body.media as Array<{ id: string; kind: string; position: number }>;
    expect(media.map((m) => m.id)).toEqual([cover.body.id, first.body.id, second.body.id, audio.body.id]);

    // Reorder: every item but the cover, once.
    const reorder = (ids: string[]) =>
      call(reorderRoute, `/api/v1/products/${seller.product}/media`, {
        method: "PUT",
        headers: auth(),
        json: { ids },
        params: { id: seller.product },
      });
    expectProblem(await reorder([second.body.id]), 400, "media_order_mismatch");
    expectProblem(await reorder([second.body.id, first.body.id, audio.body.id, "nope"]), 400, "media_order_mismatch");
    const reordered = await reorder([audio.body.id, second.body.id, first.body.id]);
    expect(reordered.status, reordered.text).toBe(200);
    media = reordered.body.media;
    expect(media.map((m) => m.id)).toEqual([cover.body.id, second.body.id, first.body.id, audio.body.id]);
    expect(media.map((m) => m.position)).toEqual([0, 0, 1, 0]);

    // Alt text and caption.
    const patch = (id: string, json: unknown, who = seller) =>
      call(patchRoute, `/api/v1/products/${who.product}/media/${id}`, {
        method: "PATCH",
        headers: auth(who),
        json,
        params: { id: who.product, media_id: id },
      });
    const patched = await patch(second.body.id, { alt: "The mixer view", caption: "Mixer" });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ alt: "The mixer view", caption: "Mixer" });
    expectProblem(await patch(second.body.id, { alt: "" }), 400, "media_alt_required");
    expectProblem(await patch(second.body.id, { caption: "tab\u0000" }), 400, "invalid_body");
    expect((await patch(audio.body.id, { alt: "" })).status).toBe(200);
    // Another seller cannot touch it, not even by naming it under their own product.
    expectProblem(await patch(second.body.id, { alt: "Mine" }, other), 404, "media_not_found");

    // A new cover replaces the old one, whose file goes.
    const oldKey = `media/${fileName(cover.body.url)}`;
    const cover2 = await upload({ kind: "cover", alt: "New cover" }, coverArt(`cover2-${run}`));
    expect(cover2.status).toBe(201);
    media = (await list()).body.media;
    expect(media.filter((m) => m.kind === "cover").map((m) => m.id)).toEqual([cover2.body.id]);
    expect(await objectStore().head(oldKey)).toBeNull();

    // Delete: the item and, unused elsewhere, its file.
    const remove = (id: string) =>
      call(deleteRoute, `/api/v1/products/${seller.product}/media/${id}`, {
        method: "DELETE",
        headers: auth(),
        params: { id: seller.product, media_id: id },
      });
    const key = `media/${fileName(first.body.url)}`;
    expect(await objectStore().head(key)).not.toBeNull();
    expect((await remove(first.body.id)).body).toEqual({ deleted: true });
    expect(await objectStore().head(key)).toBeNull();
    expectProblem(await remove(first.body.id), 404, "media_not_found");
    expect(((await list()).body.media as Array<{ id: string }>).map((m) => m.id)).toEqual([cover2.body.id, second.body.id, audio.body.id]);
  });
});

describe("serving product media", () => {
  it("serves a listed product's file whole, by single byte ranges, and refuses a range past the end", async () => {
    const clip = demoClip(`serve-${run}`, "reverb", 0.5);
    const item = await upload({ kind: "audio", caption: "Served" }, clip);
    expect(item.status, item.text).toBe(201);
    const whole = await fileBytes(item.body.url);
    expect(whole.response.status).toBe(200);
    expect(whole.bytes.equals(clip)).toBe(true);
    expect(Object.fromEntries(whole.response.headers)).toMatchObject({
      "content-type": "audio/wav",
      "content-length": String(clip.byteLength),
      "accept-ranges": "bytes",
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
    });
    const etag = whole.response.headers.get("etag")!;
    expect(etag).toBe(`"${fileName(item.body.url).split(".")[0]!}"`);

    const part = await fileBytes(item.body.url, { range: "bytes=100-199" });
    expect(part.response.status).toBe(206);
    expect(part.response.headers.get("content-range")).toBe(`bytes 100-199/${String(clip.byteLength)}`);
    expect(part.response.headers.get("content-length")).toBe("100");
    expect(part.bytes.equals(clip.subarray(100, 200))).toBe(true);
    const tail = await fileBytes(item.body.url, { range: "bytes=-10" });
    expect(tail.response.status).toBe(206);
    expect(tail.bytes.equals(clip.subarray(clip.byteLength - 10))).toBe(true);
    const open = await fileBytes(item.body.url, { range: `bytes=${String(clip.byteLength - 5)}-` });
    expect(open.response.status).toBe(206);
    expect(open.bytes.byteLength).toBe(5);

    const past = await getFile(item.body.url, { range: `bytes=${String(clip.byteLength)}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${String(clip.byteLength)}`);
    // Several ranges, or If-Range naming another version: the whole file.
    expect((await fileBytes(item.body.url, { range: "bytes=0-1,5-6" })).response.status).toBe(200);
    expect((await fileBytes(item.body.url, { range: "bytes=0-1", "if-range": '"other"' })).response.status).toBe(200);
    expect((await fileBytes(item.body.url, { range: "bytes=0-1", "if-range": etag })).response.status).toBe(206);
    const head = await mediaHead(new Request(`http://localhost:3000${item.body.url as string}`, { method: "HEAD" }), {
      params: Promise.resolve({ file: fileName(item.body.url) }),
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(clip.byteLength));
  });

  it("serves nothing of a product that is not listed, and nothing for a name no media has", async () => {
    const item = await upload({ kind: "image", alt: "Hidden soon" }, png(400, 300, 99));
    expect(item.status, item.text).toBe(201);
    expect((await getFile(item.body.url)).status).toBe(200);
    for (const status of ["unlisted", "removed", "suspended", "draft"]) {
      await getDb().product.update({ where: { id: seller.product }, data: { status } });
      expectProblem(await getFile(item.body.url), 404, "media_not_found");
      // Another seller signed in sees nothing either; the product's own seller does (their preview, their Media
      // section), privately: no shared cache may keep it.
      expectProblem(await getFile(item.body.url, { cookie: other.cookie }), 404, "media_not_found");
      const own = await getFile(item.body.url, { cookie: seller.cookie });
      expect(own.status, status).toBe(200);
      expect(own.headers.get("cache-control")).toBe("private, no-store");
    }
    await getDb().product.update({ where: { id: seller.product }, data: { status: "active" } });
    const listed = await getFile(item.body.url);
    expect(listed.status).toBe(200);
    expect(listed.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expectProblem(await call(mediaFile, "/uploads/media/x", { params: { file: "0123456789abcdef0123456789abcdef.png" } }), 404, "media_not_found");
    expectProblem(await call(mediaFile, "/uploads/media/x", { params: { file: "../../etc/passwd" } }), 404, "media_not_found");
  });

  it("serves a picture's narrow copy under the original's rule, made once and kept, and deletes it with the picture", async () => {
    // Wide and detailed enough that the copy is a real saving (a flat colour would compress to nothing either way).
    const original = coverArt(`variant-${run}`, 1600, 840);
    const item = await upload({ kind: "image", alt: "Wide screenshot" }, original);
    expect(item.status, item.text).toBe(201);
    const hash = fileName(item.body.url).split(".")[0]!;
    const copyUrl = `/uploads/media/${hash}-w${String(MEDIA_VARIANT_WIDTH)}.webp`;
    // The page offers both, by width; a picture no wider than the copy has no srcset (the original is the right file).
    expect(mediaSrcSet(item.body)).toBe(`${copyUrl} 640w, ${item.body.url as string} 1600w`);
    expect(mediaSrcSet({ url: item.body.url, width: 640 })).toBeUndefined();
    expect(await objectStore().head(variantKey(hash))).toBeNull();

    const first = await fileBytes(copyUrl);
    expect(first.response.status).toBe(200);
    expect(Object.fromEntries(first.response.headers)).toMatchObject({
      "content-type": "image/webp",
      "content-length": String(first.bytes.byteLength),
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
      etag: `"${hash}-w640"`,
    });
    expect(imageSize(first.bytes)).toEqual({ width: 640, height: 336 });
    expect(first.bytes.byteLength).toBeLessThan(original.byteLength / 4);
    // Kept: the next request reads the stored copy, the same bytes.
    expect(await objectStore().head(variantKey(hash))).toMatchObject({ size: first.bytes.byteLength, contentType: "image/webp" });
    expect((await fileBytes(copyUrl)).bytes.equals(first.bytes)).toBe(true);
    // Requests racing for a copy not made yet all get the same bytes.
    await objectStore().delete(variantKey(hash));
    const racing = await Promise.all(Array.from({ length: 4 }, () => fileBytes(copyUrl)));
    for (const r of racing) expect(r.bytes.equals(first.bytes)).toBe(true);
    const head = await mediaHead(new Request(`http://localhost:3000${copyUrl}`, { method: "HEAD" }), {
      params: Promise.resolve({ file: fileName(copyUrl) }),
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(first.bytes.byteLength));

    // The original's rule: not listed, only its own seller (privately); no copy of a demo clip, nor of an unknown hash.
    await getDb().product.update({ where: { id: seller.product }, data: { status: "unlisted" } });
    expectProblem(await getFile(copyUrl), 404, "media_not_found");
    expectProblem(await getFile(copyUrl, { cookie: other.cookie }), 404, "media_not_found");
    const own = await getFile(copyUrl, { cookie: seller.cookie });
    expect(own.status).toBe(200);
    expect(own.headers.get("cache-control")).toBe("private, no-store");
    await getDb().product.update({ where: { id: seller.product }, data: { status: "active" } });
    const clip = await upload({ kind: "audio", caption: "No copy" }, demoClip(`variant-${run}`, "delay", 0.3));
    expect(clip.status, clip.text).toBe(201);
    expectProblem(await getFile(`/uploads/media/${fileName(clip.body.url).split(".")[0]!}-w640.webp`), 404, "media_not_found");
    expectProblem(await getFile("/uploads/media/0123456789abcdef0123456789abcdef-w640.webp"), 404, "media_not_found");

    // Deleting the picture deletes its copy too.
    const removed = await call(deleteRoute, `/api/v1/products/${seller.product}/media/${item.body.id as string}`, {
      method: "DELETE",
      headers: auth(),
      params: { id: seller.product, media_id: item.body.id },
    });
    expect(removed.body).toEqual({ deleted: true });
    expect(await objectStore().head(variantKey(hash))).toBeNull();
    expectProblem(await getFile(copyUrl), 404, "media_not_found");
  });

  it("answers a narrow copy it cannot make with the original: a picture whose header reads but whose pixels do not", async () => {
    const broken = Buffer.from(coverArt(`broken-${run}`, 1600, 840));
    // The header (and so the size check at upload) is intact; the compressed pixels after it are not.
    broken.fill(0xab, 200, broken.byteLength - 20);
    const item = await upload({ kind: "image", alt: "Broken inside" }, broken);
    expect(item.status, item.text).toBe(201);
    const copyUrl = `/uploads/media/${fileName(item.body.url).split(".")[0]!}-w640.webp`;
    for (let i = 0; i < 2; i++) {
      const answer = await fileBytes(copyUrl);
      expect(answer.response.status).toBe(200);
      expect(answer.response.headers.get("content-type")).toBe("image/png");
      expect(answer.bytes.equals(broken)).toBe(true);
    }
  });

  it("seeds the demo catalogue with cover art for every product and audio demos for a few plugins", async () => {
    const products = await getDb().product.findMany({ where: { developerId: "tidewater-audio" }, select: { id: true } });
    expect(products.length).toBeGreaterThan(0);
    const media = await getDb().productMedia.findMany({ where: { productId: { in: products.map((p) => p.id) } } });
    for (const p of products) expect(media.some((m) => m.productId === p.id && m.kind === "cover" && m.alt.length > 0)).toBe(true);
    const audio = media.filter((m) => m.kind === "audio");
    expect(audio.length).toBeGreaterThanOrEqual(2);
    const served = await fileBytes(`/uploads/media/${audio[0]!.key.slice("media/".length)}`, { range: "bytes=0-11" });
    expect(served.response.status).toBe(206);
    expect(served.bytes.toString("latin1")).toBe("RIFF" + served.bytes.subarray(4, 8).toString("latin1") + "WAVE");
  });
});
