import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import nacl from "tweetnacl";
import { decodeProtectedHeader, importJWK, jwtVerify } from "jose";
import { GET as licenseFileRoute } from "@/app/api/license-file/route";
import { GET as credentialRoute } from "@/app/api/receipt/credential/route";
import { POST as verifyRoute } from "@/app/api/receipt/route";
import { GET as statusRoute } from "@/app/api/status/revocation/route";
import { GET as didRoute } from "@/app/.well-known/did.json/route";
import { disconnectDb } from "@/lib/db";
import { rotateSigningKey } from "@/lib/identity/service-keys";
import { decodeBase64urlStrict } from "@/lib/verifiable/base64url";
import { signJws } from "@/lib/verifiable/jws";
import { credentialDigest } from "@/lib/verifiable/license-credential";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { setLicenseStatus } from "@/lib/licensing/set-license-status";
import { call, expectProblem } from "../helpers/http";
import { fingerprint, newLicense } from "../helpers/licenses";

afterAll(() => disconnectDb());

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
function base58decode(s: string): Uint8Array {
  let n = 0n;
  for (const c of s) n = n * 58n + BigInt(ALPHABET.indexOf(c));
  let hex = n.toString(16);
  if (hex.length % 2) hex = "0" + hex;
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/** Public keys by verification method id, from the DID document alone. */
async function didKeys(): Promise<Map<string, Uint8Array>> {
  const doc = (await call(didRoute, "/.well-known/did.json")).body;
  const keys = new Map<string, Uint8Array>();
  for (const vm of doc.verificationMethod) {
    const bytes = base58decode(vm.publicKeyMultibase.slice(1));
    expect([bytes[0], bytes[1]]).toEqual([0xed, 0x01]);
    keys.set(vm.id, bytes.subarray(2));
  }
  for (const id of doc.assertionMethod) expect(keys.has(id)).toBe(true);
  return keys;
}

/** An independent verifier of the license-file format (tweetnacl, not node:crypto which signs). */
function verifyLicenseFile(
  text: string,
  keys: Map<string, Uint8Array>,
  machine: string,
  now = Date.now(),
): { ok: boolean; reason?: string; payload?: any } {
  const lines = text.trim().split("\n");
  if (lines[0] !== "-----BEGIN LICENSE FILE-----" || lines.at(-1) !== "-----END LICENSE FILE-----") return { ok: false, reason: "armour" };
  const fields = Object.fromEntries(lines.slice(1, -1).map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]));
  if (fields.format !== "ilm-license-file/1") return { ok: false, reason: "format" };
  const key = keys.get(fields["key-id"]!);
  if (!key) return { ok: false, reason: "unknown key" };
  const message = new TextEncoder().encode(`ilm-license-file/1.${fields.payload}`);
  if (!nacl.sign.detached.verify(message, Uint8Array.from(Buffer.from(fields.signature!, "base64url")), key))
    return { ok: false, reason: "signature" };
  const payload = JSON.parse(Buffer.from(fields.payload!, "base64url").toString("utf8"));
  if (payload.machine.fingerprint !== machine) return { ok: false, reason: "machine" };
  if (Date.parse(payload.expires_at) <= now) return { ok: false, reason: "expired" };
  return { ok: true, payload };
}

async function activated(maxMachines = 2) {
  const { license, product } = await newLicense({ maxMachines });
  const fp = fingerprint();
  await activateMachine({ license_key: license.key, machine_fingerprint: fp, plugin_id: product.pluginId });
  return { license, product, fp };
}

const fileFor = (key: string, fp: string) => call(licenseFileRoute, `/api/license-file?key=${key}&fingerprint=${fp}`);

