import { afterAll, describe, expect, it } from "vitest";
import { GET as listings } from "@/app/api/marketplace/listings/route";
import { GET as productApi } from "@/app/api/marketplace/product/[id]/route";
import { GET as catalog } from "@/app/api/catalog/route";
import { disconnectDb, getDb } from "@/lib/db";
import { createProduct, getSellerProduct, productToInput, updateProduct } from "@/lib/selling/products";
import { sellerProductInputSchema } from "@/lib/selling/seller-product";
import { clearReadCache } from "@/lib/cache/read-cache";
import { productDetailsSchema, productInputSchema, type ProductInput } from "@/lib/marketplace/schemas";
import { sellingDeveloper } from "../helpers/sellers";
import { call } from "../helpers/http";

afterAll(() => disconnectDb());

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

function raw(extra: Record<string, unknown> = {}) {
  const id = unique();
  return {
    name: `Details Synth ${id}`,
    tagline: "A test product.",
    description: "A product created by the product details tests, with a long enough description.",
    plugin_id: `com.test.details${id}`,
    price_cents: 1500,
    category: "audio-plugins",
    max_machines: 2,
    seat_model: "per-machine",
    platforms: ["linux", "macos"],
    download_url: "https://example.com/download",
    icon_url: "/icons/tape-warmth.svg",
    ...extra,
  };
}

const input = (extra: Record<string, unknown> = {}): ProductInput => productInputSchema.parse(raw(extra));

const demo = { kind: "video", url: "https://video.example.com/watch?v=1", title: "A quick tour" } as const;

describe("update policy, system requirements and demo links in the product schema", () => {
  const refused = (extra: Record<string, unknown>) => {
    const r = sellerProductInputSchema.safeParse(raw(extra));
    expect(r.success, JSON.stringify(extra)).toBe(false);
    return r.error!.issues[0]!;
  };

  it("takes every valid combination", () => {
    for (const extra of [
      {},
      { update_policy: "all" },
      { update_policy: "major", update_days: null },
      { update_policy: "days", update_days: 1 },
      { update_policy: "days", update_days: 3650 },
      { system_requirements: "macOS 12 or later\nWindows 10 (64-bit)\t4 GB RAM" },
      { demo_links: [demo, { kind: "audio", url: "https://audio.example.com/a.mp3", title: "Before and after" }] },
      { demo_links: [] },
    ]) {
      expect(sellerProductInputSchema.safeParse(raw(extra)).success, JSON.stringify(extra)).toBe(true);
    }
  });

  it("needs update_days with the days policy and refuses it with any other", () => {
    expect(refused({ update_policy: "days" }).path).toEqual(["update_days"]);
    expect(refused({ update_policy: "days", update_days: null }).path).toEqual(["update_days"]);
    expect(refused({ update_policy: "days", update_days: 0 }).path).toEqual(["update_days"]);
    expect(refused({ update_policy: "days", update_days: 3651 }).path).toEqual(["update_days"]);
    expect(refused({ update_policy: "days", update_days: 1.5 }).path).toEqual(["update_days"]);
    expect(refused({ update_policy: "all", update_days: 30 }).path).toEqual(["update_days"]);
    expect(refused({ update_days: 30 }).path).toEqual(["update_days"]);
    expect(refused({ update_policy: "forever" }).path).toEqual(["update_policy"]);
  });

  it("holds system requirements to 500 characters of text", () => {
    expect(refused({ system_requirements: "x".repeat(501) }).path).toEqual(["system_requirements"]);
    expect(refused({ system_requirements: "macOS\u0000" }).message).toBe("must not contain control characters");
    expect(refused({ system_requirements: "macOS\u001b[31m" }).message).toBe("must not contain control characters");
  });

  it("takes at most six https demo links of a known kind with a short title", () => {
    expect(refused({ demo_links: Array.from({ length: 7 }, (_, i) => ({ ...demo, title: `Demo ${i}` })) }).path).toEqual(["demo_links"]);
    for (const url of ["http://video.example.com/1", "javascript:alert(1)", "data:text/html,hi", "ftp://example.com/a", "not a url"]) {
      expect(refused({ demo_links: [{ ...demo, url }] }).path, url).toEqual(["demo_links", 0, "url"]);
    }
    expect(refused({ demo_links: [{ ...demo, kind: "image" }] }).path).toEqual(["demo_links", 0, "kind"]);
    expect(refused({ demo_links: [{ ...demo, title: "" }] }).path).toEqual(["demo_links", 0, "title"]);
    expect(refused({ demo_links: [{ ...demo, title: "t".repeat(81) }] }).path).toEqual(["demo_links", 0, "title"]);
    expect(refused({ demo_links: [{ ...demo, title: "Two\nlines" }] }).message).toBe("must not contain control characters");
  });
});

