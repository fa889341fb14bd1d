import { createHash, randomBytes } from "node:crypto";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import pg from "pg";
import nacl from "tweetnacl";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { didDocumentKey } from "../tests/helpers/did-keys";
import { startS3Server } from "../tests/helpers/s3-server";
import { connectTestPayouts } from "./support/payouts";
import { dropDatabase, freshDatabase, PG_ADMIN, startApp, type AppProcess } from "./support/servers";
import { signIn } from "./support/sign-in";
import { fillSupportAndRefunds } from "./support/seller-profile";

// Releases across two instances that share one PostgreSQL and one S3-compatible bucket (s3rver, from the npm
// registry): a seller publishes on instance A, licensed apps ask instance B for updates and download from the bucket.
test.describe.configure({ mode: "serial", timeout: 240_000 });

const PORT_A = 3231;
const PORT_B = 3232;
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const fingerprint = (s: string) => createHash("sha256").update(s).digest("hex");

/** Bytes that pass the artifact content checks: a Windows executable ("MZ") and a zip archive ("PK\3\4"). */
const exe = () => Buffer.concat([Buffer.from("MZ"), randomBytes(96 * 1024)]);
const zip = () => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), randomBytes(80 * 1024)]);
/** A disk image: UDIF's "koly" trailer in its last 512 bytes. */
const dmg = () => Buffer.concat([randomBytes(64 * 1024), Buffer.from("koly"), randomBytes(508)]);

