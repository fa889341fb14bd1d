import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { AppError } from "@/lib/http/errors";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { ingestArtifact, sweepOrphanArtifacts } from "@/lib/releases/ingest";
import { createRelease, deleteRelease, publishRelease } from "@/lib/releases/manage";
import { objectStore, resetObjectStore } from "@/lib/storage/index";
import { startS3Server } from "../helpers/s3-server";
import { sellingDeveloper } from "../helpers/sellers";

/**
 * The release artifact store on the S3 driver (a real S3-compatible server, s3rver): an upload lands as exactly one
 * object holding the bytes, racing uploads of one platform leave one object, a refused upload none, deleting a draft
 * deletes its objects, and the sweep removes objects without a row.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const saved = { ...process.env };
let s3: Awaited<ReturnType<typeof startS3Server>>;
const fx = { dev: "", product: "" };
const ZIP = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from(`s3 release bytes ${run} `.repeat(100))]);

beforeAll(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, s3.env);
  resetEnv();
  resetObjectStore();
  const dev = await sellingDeveloper(`releases-s3-${run}@example.com`, { name: `Releases S3 ${run}`, website: null, bio: "" });
  fx.dev = dev.id;
  fx.product = (
    await createProduct(
      dev.id,
      productInputSchema.parse({
        name: `Releases S3 ${run}`,
        tagline: "A product with releases on S3.",
        description: "A product created by the S3 releases test, with a long enough description to be accepted.",
        plugin_id: `com.releases.s3${run}`,
        price_cents: 1500,
        category: "dev-tools",
        max_machines: 2,
        seat_model: "per-machine",
        platforms: ["linux"],
        download_url: "https://example.com/download.zip",
        icon_url: "/icons/tape-warmth.svg",
      }),
      { publish: true },
    )
  ).id;
});

afterAll(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) Reflect.deleteProperty(process.env, k);
  Object.assign(process.env, saved);
  resetEnv();
  resetObjectStore();
  await s3.close();
  await disconnectDb();
});

const ingest = (version: string, platform: string, body: Buffer, extra: { expectedSha256?: string } = {}) =>
  ingestArtifact(fx.dev, fx.product, version, { platform, filename: "app.zip", stream: Readable.from([body]), contentLength: body.length, ...extra });

async function keys(): Promise<string[]> {
  const out: string[] = [];
  for await (const o of objectStore().list(`artifacts/${fx.product}/`)) out.push(o.key);
  return out.sort();
}

describe("release artifacts on the S3 driver", () => {
  it("stores an upload as one object with the exact bytes, and publishes", async () => {
    expect(objectStore().driver).toBe("s3");
    await createRelease(fx.dev, fx.product, { version: "1.0.0" });
    const art = await ingest("1.0.0", "linux-x64", ZIP);
    expect(art.sha256).toBe(createHash("sha256").update(ZIP).digest("hex"));
    const row = await getDb().artifact.findUniqueOrThrow({ where: { id: art.id } });
    expect(await keys()).toEqual([row.storageKey]);
    const got = await objectStore().get(row.storageKey);
    const chunks: Buffer[] = [];
    for await (const c of got!.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(ZIP)).toBe(true);
    expect((await publishRelease(fx.dev, fx.product, "1.0.0")).status).toBe("published");
  });

  it("leaves one object when two uploads of one platform race, none for a refused upload", async () => {
    await createRelease(fx.dev, fx.product, { version: "2.0.0" });
    const before = await keys();
    const results = await Promise.allSettled([ingest("2.0.0", "linux-arm64", ZIP), ingest("2.0.0", "linux-arm64", ZIP)]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = results.find((r) => r.status === "rejected")!.reason as AppError;
    expect(refused).toBeInstanceOf(AppError);
    expect([refused.status, refused.code]).toEqual([409, "artifact_exists"]);
    expect((await keys()).filter((k) => !before.includes(k))).toHaveLength(1);

    const mismatch = await ingest("2.0.0", "linux-x64", ZIP, { expectedSha256: "0".repeat(64) }).catch((e: unknown) => e as AppError);
    expect((mismatch as AppError).code).toBe("artifact_checksum_mismatch");
    expect((await keys()).filter((k) => !before.includes(k))).toHaveLength(1);
  });

  it("deletes a draft's objects with it, and sweeps objects without a row", async () => {
    const draftKeys = (await getDb().artifact.findMany({ where: { release: { productId: fx.product, version: "2.0.0" } } })).map((a) => a.storageKey);
    expect(draftKeys).toHaveLength(1);
    await deleteRelease(fx.dev, fx.product, "2.0.0");
    expect(await objectStore().head(draftKeys[0]!)).toBeNull();

    const orphan = `artifacts/${fx.product}/${"cd".repeat(12)}/orphan.zip`;
    await objectStore().put(orphan, ZIP, { size: ZIP.length, contentType: "application/zip" });
    expect(await sweepOrphanArtifacts(60 * 60 * 1000)).toBe(0);
    expect(await sweepOrphanArtifacts(0, Date.now() + 60_000)).toBe(1);
    expect(await objectStore().head(orphan)).toBeNull();
    // The published release's object stays.
    expect(await keys()).toHaveLength(1);
  });
});
