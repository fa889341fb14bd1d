import { mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createProductAction } from "@/app/(dashboard)/dashboard/(app)/products/actions";
import { GET as uploadRoute } from "@/app/uploads/[file]/route";
import { EMPTY_FORM, type FormState } from "@/components/dashboard/form-state";
import { sellerCookie, sellingDeveloper } from "../helpers/sellers";
import { createProduct, updateProduct } from "@/lib/selling/products";
import { saveUpload, saveUploads, startUploadSweep, sweepUploads, uploadUsage } from "@/lib/selling/uploads";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { stringList } from "@/lib/marketplace/serialize";
import { productInputSchema, type ProductInput } from "@/lib/marketplace/schemas";
import { call } from "../helpers/http";

/**
 * Uploads used to be written before the rest of the product form was checked, with no quota and no clean-up: a
 * seller could fill the disk with files no product uses by submitting invalid forms. Now the whole form is checked
 * first, each seller has a quota, and files no product uses are deleted.
 */

// The product form's server action, run here as the browser would: the seller's session cookie in the request's
// headers, and Next's redirect as a thrown answer.
let cookie = "";
vi.mock("next/headers", () => ({ headers: () => Promise.resolve(new Headers({ cookie })) }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
class Redirect extends Error {}
vi.mock("next/navigation", () => ({
  redirect: (url: string) => {
    throw new Redirect(url);
  },
  notFound: () => {
    throw new Redirect("404");
  },
}));

/** Sends the new product form as the signed-in seller: its state after a refusal, or where a success redirects. */
async function submit(fd: FormData): Promise<{ state: FormState } | { redirect: string }> {
  try {
    return { state: await createProductAction(EMPTY_FORM, fd) };
  } catch (error) {
    if (error instanceof Redirect) return { redirect: error.message };
    throw error;
  }
}
const refusal = (r: Awaited<ReturnType<typeof submit>>): FormState => {
  if (!("state" in r)) throw new Error(`expected a refusal, got a redirect to ${r.redirect}`);
  return r.state;
};

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ilm-uploads-"));
  process.env.UPLOAD_DIR = dir;
  resetEnv();
});
afterEach(() => {
  delete process.env.UPLOAD_QUOTA_MB;
  resetEnv();
});
afterAll(async () => {
  // Their image files go with the temporary directory: the products leave the store, so other test files' listings
  // (which expect the catalogue's bundled icons first) are not disturbed.
  await getDb().product.updateMany({ where: { developer: { email: { startsWith: "up-" } } }, data: { status: "unlisted" } });
  delete process.env.UPLOAD_DIR;
  resetEnv();
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

/** A PNG of about `kib` KiB (a valid signature and a 128 × 128 header, padded), different for every `seed`. */
function png(seed: string, kib = 1): Buffer {
  const head = Buffer.from("89504e470d0a1a0a0000000d4948445200000080000000800806000000", "hex");
  return Buffer.concat([head, Buffer.from(seed), Buffer.alloc(kib * 1024)]);
}
const gif = (seed: string) => Buffer.concat([Buffer.from("GIF89a"), Buffer.from(seed), Buffer.alloc(64)]);

async function seller() {
  const dev = await sellingDeveloper(`up-${unique()}@example.com`, { name: `Up ${unique()}`, website: null, bio: "" });
  cookie = await sellerCookie(dev.email);
  return dev;
}

function form(fields: Record<string, string>, uploads: Record<string, Buffer[]> = {}): FormData {
  const fd = new FormData();
  const base = {
    name: `Upload Synth ${unique()}`,
    tagline: "",
    description: "A product used by the upload tests, long enough to be valid.",
    plugin_id: `com.test.up${unique()}`,
    price: "15",
    category: "audio-plugins",
    max_machines: "2",
    seat_model: "per-machine",
    download_url: "https://builds.example.com/app.zip",
    icon_url: "",
    images: "",
    ...fields,
  };
  for (const [k, v] of Object.entries(base)) fd.set(k, v);
  fd.append("platforms", "linux");
  for (const [name, list] of Object.entries(uploads))
    list.forEach((bytes, i) => fd.append(name, new File([new Uint8Array(bytes)], `f${String(i)}.png`)));
  return fd;
}

function input(icon: string, images: string[] = []): ProductInput {
  return productInputSchema.parse({
    name: `Upload Product ${unique()}`,
    description: "A product used by the upload tests, long enough to be valid.",
    plugin_id: `com.test.upp${unique()}`,
    price_cents: 1500,
    category: "audio-plugins",
    max_machines: 2,
    seat_model: "per-machine",
    platforms: ["linux"],
    download_url: "https://builds.example.com/app.zip",
    icon_url: icon,
    images,
  });
}

describe("product form uploads", () => {
  it("stores no file when the rest of the form is invalid", async () => {
    await seller();
    const before = await files();
    const state = refusal(
      await submit(form({ description: "too short", price: "abc" }, { icon: [png(`icon-${unique()}`)], image_files: [png(`shot-${unique()}`)] })),
    );
    expect(state.errors.description).toBeDefined();
    expect(state.errors.price).toBeDefined();
    expect(state.message).toMatch(/Choose your image files again/);
    expect(await files()).toEqual(before);
  });

  it("stores the files once the whole form is valid, and refuses files by their bytes, not their names", async () => {
    await seller();
    const ok = await submit(form({}, { icon: [png(`ok-${unique()}`)], image_files: [gif(`g-${unique()}`)] }));
    if (!("redirect" in ok)) throw new Error(`refused: ${JSON.stringify(ok.state)}`);
    expect(ok.redirect).toMatch(/^\/dashboard\/products\/[a-z0-9-]+\?notice=product-created$/);
    const product = await getDb().product.findUniqueOrThrow({ where: { id: decodeURIComponent(ok.redirect.split("/")[3]!.split("?")[0]!) } });
    expect(product.iconUrl).toMatch(/^\/uploads\/[a-f0-9]{12}-[a-f0-9]{32}\.png$/);
    const images = stringList(product.images);
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/\.gif$/);
    expect(await exists(product.iconUrl)).toBe(true);
    const served = await call(uploadRoute, product.iconUrl, { params: { file: product.iconUrl.slice("/uploads/".length) } });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");

    const before = await files();
    const svg = refusal(await submit(form({}, { icon: [Buffer.from(`<svg onload=alert(1)>${unique()}</svg>`)] })));
    expect(svg.errors.icon?.[0]).toMatch(/PNG, JPEG, WebP or GIF/);
    // A screenshot is named by its file name; a good file sent with a bad one is not stored either.
    const mixed = refusal(await submit(form({}, { icon: [png(`fine-${unique()}`)], image_files: [Buffer.from(`not an image ${unique()}`)] })));
    expect(mixed.errors.image_files?.[0]).toMatch(/^f0\.png: Upload a PNG, JPEG, WebP or GIF image/);
    expect(mixed.errors.icon).toBeUndefined();
    expect(await files()).toEqual(before);
  });

  it("refuses uploads beyond the seller's quota and stores none of them", async () => {
    process.env.UPLOAD_QUOTA_MB = "1";
    resetEnv();
    const dev = await seller();
    const first = png(`q1-${unique()}`, 400);
    await saveUploads(dev.id, [first, png(`q2-${unique()}`, 400)]);
    expect(await uploadUsage(dev.id)).toBeGreaterThan(800 * 1024);
    const before = await files();
    await expect(saveUpload(png(`q3-${unique()}`, 400), dev.id)).rejects.toMatchObject({ status: 413, code: "upload_quota_exceeded" });
    const viaForm = refusal(await submit(form({}, { icon: [png(`q4-${unique()}`, 400)] })));
    expect(viaForm.errors.icon?.[0]).toMatch(/at most 1 MB/);
    expect(await files()).toEqual(before);
    // The same bytes again take no more room; another seller has a quota of their own.
    await expect(saveUpload(first, dev.id)).resolves.toMatch(/^\/uploads\//);
    await expect(saveUpload(png(`other-${unique()}`, 400), (await seller()).id)).resolves.toMatch(/^\/uploads\//);
  });
});

describe("clean-up", () => {
  it("deletes a product's replaced icon and removed screenshots, unless another product uses them", async () => {
    const dev = await seller();
    const [oldIcon, shot, shared] = await saveUploads(dev.id, [png(`old-${unique()}`), png(`shot-${unique()}`), png(`shared-${unique()}`)]);
    if (!oldIcon || !shot || !shared) throw new Error("no paths");
    const product = await createProduct(dev.id, input(oldIcon, [shot, shared]), { publish: true });
    await createProduct(dev.id, input(shared), { publish: true });
    const newIcon = await saveUpload(png(`new-${unique()}`), dev.id);
    await updateProduct(dev.id, product.id, input(newIcon, []));
    expect(await exists(oldIcon)).toBe(false);
    expect(await exists(shot)).toBe(false);
    expect(await exists(shared)).toBe(true);
    expect(await exists(newIcon)).toBe(true);
  });

  it("sweeps unreferenced files older than the grace period, and nothing else", async () => {
    const dev = await seller();
    const [orphanOld, orphanYoung, used] = await saveUploads(dev.id, [png(`oo-${unique()}`), png(`oy-${unique()}`), png(`u-${unique()}`)]);
    if (!orphanOld || !orphanYoung || !used) throw new Error("no paths");
    await createProduct(dev.id, input(used), { publish: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    for (const p of [orphanOld, used]) await utimes(join(dir, p.replace("/uploads/", "")), twoHoursAgo, twoHoursAgo);
    await writeFile(join(dir, "not-an-upload.txt"), "left alone");
    await utimes(join(dir, "not-an-upload.txt"), twoHoursAgo, twoHoursAgo);
    expect(await sweepUploads()).toBeGreaterThanOrEqual(1);
    expect(await exists(orphanOld)).toBe(false);
    expect(await exists(orphanYoung)).toBe(true);
    expect(await exists(used)).toBe(true);
    expect(await exists("/uploads/not-an-upload.txt")).toBe(true);
    expect(await getDb().product.count({ where: { iconUrl: used } })).toBe(1);
  });

  it("startUploadSweep() sweeps at once (what server.ts starts), and stops", async () => {
    const dev = await seller();
    const orphan = await saveUpload(png(`start-${unique()}`), dev.id);
    const old = new Date(Date.now() - 2 * 3_600_000);
    await utimes(join(dir, orphan.replace("/uploads/", "")), old, old);
    const stop = startUploadSweep(3_600_000);
    try {
      await vi.waitFor(async () => expect(await exists(orphan)).toBe(false), { timeout: 5_000 });
    } finally {
      stop();
    }
  });
});
