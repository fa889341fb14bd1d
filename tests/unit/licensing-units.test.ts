import { createPrivateKey, createPublicKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { base58btc, ed25519Multibase } from "@/lib/identity/multibase";
import { serviceDid } from "@/lib/identity/did";
import { generateLicenseKey, KEY_ALPHABET, KEY_BITS, LICENSE_KEY_PATTERN } from "@/lib/licensing/keys";
import { LicenseCache, type LicenseState } from "@/lib/licensing/license-state";
import { licenseKeySchema, machineFingerprintSchema } from "@/lib/licensing/schemas";
import { licenseStanding, trialDaysRemaining } from "@/lib/licensing/evaluate";
import { RateLimiter, clientAddress } from "@/lib/http/rate-limit";
import type { AppError } from "@/lib/http/errors";

describe("license keys", () => {
  it("have the XXXX-XXXX-XXXX-XXXX format, an unambiguous alphabet and at least 75 bits", () => {
    expect(KEY_BITS).toBeGreaterThanOrEqual(75);
    for (const c of "ILOU") expect(KEY_ALPHABET).not.toContain(c);
    const keys = new Set(Array.from({ length: 5000 }, generateLicenseKey));
    expect(keys.size).toBe(5000);
    for (const k of keys) {
      expect(k).toMatch(LICENSE_KEY_PATTERN);
      for (const c of k.replace(/-/g, "")) expect(KEY_ALPHABET).toContain(c);
    }
    // Every symbol turns up: the draw is not skewed to part of the alphabet.
    const seen = new Set([...keys].join("").replace(/-/g, ""));
    expect(seen.size).toBe(KEY_ALPHABET.length);
  });
});

describe("license key and fingerprint input", () => {
  it("takes keys in any case with surrounding spaces and hands on the stored form; fingerprints in lower case", () => {
    const key = licenseKeySchema.parse("  ab12-cd34-ef56-gh78 ");
    expect(key).toBe("AB12-CD34-EF56-GH78");
    expect(key).toMatch(LICENSE_KEY_PATTERN);
    for (const bad of ["AB12-CD34-EF56", "AB12_CD34_EF56_GH78", "AB12-CD34-EF56-GH7é", ""])
      expect(licenseKeySchema.safeParse(bad).success).toBe(false);
    expect(machineFingerprintSchema.parse(` ${"AbC0".repeat(16)} `)).toBe("abc0".repeat(16));
    expect(machineFingerprintSchema.safeParse("g".repeat(64)).success).toBe(false);
  });

  it("publishes the pattern it enforces on input", () => {
    const schema = z.toJSONSchema(licenseKeySchema, { io: "input" }) as { pattern?: string };
    expect(schema.pattern).toBe("^[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}$");
  });
});

describe("identity encoding", () => {
  it("encodes base58btc with leading zeros", () => {
    expect(base58btc(Uint8Array.from([0, 0, 1]))).toBe("112");
    expect(base58btc(new TextEncoder().encode("hello world"))).toBe("StV1DL6CwTryKyV");
  });

  it("matches the did:key test vector for the all-zero Ed25519 seed", () => {
    const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), Buffer.alloc(32)]);
    const pub = createPublicKey(createPrivateKey({ key: der, format: "der", type: "pkcs8" }));
    const raw = (pub.export({ format: "der", type: "spki" }) as Buffer).subarray(-32);
    expect(ed25519Multibase(raw)).toBe("z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp");
  });

  it("builds did:web from BASE_URL, percent-encoding the port", () => {
    expect(serviceDid("https://licenses.example.com")).toBe("did:web:licenses.example.com");
    expect(serviceDid("http://localhost:3000")).toBe("did:web:localhost%3A3000");
    expect(serviceDid("https://shop.example.com:8443/")).toBe("did:web:shop.example.com%3A8443");
  });
});

