import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderToStaticMarkup } from "react-dom/server";
import { prerender } from "react-dom/static";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { POST as acpCreate } from "@/app/api/acp/checkout_sessions/route";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { acpHeaders } from "../helpers/acp";
import { updateProductAction } from "@/app/(dashboard)/dashboard/(app)/products/actions";
import ProductPage, { generateMetadata } from "@/app/(store)/products/[id]/page";
import { GET as detailsRoute } from "@/app/api/marketplace/product/[id]/route";
import { PUT as updateRoute } from "@/app/api/v1/products/[id]/route";
import { POST as createRoute } from "@/app/api/v1/products/route";
import { ProductSummary } from "@/components/checkout/product-summary";
import { EMPTY_FORM, type FormState } from "@/components/dashboard/form-state";
import { ProductCard } from "@/components/store/product-card";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { productSelect, stringList, toListingProduct } from "@/lib/marketplace/serialize";
import { resetObjectStore } from "@/lib/storage";
import { saveUploads } from "@/lib/selling/uploads";
import { call, expectProblem, type Reply } from "../helpers/http";
import { sellerToken } from "../helpers/seller-tokens";
import { createTestProduct, sellerCookie, sellingDeveloper, testProductBody } from "../helpers/sellers";

/**
 * Security review, issue 31, item 5: a seller could give a product's icon or screenshots as another site's URL, and
 * every visitor's browser then fetched it from that site (which learned who looked at the product). Now an image given
 * by URL is fetched once, by the server, under the webhook SSRF rules (lib/seller-webhooks/target.ts), checked and
 * stored as an upload, and the product keeps the /uploads/ path; a product saved before that still holding another
 * site's address shows a placeholder, never that address. The remote site here is a local HTTP server (http and
 * loopback are what WEBHOOK_ALLOW_PRIVATE=on allows outside production, as the webhook tests use it).
 */

// The product page reads cookies; the dashboard's action its session cookie from the request's headers.
let cookie = "";
vi.mock("next/headers", () => ({
  cookies: () => Promise.resolve({ get: () => undefined }),
  headers: () => Promise.resolve(new Headers({ cookie })),
}));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
class Redirect extends Error {}
vi.mock("next/navigation", async (original) => ({
  ...(await original<object>()),
  redirect: (url: string) => {
    throw new Redirect(url);
  },
  useRouter: () => ({ refresh: () => undefined, push: () => undefined, replace: () => undefined, back: () => undefined, prefetch: () => undefined }),
}));

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const saved = {
  WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE,
  UPLOAD_DIR: process.env.UPLOAD_DIR,
  UPLOAD_QUOTA_MB: process.env.UPLOAD_QUOTA_MB,
};
let dir = "";
let origin = "";
let server: Server;
const hits = new Map<string, number>();

/** A PNG of about `kib` KiB (a valid signature and header, padded), different for every `seed`. */
const png = (seed: string, kib = 1) =>
  Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d4948445200000080000000800806000000", "hex"), Buffer.from(seed), Buffer.alloc(kib * 1024)]);
const gif = (seed: string) => Buffer.concat([Buffer.from("GIF89a"), Buffer.from(seed), Buffer.alloc(64)]);

