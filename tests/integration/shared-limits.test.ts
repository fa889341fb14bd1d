import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@/lib/db";
import { RateLimiter } from "@/lib/http/rate-limit";
import { storeCounts } from "@/lib/http/rate-limit-sync";

afterAll(() => disconnectDb());

describe("rate limits shared through the database", () => {
  it("hold across instances: two limiters that sync see each other's counts", async () => {
    const a = new RateLimiter();
    const b = new RateLimiter();
    const rule = { name: `shared-${Date.now()}`, limit: 10, windowMs: 60_000 };
    const now = Date.now();
    for (let i = 0; i < 6; i++) a.hit(rule, "203.0.113.7", now);
    for (let i = 0; i < 4; i++) b.hit(rule, "203.0.113.7", now);
    await a.sync(storeCounts);
    await b.sync(storeCounts);
    await a.sync(storeCounts);
    // Ten counted in all: the next hit on either instance is the eleventh.
    expect(() => a.hit(rule, "203.0.113.7", now)).toThrow(/Too many requests/);
    expect(() => b.hit(rule, "203.0.113.7", now)).toThrow(/Too many requests/);
    expect(() => b.hit(rule, "198.51.100.1", now)).not.toThrow();
    const key = `${rule.name}:${Math.floor(now / 60_000) * 60_000}:203.0.113.7`;
    const bucket = await getDb().rateLimitBucket.findUniqueOrThrow({ where: { key } });
    expect(bucket.count).toBe(10);
  });

  it("keep counts that could not be shared, and share them later", async () => {
    const a = new RateLimiter();
    const rule = { name: `retry-${Date.now()}`, limit: 100, windowMs: 60_000 };
    a.hit(rule, "x");
    a.hit(rule, "x");
    await expect(a.sync(() => Promise.reject(new Error("database down")))).rejects.toThrow("database down");
    expect(await a.sync(storeCounts)).toBe(1);
    const key = `${rule.name}:${Math.floor(Date.now() / 60_000) * 60_000}:x`;
    expect((await getDb().rateLimitBucket.findUniqueOrThrow({ where: { key } })).count).toBe(2);
  });
});