describe("a seller's product keeps its update policy, requirements and demos", () => {
  it("stores them on create, keeps them on an update that leaves them out, and clears the days with another policy", async () => {
    const dev = await sellingDeveloper(`details-${unique()}@example.com`, { name: "Details Studio", website: null, bio: "" });
    const product = await createProduct(
      dev.id,
      input({ update_policy: "days", update_days: 365, system_requirements: "Windows 10 or later", demo_links: [demo] }),
      { publish: true },
    );
    expect(product).toMatchObject({ updatePolicy: "days", updateDays: 365, systemRequirements: "Windows 10 or later", demoLinks: [demo] });

    // A client written before these fields existed sends none of them.
    const before = productToInput(await getSellerProduct(dev.id, product.id));
    const { update_policy: _p, update_days: _d, system_requirements: _s, demo_links: _l, ...older } = before;
    await updateProduct(dev.id, product.id, productInputSchema.parse({ ...older, name: "Details Synth renamed" }));
    expect(await getDb().product.findUniqueOrThrow({ where: { id: product.id } })).toMatchObject({
      name: "Details Synth renamed",
      updatePolicy: "days",
      updateDays: 365,
      systemRequirements: "Windows 10 or later",
      demoLinks: [demo],
    });

    await updateProduct(dev.id, product.id, productInputSchema.parse({ ...older, update_policy: "major", system_requirements: "", demo_links: [] }));
    expect(await getDb().product.findUniqueOrThrow({ where: { id: product.id } })).toMatchObject({
      updatePolicy: "major",
      updateDays: null,
      systemRequirements: "",
      demoLinks: [],
    });
    expect(productToInput(await getSellerProduct(dev.id, product.id))).toMatchObject({
      update_policy: "major",
      update_days: null,
      system_requirements: "",
      demo_links: [],
    });
  });

  it("a new product without them gets every release, no requirements and no demos", async () => {
    const dev = await sellingDeveloper(`details-${unique()}@example.com`, { name: "Plain Studio", website: null, bio: "" });
    const product = await createProduct(dev.id, input(), { publish: true });
    expect(productToInput(product)).toMatchObject({ update_policy: "all", update_days: null, system_requirements: "", demo_links: [] });
  });
});