test.describe("releases on two instances, one PostgreSQL, one S3 bucket", () => {
  const dbName = `ilm_releases_${Date.now().toString(36)}`;
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const pluginId = `com.e2e.updater${run}`;
  let s3: Awaited<ReturnType<typeof startS3Server>>;
  let a: AppProcess;
  let b: AppProcess;
  let sql: pg.Client;

  test.beforeAll(async () => {
    s3 = await startS3Server();
    const dbUrl = await freshDatabase(PG_ADMIN, dbName);
    const env = {
      ...s3.env,
      DATABASE_URL: dbUrl,
      BASE_URL: `http://127.0.0.1:${PORT_A}`,
      PAYMENTS: "test",
      SEED_DEMO: "off",
      RATE_LIMIT_ACTIVATION_PER_MIN: "100000",
      RATE_LIMIT_VALIDATE_PER_MIN: "100000",
      RATE_LIMIT_PER_KEY_PER_MIN: "100000",
      RATE_LIMIT_CHECKOUT_PER_MIN: "100000",
    };
    [a, b] = await Promise.all([startApp(PORT_A, env), startApp(PORT_B, env)]);
    sql = new pg.Client({ connectionString: dbUrl });
    await sql.connect();
  });

  test.afterAll(async () => {
    const maybe = <T>(v: T) => v as T | undefined;
    await maybe(sql)?.end();
    await Promise.all([maybe(a)?.stop(), maybe(b)?.stop()]);
    await maybe(s3)?.close();
    await dropDatabase(PG_ADMIN, dbName);
  });

  test("a seller publishes on A; a licensed app updates through B; refunds, revocations and ended updates are refused", async ({ browser }) => {
    const context = await browser.newContext({ baseURL: `http://127.0.0.1:${PORT_A}` });
    const page = await context.newPage();
    const seller: APIRequestContext = page.request;

    // The seller signs in on instance A, makes a profile, connects test payouts and lists a product.
    await signIn(page, `e2e-releases-${run}@example.com`);
    await page.getByLabel("Developer or studio name").fill(`Updater Studio ${run}`);
    await fillSupportAndRefunds(page);
    await page.getByRole("button", { name: "Create profile" }).click();
    await expect(page).toHaveURL(/\/dashboard\?notice=welcome$/);
    await connectTestPayouts(page);
    const productBody = {
      name: `Updater App ${run}`,
      tagline: "An app that keeps itself up to date.",
      description: "A desktop app whose releases reach licensed machines through the update feed.",
      plugin_id: pluginId,
      price_cents: 1900,
      category: "desktop-apps",
      max_machines: 3,
      seat_model: "per-machine",
      platforms: ["windows", "macos"],
      download_url: "https://example.com/updater.zip",
      icon_url: "/icons/tape-warmth.svg",
    };
    const created = await seller.post("/api/v1/products", { data: { ...productBody, publish: true } });
    expect(created.status(), await created.text()).toBe(201);
    const productId: string = (await created.json()).product.id;
    const base = `/api/v1/products/${productId}/releases`;

    // 1.0.0 and 1.1.0, each with a Windows installer, a macOS zip (what updaters install) and a macOS disk image
    // (what people install), uploaded as streams of bytes.
    const uploaded: Record<string, Record<string, Buffer>> = {};
    const FILENAMES: Record<string, (v: string) => [platform: string, filename: string]> = {
      "windows-x64": (v) => ["windows-x64", `Updater-Setup-${v}.exe`],
      "macos-universal": (v) => ["macos-universal", `Updater-${v}-mac.zip`],
      "macos-dmg": (v) => ["macos-universal", `Updater-${v}.dmg`],
    };
    for (const version of ["1.0.0", "1.1.0"]) {
      const draft = await seller.post(base, {
        data: { version, channel: "stable", notes: `## ${version}\n\n- Faster start-up\n- [Changelog](https://example.com/${version})` },
      });
      expect(draft.status(), await draft.text()).toBe(201);
      uploaded[version] = { "windows-x64": exe(), "macos-universal": zip(), "macos-dmg": dmg() };
      for (const [name, bytes] of Object.entries(uploaded[version])) {
        const [platform, filename] = FILENAMES[name]!(version);
        const put = await seller.put(`${base}/${version}/artifacts?platform=${platform}&filename=${encodeURIComponent(filename)}`, {
          data: bytes,
          headers: { "content-type": "application/octet-stream", "x-checksum-sha256": sha256(bytes) },
        });
        expect(put.status(), await put.text()).toBe(201);
        expect(await put.json()).toMatchObject({ platform, size: bytes.length, sha256: sha256(bytes) });
      }
      const published = await seller.post(`${base}/${version}/publish`);
      expect(published.status(), await published.text()).toBe(200);
    }
    // A version is taken once; a version must be semantic.
    expect((await seller.post(base, { data: { version: "1.1.0" } })).status()).toBe(409);
    const bad = await seller.post(base, { data: { version: "1.2" } });
    expect(bad.status()).toBe(400);
    expect((await bad.json()).code).toBe("invalid_version");

    // Every artifact is an object in the shared bucket, nothing else is.
    const { rows: artifactRows } = await sql.query(`SELECT "storageKey" FROM "Artifact"`);
    expect(artifactRows).toHaveLength(6);
    const bucket = new S3Client({
      endpoint: s3.endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    });
    const listed = await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: "artifacts/" }));
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual(artifactRows.map((r: { storageKey: string }) => r.storageKey).sort());
    bucket.destroy();

    // Buyers: bought on A, activated on B.
    async function license(label: string) {
      const email = `e2e-releases-${label}-${run}@example.com`;
      const checkout = await (
        await fetch(`${a.url}/api/checkout/create`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ product_id: productId, buyer_email: email }),
        })
      ).json();
      const paid = await fetch(`${a.url}/checkout/${checkout.session_id}/pay`, { method: "POST", redirect: "manual" });
      expect(paid.status).toBe(303);
      const status = await (await fetch(`${a.url}/api/checkout/${checkout.session_id}`)).json();
      const key: string = status.license.license_key;
      const machine = fingerprint(`${label}-${run}`);
      const activated = await fetch(`${b.url}/activate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ license_key: key, machine_fingerprint: machine, plugin_id: pluginId }),
      });
      expect((await activated.json()).activated).toBe(true);
      return { key, machine, order: checkout.session_id as string, email };
    }
    const check = (l: { key: string; machine: string }, query: string) =>
      fetch(`${b.url}/api/updates/${pluginId}?${query}`, { headers: { "x-license-key": l.key, "x-machine-fingerprint": l.machine } });

    // The app at 1.0.0 asks B: 1.1.0, with a signature by the key did.json publishes and a short-lived URL.
    const buyer = await license("buyer");
    const answer = await check(buyer, "version=1.0.0&platform=windows-x64&channel=stable");
    expect(answer.status).toBe(200);
    const update = await answer.json();
    expect(update).toMatchObject({ status: "update_available", current_version: "1.0.0", latest: { version: "1.1.0" } });
    const artifact = update.latest.artifact;
    expect(artifact).toMatchObject({
      platform: "windows-x64",
      size: uploaded["1.1.0"]!["windows-x64"]!.length,
      sha256: sha256(uploaded["1.1.0"]!["windows-x64"]!),
    });
    const download = await fetch(artifact.url);
    expect(download.status).toBe(200);
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect(sha256(bytes)).toBe(artifact.sha256);
    const did = await (await fetch(`${b.url}/.well-known/did.json`)).json();
    const publicKey = didDocumentKey(did, artifact.signature_key_id);
    expect(nacl.sign.detached.verify(bytes, Buffer.from(artifact.signature, "base64"), publicKey)).toBe(true);
    expect(nacl.sign.detached.verify(Buffer.concat([bytes, Buffer.from([0])]), Buffer.from(artifact.signature, "base64"), publicKey)).toBe(false);
    // Up to date at 1.1.0; the macOS build of the same release for a Mac.
    expect(await (await check(buyer, "version=1.1.0&platform=windows-x64")).json()).toMatchObject({ status: "up_to_date" });
    const mac = await (await check(buyer, "version=1.0.0&platform=macos-universal")).json();
    expect(mac.latest.artifact).toMatchObject({ platform: "macos-universal", sha256: sha256(uploaded["1.1.0"]!["macos-universal"]!) });
    // The disk image when the app asks for it, with its own signature.
    const image = await (await check(buyer, "version=1.0.0&platform=macos-universal&file_type=dmg")).json();
    expect(image.latest.artifact).toMatchObject({ file_type: "dmg", sha256: sha256(uploaded["1.1.0"]!["macos-dmg"]!) });
    const imageBytes = new Uint8Array(await (await fetch(image.latest.artifact.url)).arrayBuffer());
    expect(nacl.sign.detached.verify(imageBytes, Buffer.from(image.latest.artifact.signature, "base64"), publicKey)).toBe(true);
    // The download endpoint redirects to a signed URL of the same bytes.
    const redirect = await fetch(`${b.url}/api/updates/${pluginId}/download?platform=windows-x64`, {
      headers: { "x-license-key": buyer.key, "x-machine-fingerprint": buyer.machine },
      redirect: "manual",
    });
    expect(redirect.status).toBe(302);
    expect(sha256(new Uint8Array(await (await fetch(redirect.headers.get("location")!)).arrayBuffer()))).toBe(artifact.sha256);
    // A machine the license was not activated on learns nothing.
    const stranger = await check({ key: buyer.key, machine: fingerprint(`stranger-${run}`) }, "version=1.0.0&platform=windows-x64");
    expect(stranger.status).toBe(403);
    expect((await stranger.json()).code).toBe("machine_not_activated");

    // A refunded license: its problem code, never the file.
    const refunded = await license("refunded");
    const refund = await seller.post(`/api/v1/orders/${refunded.order}/refunds`, { data: { reason: "Asked by the buyer" } });
    expect(refund.status(), await refund.text()).toBe(201);
    await expect
      .poll(async () => (await (await check(refunded, "version=1.0.0&platform=windows-x64")).json()).code, { timeout: 20_000 })
      .toBe("license_refunded");
    const refusedDownload = await fetch(`${b.url}/api/updates/${pluginId}/download?platform=windows-x64`, {
      headers: { "x-license-key": refunded.key, "x-machine-fingerprint": refunded.machine },
      redirect: "manual",
    });
    expect(refusedDownload.status).toBe(403);
    expect(refusedDownload.headers.get("location")).toBeNull();

    // A revoked license (the seller's licenses page on A).
    const revoked = await license("revoked");
    await page.goto(`/dashboard/licenses?q=${encodeURIComponent(revoked.email)}`);
    await page
      .getByRole("row")
      .filter({ hasText: revoked.email })
      .getByRole("link", { name: /manage/i })
      .click();
    await page.getByLabel("Reason").fill("Chargeback");
    await page.getByRole("button", { name: "Revoke license" }).click();
    await page.getByRole("button", { name: "Revoke", exact: true }).click();
    await expect(page.getByRole("status").filter({ hasText: "License revoked" })).toBeVisible();
    await expect
      .poll(async () => (await (await check(revoked, "version=1.0.0&platform=windows-x64")).json()).code, { timeout: 20_000 })
      .toBe("license_revoked");

    // Updates for 30 days after purchase: a license bought 400 days ago, when 1.0.0 was new, gets 1.0.x only.
    const lapsed = await license("lapsed");
    const policy = await seller.put(`/api/v1/products/${productId}`, { data: { ...productBody, update_policy: "days", update_days: 30 } });
    expect(policy.status(), await policy.text()).toBe(200);
    await sql.query(`UPDATE "License" SET "issuedAt" = now() - interval '400 days' WHERE key = $1`, [lapsed.key]);
    await sql.query(`UPDATE "Release" SET "publishedAt" = now() - interval '390 days' WHERE "productId" = $1 AND version = '1.0.0'`, [productId]);
    await expect
      .poll(async () => (await (await check(lapsed, "version=1.0.0&platform=windows-x64")).json()).status, { timeout: 20_000 })
      .toBe("up_to_date");
    const lapsedAnswer = await (await check(lapsed, "version=0.9.0&platform=windows-x64")).json();
    expect(lapsedAnswer).toMatchObject({ status: "update_available", latest: { version: "1.0.0" }, newer_not_entitled: "1.1.0" });
    const notEntitled = await fetch(`${b.url}/api/updates/${pluginId}/download?version=1.1.0&platform=windows-x64`, {
      headers: { "x-license-key": lapsed.key, "x-machine-fingerprint": lapsed.machine },
      redirect: "manual",
    });
    expect(notEntitled.status).toBe(403);
    expect((await notEntitled.json()).code).toBe("release_not_entitled");
    // A current buyer still gets 1.1.0 under the same policy (bought today).
    expect(await (await check(buyer, "version=1.0.0&platform=windows-x64")).json()).toMatchObject({ latest: { version: "1.1.0" } });
    await context.close();
  });
});