/** What the "remote site" serves, by path; every request is counted. */
const FILES: Record<string, { type: string; body: () => Buffer; chunked?: boolean }> = {
  "/icon.png": { type: "image/png", body: () => png(`icon-${run}`) },
  "/shot.gif": { type: "image/gif", body: () => gif(`shot-${run}`) },
  "/put.png": { type: "image/png", body: () => png(`put-${run}`) },
  "/after-redirect.png": { type: "image/png", body: () => png(`redirected-${run}`) },
  "/form.png": { type: "image/png", body: () => png(`form-${run}`) },
  "/quota.png": { type: "image/png", body: () => png(`quota-${run}`, 400) },
  "/private.png": { type: "image/png", body: () => png(`private-${run}`) },
  // Named .png, served as image/png: only the bytes decide.
  "/page.png": { type: "image/png", body: () => Buffer.from(`<html><body>not an image ${run}</body></html>`) },
  "/svg.png": { type: "image/svg+xml", body: () => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)">${run}</svg>`) },
  "/big.png": { type: "image/png", body: () => png(`big-${run}`, 600) },
  // No Content-Length: the cap holds while reading.
  "/big-chunked.png": { type: "image/png", body: () => png(`bigc-${run}`, 2048), chunked: true },
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ilm-remote-images-"));
  process.env.UPLOAD_DIR = dir;
  server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === "/redirect") return void res.writeHead(302, { Location: "/after-redirect.png" }).end();
    if (path === "/loop") return void res.writeHead(302, { Location: "/loop" }).end();
    const file = FILES[path];
    if (!file) return void res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
    const body = file.body();
    if (file.chunked) {
      res.writeHead(200, { "Content-Type": file.type });
      for (let i = 0; i < body.length; i += 64 * 1024) res.write(body.subarray(i, i + 64 * 1024));
      return void res.end();
    }
    res.writeHead(200, { "Content-Type": file.type, "Content-Length": String(body.length) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

beforeEach(() => {
  process.env.WEBHOOK_ALLOW_PRIVATE = "on";
  resetEnv();
  resetObjectStore();
});

afterEach(() => {
  delete process.env.UPLOAD_QUOTA_MB;
  resetEnv();
});

afterAll(async () => {
  // Products with uploaded icons leave the store (tests/integration/database.test.ts checks the catalogue's icons).
  await getDb().product.updateMany({ where: { developer: { email: { startsWith: "img-" } } }, data: { status: "unlisted" } });
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) Reflect.deleteProperty(process.env, k);
    else process.env[k] = v;
  }
  resetEnv();
  resetObjectStore();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
  await disconnectDb();
});

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const files = async () => (await readdir(dir)).sort();
const exists = (path: string) =>
  stat(join(dir, path.replace("/uploads/", ""))).then(
    () => true,
    () => false,
  );
const UPLOAD_PATH = /^\/uploads\/[a-f0-9]{12}-[a-f0-9]{32}\.(png|gif)$/;

async function seller() {
  const dev = await sellingDeveloper(`img-${unique()}@example.com`, { name: `Image Studio ${unique()}`, website: null, bio: "" });
  return { dev, token: await sellerToken(dev.id, ["products"]) };
}

const create = (token: string, fields: Record<string, unknown>) =>
  call(createRoute, "/api/v1/products", {
    method: "POST",
    json: { ...testProductBody(`Image Product ${unique()}`, `com.img.p${unique()}`, fields), publish: true },
    headers: { authorization: `Bearer ${token}`, "idempotency-key": randomUUID() },
  });

/** The product page as a visitor gets it, and its metadata (Open Graph, Twitter). */
async function publicPage(id: string): Promise<string> {
  const page = await new Response(
    (await prerender(await ProductPage({ params: Promise.resolve({ id }), searchParams: Promise.resolve({}) }))).prelude,
  ).text();
  const meta = JSON.stringify(await generateMetadata({ params: Promise.resolve({ id }), searchParams: Promise.resolve({}) }));
  return `${page}\n${meta}`;
}