describe("offline license files", () => {
  it("verify offline with only the DID document, for this machine, until they expire", async () => {
    const { license, product, fp } = await activated();
    const r = await fileFor(license.key, fp);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const keys = await didKeys();
    const ok = verifyLicenseFile(r.text, keys, fp);
    expect(ok).toMatchObject({ ok: true });
    expect(ok.payload).toMatchObject({
      format: "ilm-license-file/1",
      issuer: "did:web:localhost%3A3000",
      license: { key: license.key, plugin_id: product.pluginId, product_id: product.id, max_machines: 2, expires_at: null },
      machine: { fingerprint: fp },
    });
    const ttl = Date.parse(ok.payload.expires_at) - Date.parse(ok.payload.issued_at);
    expect(ttl).toBe(product.licenseFileTtlDays * 86_400_000);
    expect(verifyLicenseFile(r.text, keys, fingerprint())).toMatchObject({ ok: false, reason: "machine" });
    expect(verifyLicenseFile(r.text, keys, fp, Date.parse(ok.payload.expires_at) + 1)).toMatchObject({ ok: false, reason: "expired" });
  });

  it("fail on any changed byte", async () => {
    const { license, fp } = await activated();
    const text = (await fileFor(license.key, fp)).text;
    const keys = await didKeys();
    const payloadLine = text.split("\n").find((l) => l.startsWith("payload: "))!;
    const payload = JSON.parse(Buffer.from(payloadLine.slice(9), "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, license: { ...payload.license, max_machines: 99 } })).toString("base64url");
    expect(verifyLicenseFile(text.replace(payloadLine, `payload: ${forged}`), keys, fp)).toMatchObject({ ok: false, reason: "signature" });
    const sigLine = text.split("\n").find((l) => l.startsWith("signature: "))!;
    const sig = Buffer.from(sigLine.slice(11), "base64url");
    sig[10]! ^= 1;
    expect(verifyLicenseFile(text.replace(sigLine, `signature: ${sig.toString("base64url")}`), keys, fp)).toMatchObject({
      ok: false,
      reason: "signature",
    });
    for (let i = 0; i < 20; i++) {
      const pos = text.indexOf("payload: ") + 9 + i * 7;
      const flipped = text.slice(0, pos) + (text[pos] === "A" ? "B" : "A") + text.slice(pos + 1);
      expect(verifyLicenseFile(flipped, keys, fp).ok).toBe(false);
    }
  });

  it("are refused for machines not activated and licenses that do not stand", async () => {
    const { license, fp } = await activated();
    expectProblem(await fileFor(license.key, fingerprint()), 409, "machine_not_activated");
    await setLicenseStatus({ licenseId: license.id, active: false });
    expectProblem(await fileFor(license.key, fp), 409, "license_revoked");
    expectProblem(await fileFor("ZZZZ-ZZZZ-ZZZZ-ZZZZ", fp), 404, "license_not_found");
    expectProblem(await call(licenseFileRoute, "/api/license-file?key=x&fingerprint=y"), 400, "invalid_query");
  });
});

describe("license credentials (VC 2.0, vc+jwt)", () => {
  async function jwkFor(kid: string) {
    const keys = await didKeys();
    return importJWK({ kty: "OKP", crv: "Ed25519", x: Buffer.from(keys.get(kid)!).toString("base64url") }, "EdDSA");
  }

  it("verify with jose against the DID document and carry a status list entry", async () => {
    const { license, product } = await activated();
    const r = await call(credentialRoute, `/api/receipt/credential?key=${license.key}`);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/vc+jwt");
    const header = decodeProtectedHeader(r.text);
    expect(header).toMatchObject({ alg: "EdDSA", typ: "vc+jwt" });
    expect(header.kid).toMatch(/^did:web:localhost%3A3000#ed25519-/);
    const { payload } = await jwtVerify(r.text, await jwkFor(header.kid!), { typ: "vc+jwt", issuer: "did:web:localhost%3A3000" });
    expect(payload).toMatchObject({
      "@context": ["https://www.w3.org/ns/credentials/v2"],
      type: ["VerifiableCredential", "SoftwareLicenseCredential"],
      issuer: "did:web:localhost%3A3000",
      credentialSubject: { licenseId: license.id, product: { id: product.id, pluginId: product.pluginId } },
      credentialStatus: {
        type: "BitstringStatusListEntry",
        statusPurpose: "revocation",
        statusListCredential: "http://localhost:3000/api/status/revocation",
      },
    });
    const v = await call(verifyRoute, "/api/receipt", { method: "POST", json: { credential: r.text } });
    expect(v.body).toMatchObject({ valid: true, still_active: true });
    const [h, p, s] = r.text.split(".");
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, credentialSubject: { ...(payload.credentialSubject as object), maxMachines: 99 } })).toString("base64url")}.${s}`;
    expect((await call(verifyRoute, "/api/receipt", { method: "POST", json: { credential: tampered } })).body).toMatchObject({
      valid: false,
      still_active: false,
    });
    await expect(jwtVerify(tampered, await jwkFor(header.kid!))).rejects.toThrow();
    expect(p).toBeDefined();
  });

  it("revocation shows in the published status list and in verification", async () => {
    const { license } = await activated();
    const jwt = (await call(credentialRoute, `/api/receipt/credential?key=${license.key}`)).text;
    const { payload } = await jwtVerify(jwt, await jwkFor(decodeProtectedHeader(jwt).kid!));
    const index = Number((payload.credentialStatus as { statusListIndex: string }).statusListIndex);
    const bit = async () => {
      const list = (await call(statusRoute, "/api/status/revocation")).text;
      const { payload: sl } = await jwtVerify(list, await jwkFor(decodeProtectedHeader(list).kid!), { typ: "vc+jwt" });
      const subject = sl.credentialSubject as { type: string; statusPurpose: string; encodedList: string };
      expect(subject).toMatchObject({ type: "BitstringStatusList", statusPurpose: "revocation" });
      expect(subject.encodedList.startsWith("u")).toBe(true);
      const bits = gunzipSync(Buffer.from(subject.encodedList.slice(1), "base64url"));
      expect(bits.length * 8).toBeGreaterThanOrEqual(131_072);
      return (bits[index >> 3]! >> (7 - (index & 7))) & 1;
    };
    expect(await bit()).toBe(0);
    await setLicenseStatus({ licenseId: license.id, active: false });
    expect(await bit()).toBe(1);
    expect((await call(verifyRoute, "/api/receipt", { method: "POST", json: { credential: jwt } })).body).toMatchObject({
      valid: true,
      still_active: false,
    });
    await setLicenseStatus({ licenseId: license.id, active: true });
    expect(await bit()).toBe(0);
  });
});

describe("credentials are shareable: neither the license key nor the buyer's address is in them", () => {
  it("name the license by id and key and address only by salted digests; verification still works", async () => {
    const { license } = await activated();
    const r = await call(credentialRoute, `/api/receipt/credential?key=${license.key}`);
    expect(r.status, r.text).toBe(200);
    const [, body] = r.text.split(".");
    const decoded = Buffer.from(body!, "base64url").toString("utf8");
    for (const secret of [license.key, license.key.replace(/-/g, ""), license.buyerEmail, license.buyerEmail.split("@")[0]!]) {
      expect(r.text).not.toContain(secret);
      expect(decoded).not.toContain(secret);
    }
    const subject = JSON.parse(decoded).credentialSubject;
    expect(subject).not.toHaveProperty("licenseKey");
    expect(subject.holder).not.toHaveProperty("email");
    expect(subject.licenseId).toBe(license.id);
    // Someone who is told the key or the address can check it against the credential.
    expect(subject.licenseKeyDigest).toBe(credentialDigest(subject.digestSalt, license.key));
    expect(subject.holder.emailDigest).toBe(credentialDigest(subject.digestSalt, license.buyerEmail.toLowerCase()));
    expect(subject.licenseKeyDigest).not.toBe(credentialDigest(subject.digestSalt, "ZZZZ-ZZZZ-ZZZZ-ZZZZ"));
    // Each credential has its own salt, so two of them cannot be linked by their digests.
    const other = JSON.parse(
      Buffer.from((await call(credentialRoute, `/api/receipt/credential?key=${license.key}`)).text.split(".")[1]!, "base64url").toString(),
    );
    expect(other.credentialSubject.licenseKeyDigest).not.toBe(subject.licenseKeyDigest);
    expect((await call(verifyRoute, "/api/receipt", { method: "POST", json: { credential: r.text } })).body).toMatchObject({
      valid: true,
      still_active: true,
    });
    await setLicenseStatus({ licenseId: license.id, active: false });
    expect((await call(verifyRoute, "/api/receipt", { method: "POST", json: { credential: r.text } })).body).toMatchObject({
      valid: true,
      still_active: false,
    });
  });

  it("credentials issued before (carrying the key) still verify", async () => {
    const { license } = await activated();
    const legacy = await signJws(
      {
        type: ["VerifiableCredential", "SoftwareLicenseCredential"],
        issuer: "did:web:localhost%3A3000",
        credentialSubject: { type: "SoftwareLicense", licenseKey: license.key },
        iat: Math.floor(Date.now() / 1000),
      },
      "vc+jwt",
    );
    expect((await call(verifyRoute, "/api/receipt", { method: "POST", json: { credential: legacy } })).body).toMatchObject({
      valid: true,
      still_active: true,
    });
  });
});

describe("JWS decoding is strict base64url", () => {
  it("refuses padding, whitespace and the base64 alphabet in any part; the original verifies", async () => {
    const { license } = await activated();
    const jwt = (await call(credentialRoute, `/api/receipt/credential?key=${license.key}`)).text;
    const verify = async (credential: string) => (await call(verifyRoute, "/api/receipt", { method: "POST", json: { credential } })).body;
    expect(await verify(jwt)).toMatchObject({ valid: true, still_active: true });
    const [h, p, s] = jwt.split(".") as [string, string, string];
    const variants: string[] = [];
    for (const [i, part] of [h, p, s].entries()) {
      const mid = Math.floor(part.length / 2);
      const alter = (changed: string) => [h, p, s].map((x, j) => (j === i ? changed : x)).join(".");
      variants.push(
        alter(`${part}=`),
        alter(`${part}==`),
        alter(`${part.slice(0, mid)} ${part.slice(mid)}`),
        alter(`${part.slice(0, mid)}\n${part.slice(mid)}`),
        alter(`${part.slice(0, mid)}\t${part.slice(mid)}`),
        alter(` ${part}`),
        alter(part.replace(/-/g, "+").replace(/_/g, "/")),
        alter(`${part.slice(0, mid)}+/${part.slice(mid)}`),
      );
    }
    for (const v of variants.filter((x) => x !== jwt))
      expect(await verify(v), JSON.stringify(v)).toMatchObject({ valid: false, still_active: false });
    // A signature whose last character carries non-zero unused bits decodes to the same bytes: also refused.
    const last = s.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sibling = alphabet[alphabet.indexOf(last) + 1]!;
    const noncanonical = `${h}.${p}.${s.slice(0, -1)}${sibling}`;
    expect(Buffer.from(noncanonical.split(".")[2]!, "base64url").equals(Buffer.from(s, "base64url"))).toBe(true);
    expect(await verify(noncanonical)).toMatchObject({ valid: false });
  });

  it("decodeBase64urlStrict takes exactly the unpadded base64url spelling", () => {
    expect(decodeBase64urlStrict("aGVsbG8")?.toString()).toBe("hello");
    expect(decodeBase64urlStrict("")?.length).toBe(0);
    for (const bad of ["aGVsbG8=", "aGVs bG8", "aGVs\nbG8", "aGVsbG8+", "aGVs/G8", "aGVsbG9", "a", "aGVsbG8\u0000"]) {
      expect(decodeBase64urlStrict(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});

describe("key rotation", () => {
  it("publishes the new key next to the old; both the old and the new signatures verify", async () => {
    const { license, fp } = await activated();
    const before = (await fileFor(license.key, fp)).text;
    const oldJwt = (await call(credentialRoute, `/api/receipt/credential?key=${license.key}`)).text;
    const newId = await rotateSigningKey();
    const doc = (await call(didRoute, "/.well-known/did.json")).body;
    expect(doc.verificationMethod.length).toBeGreaterThanOrEqual(2);
    expect(doc.authentication).toEqual([`${doc.id}#${newId}`]);
    const after = (await fileFor(license.key, fp)).text;
    expect(after).toContain(`key-id: ${doc.id}#${newId}`);
    const keys = await didKeys();
    expect(verifyLicenseFile(before, keys, fp).ok).toBe(true);
    expect(verifyLicenseFile(after, keys, fp).ok).toBe(true);
    const newJwt = (await call(credentialRoute, `/api/receipt/credential?key=${license.key}`)).text;
    expect(decodeProtectedHeader(newJwt).kid).toBe(`${doc.id}#${newId}`);
    for (const jwt of [oldJwt, newJwt]) {
      expect((await call(verifyRoute, "/api/receipt", { method: "POST", json: { credential: jwt } })).body.valid).toBe(true);
    }
  });
});