describe("details, listings and the catalog carry the latest version", () => {
  async function release(productId: string, version: string, extra: { channel?: string; status?: string; publishedAt?: Date } = {}) {
    const [major, minor, patch] = version.split(/[.-]/).map(Number);
    return getDb().release.create({
      data: {
        productId,
        version,
        major: major!,
        minor: minor!,
        patch: patch!,
        prerelease: version.includes("-") ? version.split("-")[1]! : "",
        channel: extra.channel ?? "stable",
        status: extra.status ?? "published",
        publishedAt: extra.status === "draft" ? null : (extra.publishedAt ?? new Date()),
      },
    });
  }

  it("is null without releases and the newest published stable one after, in every reader", async () => {
    const dev = await sellingDeveloper(`latest-${unique()}@example.com`, { name: `Latest ${unique()}`, website: null, bio: "" });
    const product = await createProduct(
      dev.id,
      input({ update_policy: "days", update_days: 30, system_requirements: "Linux x64, glibc 2.31", demo_links: [demo] }),
      { publish: true },
    );
    const details = async () => {
      const r = await call(productApi, `/api/marketplace/product/${product.id}`, { params: { id: product.id } });
      expect(r.status, r.text).toBe(200);
      expect(productDetailsSchema.safeParse(r.body.product).success, r.text).toBe(true);
      return r.body.product;
    };
    const listed = async () => {
      clearReadCache();
      const r = await call(listings, `/api/marketplace/listings?search=${encodeURIComponent(product.pluginId)}`);
      expect(r.status, r.text).toBe(200);
      return r.body.products.find((p: { id: string }) => p.id === product.id);
    };
    const inCatalog = async () => {
      clearReadCache();
      const r = await call(catalog, `/api/catalog?search=${encodeURIComponent(product.pluginId)}`);
      expect(r.status, r.text).toBe(200);
      return r.body.products.find((p: { id: string }) => p.id === product.id);
    };

    expect(await details()).toMatchObject({
      system_requirements: "Linux x64, glibc 2.31",
      demo_links: [demo],
      update_policy: "days",
      update_days: 30,
      latest_version: null,
    });
    expect((await listed()).latest_version).toBeNull();
    expect((await inCatalog()).latest_version).toBeNull();

    const day = new Date("2026-03-01T10:00:00.000Z");
    await release(product.id, "1.2.0", { publishedAt: day });
    await release(product.id, "1.10.0", { publishedAt: new Date("2026-04-01T10:00:00.000Z") });
    // Not the latest: a beta, a draft and a yanked release, each with a higher version.
    await release(product.id, "2.0.0-beta.1", { channel: "beta" });
    await release(product.id, "3.0.0", { status: "draft" });
    await release(product.id, "2.5.0", { status: "yanked" });

    const latest = { version: "1.10.0", published_at: "2026-04-01T10:00:00.000Z" };
    expect((await details()).latest_version).toEqual(latest);
    expect((await listed()).latest_version).toEqual(latest);
    expect((await inCatalog()).latest_version).toEqual(latest);
  });
});

describe("a license's downloads on the buyer's pages", () => {
  it("are null for a product without published releases (the single link stays) and list the entitled files after", async () => {
    const { downloadsForLicense, downloadsForLicenseKey, productsWithReleases } = await import("@/lib/marketplace/license-downloads");
    const { newLicense } = await import("../helpers/licenses");
    const dev = await sellingDeveloper(`dl-${unique()}@example.com`, { name: `Downloads ${unique()}`, website: null, bio: "" });
    const product = await createProduct(dev.id, input(), { publish: true });
    const { license } = await newLicense({ productId: product.id });
    expect(await downloadsForLicense({ id: license.id, productId: product.id })).toBeNull();
    expect(await downloadsForLicenseKey(license.key)).toBeNull();
    expect(await downloadsForLicenseKey("AAAA-BBBB-CCCC-DDDD")).toBeNull();

    // A draft is not a release buyers see.
    const draft = await getDb().release.create({ data: { productId: product.id, version: "0.9.0", major: 0, minor: 9, patch: 0 } });
    expect((await productsWithReleases([product.id])).size).toBe(0);
    const published = await getDb().release.create({
      data: { productId: product.id, version: "1.0.0", major: 1, minor: 0, patch: 0, status: "published", publishedAt: new Date() },
    });
    await getDb().artifact.create({
      data: {
        releaseId: published.id,
        platform: "linux-x64",
        filename: "app-1.0.0.zip",
        contentType: "application/zip",
        size: 1234,
        sha256: "a".repeat(64),
        sha512: "b".repeat(88),
        signature: "c".repeat(88),
        minisign: "",
        keyId: "ed25519-1",
        storageKey: `artifacts/${product.id}/${unique().padEnd(24, "0").slice(0, 24)}/app-1.0.0.zip`,
      },
    });
    expect([...(await productsWithReleases([product.id, "no-such-product"]))]).toEqual([product.id]);
    const downloads = await downloadsForLicenseKey(license.key);
    expect(downloads?.releases.map((r) => r.version)).toEqual(["1.0.0"]);
    expect(downloads?.releases[0]?.artifacts[0]).toMatchObject({ filename: "app-1.0.0.zip", size: 1234 });
    expect(downloads?.releases[0]?.artifacts[0]?.download_path).toMatch(new RegExp(`^/downloads/${product.id}/[a-z0-9]+\\?t=${license.id}\\.`));
    expect(downloads?.updates_until).toBeNull();
    await getDb().release.delete({ where: { id: draft.id } });
  });
});
