import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { GET as filesGet } from "@/app/api/files/[...key]/route";
import { createProduct } from "@/lib/selling/products";
import { getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { ingestArtifact } from "@/lib/releases/ingest";
import { createRelease, publishRelease } from "@/lib/releases/manage";
import { resetObjectStore } from "@/lib/storage";
import { fingerprint, newLicense } from "../helpers/licenses";
import { sellingDeveloper } from "../helpers/sellers";

/**
 * Shared set-up of the update and feed tests (not a test file itself): a seller's product with real releases made
 * through the seller's own functions (create, upload through ingest, publish), a license, an activated machine, and
 * a temporary UPLOAD_DIR for the local storage driver.
 */

const unique = () => `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;

/** Bytes that pass ingest's content checks for each file type, followed by random bytes. */
function fileBytes(filename: string, size = 4096): Buffer {
  const lower = filename.toLowerCase();
  const body = randomBytes(size);
  const head = lower.endsWith(".exe")
    ? Buffer.from("MZ")
    : lower.endsWith(".zip")
      ? Buffer.from([0x50, 0x4b, 0x03, 0x04])
      : lower.endsWith(".appimage")
        ? Buffer.from([0x7f, 0x45, 0x4c, 0x46])
        : lower.endsWith(".tar.gz") || lower.endsWith(".tgz")
          ? Buffer.from([0x1f, 0x8b])
          : Buffer.alloc(0);
  head.copy(body, 0);
  if (lower.endsWith(".dmg")) Buffer.from("koly").copy(body, body.length - 512);
  return body;
}

interface FileSpec {
  platform: string;
  format?: string;
  filename: string;
}
export interface ReleaseSpec {
  version: string;
  channel?: "stable" | "beta";
  notes?: string;
  files: FileSpec[];
  /** Backdate publishedAt by this many days after publishing. */
  publishedDaysAgo?: number;
}

let uploadDir = "";
export async function useTempUploads(): Promise<void> {
  uploadDir = await mkdtemp(join(tmpdir(), "ilm-updates-"));
  process.env.UPLOAD_DIR = uploadDir;
  resetEnv();
  resetObjectStore();
}
export async function dropTempUploads(): Promise<void> {
  delete process.env.UPLOAD_DIR;
  resetEnv();
  resetObjectStore();
  if (uploadDir) await rm(uploadDir, { recursive: true, force: true });
}

export interface Fixture {
  devId: string;
  productId: string;
  pluginId: string;
  /** filename → bytes uploaded */
  bytes: Map<string, Buffer>;
  /** version → artifact ids by filename */
  artifacts: Map<string, Map<string, string>>;
}

export async function productWithReleases(
  releases: ReleaseSpec[],
  policy: { updatePolicy?: string; updateDays?: number | null } = {},
): Promise<Fixture> {
  const id = unique();
  const dev = await sellingDeveloper(`upd-${id}@example.com`, { name: `Updates Studio ${id}`, website: null, bio: "" });
  const product = await createProduct(
    dev.id,
    productInputSchema.parse({
      name: `Update Synth ${id}`,
      description: "A product used by the update tests, with a long enough description.",
      plugin_id: `com.test.upd${id}`,
      price_cents: 1500,
      category: "audio-plugins",
      max_machines: 3,
      seat_model: "per-machine",
      platforms: ["windows", "macos", "linux"],
      download_url: "https://builds.example.com/synth.zip",
      icon_url: "/icons/tape-warmth.svg",
    }),
    { publish: true },
  );
  await getDb().product.update({
    where: { id: product.id },
    data: { updatePolicy: policy.updatePolicy ?? "all", updateDays: policy.updateDays ?? null },
  });
  const fx: Fixture = { devId: dev.id, productId: product.id, pluginId: product.pluginId, bytes: new Map(), artifacts: new Map() };
  for (const r of releases) {
    await createRelease(dev.id, product.id, { version: r.version, channel: r.channel, notes: r.notes ?? `Release ${r.version}` });
    const ids = new Map<string, string>();
    for (const f of r.files) {
      const bytes = fileBytes(f.filename);
      const view = await ingestArtifact(dev.id, product.id, r.version, {
        platform: f.platform,
        format: f.format ?? "",
        filename: f.filename,
        stream: Readable.from([bytes]),
        contentLength: bytes.length,
      });
      fx.bytes.set(`${r.version}/${f.filename}`, bytes);
      ids.set(f.filename, view.id);
    }
    fx.artifacts.set(r.version, ids);
    await publishRelease(dev.id, product.id, r.version);
    if (r.publishedDaysAgo !== undefined) {
      await getDb().release.updateMany({
        where: { productId: product.id, version: r.version },
        data: { publishedAt: new Date(Date.now() - r.publishedDaysAgo * 86_400_000) },
      });
    }
  }
  return fx;
}

/** A license for the fixture's product, issued `issuedDaysAgo` days ago, activated on a fresh machine. */
export async function licensedMachine(fx: Fixture, opts: { issuedDaysAgo?: number } = {}) {
  const { license } = await newLicense({ productId: fx.productId });
  if (opts.issuedDaysAgo !== undefined) {
    await getDb().license.update({ where: { id: license.id }, data: { issuedAt: new Date(Date.now() - opts.issuedDaysAgo * 86_400_000) } });
  }
  const machine = fingerprint();
  const activated = await activateMachine({ license_key: license.key, machine_fingerprint: machine, plugin_id: fx.pluginId });
  if (!activated.activated) throw new Error(`activation failed: ${activated.code}`);
  return { license, key: license.key, machine };
}

/** Follows a signed URL of the local driver through its route handler; the bytes and headers. */
export async function fetchSigned(url: string): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const u = new URL(url);
  const prefix = "/api/files/";
  if (!u.pathname.startsWith(prefix)) throw new Error(`not a local signed URL: ${url}`);
  const key = u.pathname.slice(prefix.length).split("/").map(decodeURIComponent);
  const request = new Request(url);
  const response = await filesGet(request, { params: Promise.resolve({ key }) });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

export const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
export const sha512b64 = (b: Buffer) => createHash("sha512").update(b).digest("base64");