function state(over: Partial<LicenseState> = {}): LicenseState {
  return {
    id: "l1",
    key: "AAAA-BBBB-CCCC-DDDD",
    productId: "p",
    productName: "P",
    pluginId: "com.x.p",
    buyerEmail: "b@x.com",
    isActive: true,
    trial: false,
    maxMachines: 2,
    issuedAt: 0,
    expiresAt: null,
    machines: new Map(),
    loadedAt: 0,
    ...over,
  };
}

describe("license rules", () => {
  it("rank the reasons a license does not stand", () => {
    const now = 1_000_000;
    expect(licenseStanding(null, "com.x.p", now)).toBe("NOT_FOUND");
    expect(licenseStanding(state(), "com.y", now)).toBe("PRODUCT_MISMATCH");
    expect(licenseStanding(state({ isActive: false }), "com.x.p", now)).toBe("REVOKED");
    expect(licenseStanding(state({ expiresAt: now }), "com.x.p", now)).toBe("EXPIRED");
    expect(licenseStanding(state({ expiresAt: now - 1, trial: true }), "com.x.p", now)).toBe("TRIAL_EXPIRED");
    expect(licenseStanding(state({ expiresAt: now + 1 }), "com.x.p", now)).toBe("VALID");
  });

  it("count trial days up to the next whole day", () => {
    const day = 86_400_000;
    expect(trialDaysRemaining(state({ trial: true, expiresAt: 14 * day }), 0)).toBe(14);
    expect(trialDaysRemaining(state({ trial: true, expiresAt: 14 * day }), 1)).toBe(14);
    expect(trialDaysRemaining(state({ trial: true, expiresAt: 14 * day }), 13 * day + 1)).toBe(1);
    expect(trialDaysRemaining(state({ trial: true, expiresAt: 14 * day }), 15 * day)).toBe(0);
    expect(trialDaysRemaining(state({ trial: false, expiresAt: 14 * day }), 0)).toBe(0);
  });
});

describe("the license cache", () => {
  it("forgets entries after the TTL, on invalidation, and past its size", () => {
    const cache = new LicenseCache(1000, 2);
    cache.set(state({ key: "A", loadedAt: 0 }));
    expect(cache.get("A", 500)?.key).toBe("A");
    expect(cache.get("A", 1500)).toBeUndefined();
    cache.set(state({ key: "A", loadedAt: 0 }));
    cache.invalidate("A");
    expect(cache.get("A", 1)).toBeUndefined();
    cache.set(state({ key: "A", loadedAt: 0 }));
    cache.set(state({ key: "B", loadedAt: 0 }));
    cache.set(state({ key: "C", loadedAt: 0 }));
    expect(cache.size).toBe(2);
    expect(cache.get("A", 1)).toBeUndefined();
  });
});

describe("rate limits", () => {
  it("answer 429 with Retry-After past the limit and reset with the window", () => {
    const limiter = new RateLimiter();
    const rule = { name: "t", limit: 3, windowMs: 60_000 };
    for (let i = 0; i < 3; i++) limiter.hit(rule, "1.2.3.4", 0);
    try {
      limiter.hit(rule, "1.2.3.4", 1000);
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).status).toBe(429);
      expect((e as AppError).extra.headers?.["Retry-After"]).toBe("59");
    }
    limiter.hit(rule, "5.6.7.8", 1000);
    limiter.hit(rule, "1.2.3.4", 60_001);
  });

  it("trust X-Forwarded-For only behind configured proxies", () => {
    expect(clientAddress("10.0.0.1", "6.6.6.6")).toBe("10.0.0.1");
    process.env.TRUST_PROXY = "1";
    try {
      // The peer is not a listed proxy (TRUST_PROXY_FROM defaults to loopback): its header is not believed.
      expect(clientAddress("10.0.0.1", "6.6.6.6, 1.2.3.4")).toBe("10.0.0.1");
      process.env.TRUST_PROXY_FROM = "10.0.0.0/8";
      expect(clientAddress("10.0.0.1", "6.6.6.6, 1.2.3.4")).toBe("1.2.3.4");
    } finally {
      delete process.env.TRUST_PROXY;
      delete process.env.TRUST_PROXY_FROM;
    }
  });
});