/** Every <img> src in some markup. */
const imgSources = (html: string) => [...html.matchAll(/<img\b[^>]*?\ssrc="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
/** This site's images only: a path, or BASE_URL's origin. */
const ours = (src: string) => src.startsWith("/") || src.startsWith("http://localhost:3000/");

/** A refusal: the problem's code and status, the field it names, and nothing saved or stored. */
async function expectRefused(
  reply: Reply,
  status: number,
  code: string,
  field: string,
  developerId: string,
  before: { products: number; files: string[] },
) {
  expectProblem(reply, status, code);
  expect(reply.body.errors, reply.text).toEqual(expect.arrayContaining([expect.objectContaining({ in: "body", name: field })]));
  expect(await getDb().product.count({ where: { developerId } })).toBe(before.products);
  expect(await files()).toEqual(before.files);
}

describe("an image given by URL is fetched once and stored as an upload", () => {
  it("POST /api/v1/products stores the icon and screenshots and saves their /uploads/ paths; the site is hit once per image", async () => {
    const { dev, token } = await seller();
    const created = await create(token, {
      icon_url: `${origin}/icon.png`,
      // The icon's URL again among the screenshots: one fetch, one file.
      images: [`${origin}/shot.gif`, `${origin}/icon.png`],
    });
    expect(created.status, created.text).toBe(201);
    const product = created.body.product as { id: string; icon_url: string; images: string[] };
    expect(product.icon_url).toMatch(UPLOAD_PATH);
    expect(product.icon_url).toMatch(/\.png$/);
    expect(product.images).toHaveLength(2);
    expect(product.images[0]).toMatch(UPLOAD_PATH);
    expect(product.images[0]).toMatch(/\.gif$/);
    expect(product.images[1]).toBe(product.icon_url);
    expect(hits.get("/icon.png")).toBe(1);
    expect(hits.get("/shot.gif")).toBe(1);
    // Stored as an upload is: the file under its content-hash name, the row holding the path.
    expect(await exists(product.icon_url)).toBe(true);
    expect(await exists(product.images[0]!)).toBe(true);
    const row = await getDb().product.findUniqueOrThrow({ where: { id: product.id } });
    expect(row.developerId).toBe(dev.id);
    expect(row.iconUrl).toBe(product.icon_url);
    expect(stringList(row.images)).toEqual(product.images);

    // Nothing a visitor or a client gets names the other site.
    const html = await publicPage(product.id);
    expect(html).not.toContain("127.0.0.1");
    expect(imgSources(html).length).toBeGreaterThanOrEqual(3);
    expect(imgSources(html).filter((s) => !ours(s))).toEqual([]);
    expect(html).toContain(`src="${product.icon_url}"`);
    const details = await call(detailsRoute, `/api/marketplace/product/${product.id}`, { params: { id: product.id } });
    expect(details.status, details.text).toBe(200);
    expect(details.text).not.toContain("127.0.0.1");
    expect(details.body.product.icon_url).toBe(`http://localhost:3000${product.icon_url}`);
    expect(details.body.product.images).toEqual(product.images.map((p) => `http://localhost:3000${p}`));

    // PUT too; a redirect is followed (and checked again), the target fetched once.
    const put = await call(updateRoute, `/api/v1/products/${product.id}`, {
      method: "PUT",
      params: { id: product.id },
      json: testProductBody(row.name, row.pluginId, { icon_url: `${origin}/put.png`, images: [`${origin}/redirect`] }),
      headers: { authorization: `Bearer ${token}` },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.product.icon_url).toMatch(UPLOAD_PATH);
    expect(put.body.product.images[0]).toMatch(UPLOAD_PATH);
    expect(await exists(put.body.product.images[0])).toBe(true);
    expect(hits.get("/put.png")).toBe(1);
    expect(hits.get("/redirect")).toBe(1);
    expect(hits.get("/after-redirect.png")).toBe(1);
  });

  it("the dashboard's form does the same, and words a refusal under the field", async () => {
    const { dev } = await seller();
    cookie = await sellerCookie(dev.email);
    const product = await createTestProduct(dev.id, `Form Product ${unique()}`, `com.img.f${unique()}`);
    const form = (icon: string, images = "") => {
      const fd = new FormData();
      const fields = {
        name: product.name,
        tagline: "",
        description: product.description,
        plugin_id: product.pluginId,
        price: "15",
        currency: "usd",
        category: product.category,
        max_machines: "2",
        seat_model: "per-machine",
        download_url: product.downloadUrl,
        icon_url: icon,
        images,
      };
      for (const [k, v] of Object.entries(fields)) fd.set(k, v);
      fd.append("platforms", "linux");
      return fd;
    };
    const submit = async (fd: FormData): Promise<FormState | string> => {
      try {
        return await updateProductAction(product.id, EMPTY_FORM, fd);
      } catch (error) {
        if (error instanceof Redirect) return error.message;
        throw error;
      }
    };
    const ok = await submit(form(`${origin}/form.png`));
    expect(ok, JSON.stringify(ok)).toMatch(/notice=product-saved$/);
    expect((await getDb().product.findUniqueOrThrow({ where: { id: product.id } })).iconUrl).toMatch(UPLOAD_PATH);
    expect(hits.get("/form.png")).toBe(1);

    const refused = await submit(form(`${origin}/missing.png`, `${origin}/page.png`));
    if (typeof refused === "string") throw new Error(`expected a refusal, got ${refused}`);
    expect(refused.errors.icon_url?.[0]).toMatch(/Could not fetch the image at .*missing\.png: HTTP 404/);
    expect(refused.errors.images?.[0]).toMatch(/^Screenshot 1: Upload a PNG, JPEG, WebP or GIF image/);
  });
});

describe("an image URL that cannot be stored is refused, naming the field, and nothing is saved", () => {
  it("not an image: 415 upload_type", async () => {
    const { dev, token } = await seller();
    const before = { products: await getDb().product.count({ where: { developerId: dev.id } }), files: await files() };
    await expectRefused(await create(token, { icon_url: `${origin}/page.png` }), 415, "upload_type", "icon_url", dev.id, before);
    // SVG can carry script: refused whatever its Content-Type says. A good image sent with it is not stored either.
    await expectRefused(
      await create(token, { icon_url: `${origin}/icon.png`, images: [`${origin}/shot.gif`, `${origin}/svg.png`] }),
      415,
      "upload_type",
      "images.1",
      dev.id,
      before,
    );
  });

  it("too large: 413 upload_too_large, by its Content-Length or as it is read", async () => {
    const { dev, token } = await seller();
    const before = { products: await getDb().product.count({ where: { developerId: dev.id } }), files: await files() };
    await expectRefused(await create(token, { icon_url: `${origin}/big.png` }), 413, "upload_too_large", "icon_url", dev.id, before);
    await expectRefused(await create(token, { images: [`${origin}/big-chunked.png`] }), 413, "upload_too_large", "images.0", dev.id, before);
  });

  it("beyond the seller's upload quota: 413 upload_quota_exceeded", async () => {
    process.env.UPLOAD_QUOTA_MB = "1";
    resetEnv();
    const { dev, token } = await seller();
    await saveUploads(dev.id, [png(`q1-${unique()}`, 400), png(`q2-${unique()}`, 400)]);
    const before = { products: await getDb().product.count({ where: { developerId: dev.id } }), files: await files() };
    await expectRefused(await create(token, { icon_url: `${origin}/quota.png` }), 413, "upload_quota_exceeded", "icon_url", dev.id, before);
  });

  it("cannot be fetched: 400 image_fetch_failed (an error status, too many redirects)", async () => {
    const { dev, token } = await seller();
    const before = { products: await getDb().product.count({ where: { developerId: dev.id } }), files: await files() };
    const missing = await create(token, { icon_url: `${origin}/missing.png` });
    await expectRefused(missing, 400, "image_fetch_failed", "icon_url", dev.id, before);
    expect(missing.body.detail).toMatch(/HTTP 404/);
    const loop = await create(token, { images: [`${origin}/loop`] });
    await expectRefused(loop, 400, "image_fetch_failed", "images.0", dev.id, before);
    expect(loop.body.detail).toMatch(/more than 3 redirects/);
    expect(hits.get("/loop")).toBe(4);
  });
});

describe("the fetch keeps to the webhook SSRF rules", () => {
  it("with WEBHOOK_ALLOW_PRIVATE=off a loopback or localhost image URL is refused before any request", async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE = "off";
    resetEnv();
    const { dev, token } = await seller();
    const before = { products: await getDb().product.count({ where: { developerId: dev.id } }), files: await files() };
    const loopback = await create(token, { icon_url: `${origin}/private.png` });
    await expectRefused(loopback, 400, "image_fetch_failed", "icon_url", dev.id, before);
    expect(loopback.body.detail).toMatch(/This image URL is refused: 127\.0\.0\.1 is a loopback address/);
    const port = new URL(origin).port;
    const named = await create(token, { images: [`http://localhost:${port}/private.png`] });
    await expectRefused(named, 400, "image_fetch_failed", "images.0", dev.id, before);
    expect(named.body.detail).toMatch(/its host is localhost/);
    const metadata = await create(token, { icon_url: "http://169.254.169.254/latest/meta-data/icon.png" });
    await expectRefused(metadata, 400, "image_fetch_failed", "icon_url", dev.id, before);
    expect(metadata.body.detail).toMatch(/link-local/);
    expect(hits.get("/private.png")).toBeUndefined();
  });
});

describe("a product saved before images were stored, still naming another site's image", () => {
  it("shows a placeholder and no screenshot from that site: no page, card or answer carries its address", async () => {
    const { dev } = await seller();
    const product = await createTestProduct(dev.id, `Legacy Product ${unique()}`, `com.img.l${unique()}`);
    await getDb().product.update({
      where: { id: product.id },
      data: { iconUrl: "https://tracker.example/pixel.png", images: ["https://tracker.example/shot.png", "/screens/chord-atlas-1.svg"] },
    });
    const html = await publicPage(product.id);
    expect(html).not.toContain("tracker.example");
    expect(imgSources(html).filter((s) => !ours(s))).toEqual([]);
    expect(html).toContain('src="/icons/placeholder.svg"');
    expect(html).toContain('src="/screens/chord-atlas-1.svg"');

    const details = await call(detailsRoute, `/api/marketplace/product/${product.id}`, { params: { id: product.id } });
    expect(details.text).not.toContain("tracker.example");
    expect(details.body.product.icon_url).toBe("http://localhost:3000/icons/placeholder.svg");
    expect(details.body.product.images).toEqual(["http://localhost:3000/screens/chord-atlas-1.svg"]);

    const row = await getDb().product.findUniqueOrThrow({ where: { id: product.id }, select: productSelect });
    const card = renderToStaticMarkup(ProductCard({ product: toListingProduct(row) }));
    expect(card).not.toContain("tracker.example");
    expect(imgSources(card)).toEqual(["/icons/placeholder.svg"]);
    // The checkout page's summary gets the icon as lib/checkout hands it out (the stored value, made absolute).
    const summary = renderToStaticMarkup(
      ProductSummary({
        product: { id: product.id, name: product.name, tagline: "", developer: dev.name, iconUrl: "https://tracker.example/pixel.png" } as never,
      }),
    );
    expect(imgSources(summary)).toEqual(["/icons/placeholder.svg"]);

    // An agent's ACP checkout session (and so the Stripe Checkout line item, built by the same helper) never carries
    // the other site's address either.
    await getDb().product.update({ where: { id: product.id }, data: { status: "active" } });
    const acp = await call(acpCreate, "/api/acp/checkout_sessions", {
      method: "POST",
      json: { line_items: [{ id: product.id }], currency: "usd", capabilities: { interventions: { supported: [] } } },
      headers: { [CLIENT_ADDRESS_HEADER]: "198.51.100.61", ...acpHeaders() },
    });
    expect(acp.status, acp.text).toBe(201);
    expect(acp.text).not.toContain("tracker.example");
    expect(acp.text).toContain("/icons/placeholder.svg");
  });
});
