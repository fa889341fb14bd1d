import { afterAll, describe, expect, it } from "vitest";
import { createPublicKey, verify } from "node:crypto";
import { GET as issue, POST as verifyRoute } from "@/app/api/receipt/route";
import { GET as did } from "@/app/.well-known/did.json/route";
import { POST as trials } from "@/app/api/trials/route";
import { disconnectDb, getDb } from "@/lib/db";
import { resetServiceKeys, signingKey } from "@/lib/identity/service-keys";
import { setLicenseStatus } from "@/lib/licensing/set-license-status";
import { call, expectProblem } from "../helpers/http";
import { newLicense } from "../helpers/licenses";

afterAll(() => disconnectDb());

async function receiptFor(key: string) {
  const r = await call(issue, `/api/receipt?key=${encodeURIComponent(key)}`);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

const verifyBody = (receipt: unknown, signature: string) => call(verifyRoute, "/api/receipt", { method: "POST", json: { receipt, signature } });

describe("receipts", () => {
  it("are issued with every field of the spec and verify", async () => {
    const { license, product } = await newLicense({ maxMachines: 2 });
    const signed = await receiptFor(license.key.toLowerCase());
    expect(Object.keys(signed).sort()).toEqual(["receipt", "signature", "verify_method", "verify_url"]);
    expect(signed.verify_url).toBe("http://localhost:3000/api/receipt");
    expect(signed.verify_method).toBe("POST");
    expect(signed.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(signed.receipt).toEqual({
      version: 1,
      issuer: "did:web:localhost%3A3000",
      license_key: license.key,
      product_id: product.id,
      product_name: product.name,
      buyer_email: license.buyerEmail,
      max_machines: 2,
      is_active: true,
      issued_at: license.issuedAt.toISOString(),
      expires_at: null,
      checked_at: expect.stringMatching(/^\d{4}-/),
    });
    const v = await verifyBody(signed.receipt, signed.signature);
    expect(v.status).toBe(200);
    expect(v.body).toEqual({ valid: true, still_active: true, receipt_age_seconds: expect.any(Number) });
    expect(v.body.receipt_age_seconds).toBeLessThan(5);
  });

  it("verify whatever the key order, and fail on any changed field or signature", async () => {
    const { license } = await newLicense();
    const { receipt, signature } = (await receiptFor(license.key)) as { receipt: Record<string, unknown>; signature: string };
    const reordered = Object.fromEntries(Object.entries(receipt).reverse());
    expect((await verifyBody(reordered, signature)).body.valid).toBe(true);
    const spaced = JSON.parse(JSON.stringify(receipt, null, 4));
    expect((await verifyBody(spaced, signature)).body.valid).toBe(true);

    for (const [field, value] of Object.entries({
      max_machines: 99,
      is_active: !receipt.is_active,
      buyer_email: "thief@example.com",
      expires_at: "2999-01-01T00:00:00.000Z",
    })) {
      const r = await verifyBody({ ...receipt, [field]: value }, signature);
      expect(r.body, field).toMatchObject({ valid: false, still_active: false });
    }
    expect((await verifyBody({ ...receipt, extra: 1 }, signature)).body.valid).toBe(false);
    const { extra: _omit, ...without } = { ...receipt, extra: 1 };
    const missing = { ...without };
    delete (missing as Record<string, unknown>).product_name;
    expect((await verifyBody(missing, signature)).body.valid).toBe(false);
    const flipped = (signature[0] === "a" ? "b" : "a") + signature.slice(1);
    expect((await verifyBody(receipt, flipped)).body.valid).toBe(false);
    expect((await verifyBody(receipt, signature.toUpperCase())).body.valid).toBe(true);
    expect((await verifyBody(receipt, "not-hex")).body.valid).toBe(false);
    expect((await verifyBody(receipt, "")).body.valid).toBe(false);
  });

  it("report a revoked license as no longer active, and the age of the receipt", async () => {
    const { license } = await newLicense();
    const { receipt, signature } = await receiptFor(license.key);
    await setLicenseStatus({ licenseId: license.id, active: false });
    const v = await verifyBody(receipt, signature);
    expect(v.body).toMatchObject({ valid: true, still_active: false });
    const now = await receiptFor(license.key);
    expect(now.receipt.is_active).toBe(false);

    const old = new Date(Date.now() - 3600_000);
    const { receipt: r2, signature: s2 } = await receiptFor(license.key);
    expect(r2.checked_at).not.toBe(old.toISOString());
    const aged = await verifyBody(r2, s2);
    expect(aged.body.receipt_age_seconds).toBeGreaterThanOrEqual(0);
  });

  it("answer 400 without a key, 404 for an unknown one, 400 for bad verification bodies", async () => {
    expectProblem(await call(issue, "/api/receipt"), 400, "invalid_query");
    expectProblem(await call(issue, "/api/receipt?key=nonsense"), 400, "invalid_query");
    expectProblem(await call(issue, "/api/receipt?key=ZZZZ-ZZZZ-ZZZZ-ZZZZ"), 404, "license_not_found");
    expectProblem(await call(verifyRoute, "/api/receipt", { method: "POST", json: { signature: "x" } }), 400, "invalid_body");
    expectProblem(await call(verifyRoute, "/api/receipt", { method: "POST", json: { receipt: "text", signature: "x" } }), 400, "invalid_body");
    expectProblem(await call(verifyRoute, "/api/receipt", { method: "POST", json: { receipt: {}, signature: 5 } }), 400, "invalid_body");
    expectProblem(
      await call(verifyRoute, "/api/receipt", { method: "POST", body: "{", headers: { "content-type": "application/json" } }),
      400,
      "invalid_json",
    );
    expectProblem(
      await call(verifyRoute, "/api/receipt", {
        method: "POST",
        body: "receipt=1",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      415,
      "unsupported_media_type",
    );
  });
});

describe("GET /.well-known/did.json", () => {
  it("publishes the did:web identity with an Ed25519 Multikey for assertion and authentication", async () => {
    const r = await call(did, "/.well-known/did.json");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("application/did+json");
    const doc = r.body;
    expect(doc.id).toBe("did:web:localhost%3A3000");
    expect(doc["@context"]).toContain("https://www.w3.org/ns/did/v1");
    // Other tests may have rotated keys: the current key authenticates, and every published key asserts.
    const vm = doc.verificationMethod.find((m: any) => m.id === doc.authentication[0]);
    expect(doc.authentication).toHaveLength(1);
    for (const m of doc.verificationMethod) {
      expect(m).toMatchObject({ type: "Multikey", controller: doc.id });
      expect(m.id.startsWith(`${doc.id}#`)).toBe(true);
      expect(m.publicKeyMultibase).toMatch(/^z6Mk[1-9A-HJ-NP-Za-km-z]{44}$/);
    }
    expect(doc.assertionMethod[0]).toBe(vm.id);
    expect([...doc.assertionMethod].sort()).toEqual(doc.verificationMethod.map((m: any) => m.id).sort());
  });

  it("keeps the same key across restarts, and the published key verifies our signatures", async () => {
    const current = async () => {
      const doc = (await call(did, "/.well-known/did.json")).body;
      return doc.verificationMethod.find((m: any) => m.id === doc.authentication[0]).publicKeyMultibase as string;
    };
    const keysBefore = await getDb().serviceKey.count({ where: { algorithm: "ed25519" } });
    const before = await current();
    resetServiceKeys();
    const after = await current();
    expect(after).toBe(before);
    expect(await getDb().serviceKey.count({ where: { algorithm: "ed25519" } })).toBe(keysBefore);

    const key = await signingKey();
    const message = Buffer.from("hello");
    const { sign } = await import("node:crypto");
    const signature = sign(null, message, key.privateKey);
    // Rebuild the public key from the multibase alone: base58btc-decode, strip the 0xed01 multicodec prefix.
    const raw = base58decode(after.slice(1)).subarray(2);
    const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]);
    expect(verify(null, message, createPublicKey({ key: spki, format: "der", type: "spki" }), signature)).toBe(true);
  });
});

describe("POST /api/trials", () => {
  it("starts a trial and refuses bad input", async () => {
    const product = await getDb().product.findFirstOrThrow({ where: { status: "active", trialAvailable: true } });
    const r = await call(trials, "/api/trials", { method: "POST", json: { product_id: product.id, buyer_email: `t-${Date.now()}@example.com` } });
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ accepted: true, trial: true, product_id: product.id, plugin_id: product.pluginId, trial_days: product.trialDays });
    expect(r.body.license_key).toBeUndefined(); // the key goes by e-mail (tests/integration/trials.test.ts)
    expectProblem(await call(trials, "/api/trials", { method: "POST", json: { product_id: product.id, buyer_email: "nope" } }), 400, "invalid_body");
    expectProblem(
      await call(trials, "/api/trials", { method: "POST", json: { product_id: "no-such", buyer_email: "a@example.com" } }),
      404,
      "product_not_found",
    );
  });
});

function base58decode(s: string): Buffer {
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  let n = 0n;
  for (const c of s) n = n * 58n + BigInt(alphabet.indexOf(c));
  let hex = n.toString(16);
  if (hex.length % 2) hex = "0" + hex;
  return Buffer.from(hex, "hex");
}
