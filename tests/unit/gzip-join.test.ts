import { randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { deflateParts, gzipJoin } from "@/lib/transports/gzip-join";

/** Pages and pieces of several shapes: markup that compresses well, random bytes that do not, empty parts. */
const markup = (n: number) => Buffer.from(`<div class="card">product ${"é".repeat(n % 7)}</div>\n`.repeat(n));
const CASES: { name: string; parts: Buffer[] }[] = [
  { name: "one part", parts: [markup(4000)] },
  { name: "a page split at three nonces", parts: [markup(100), markup(3000), markup(5), markup(2000)] },
  { name: "empty parts at both ends and between", parts: [Buffer.alloc(0), markup(50), Buffer.alloc(0), Buffer.alloc(0)] },
  { name: "incompressible parts", parts: [randomBytes(70_000), randomBytes(1), randomBytes(140_000)] },
  { name: "a part of exactly 64 KiB", parts: [Buffer.alloc(65_536, 0x61), markup(10)] },
];

describe("gzipJoin", () => {
  it.each(CASES)("decompresses to the parts joined around the string: $name", ({ parts }) => {
    const deflated = deflateParts(parts);
    for (const between of ["Zm9vYmFyYmF6cXV4MTIzNA==", "", "ü".repeat(40)].map((s) => Buffer.from(s))) {
      const gz = gzipJoin(parts, deflated, between);
      // gunzip checks the CRC-32 and the length in the trailer.
      const joined = Buffer.concat(parts.flatMap((p, i) => (i === 0 ? [p] : [between, p])));
      expect(gunzipSync(gz).equals(joined)).toBe(true);
    }
  });

  it("is much smaller than the page when the page compresses, and the same compressed runs serve every string", () => {
    const parts = [markup(3000), markup(3000)];
    const deflated = deflateParts(parts);
    const a = gzipJoin(parts, deflated, Buffer.from("nonce-one-AAAAAAAAAAAA"));
    const b = gzipJoin(parts, deflated, Buffer.from("nonce-two-BBBBBBBBBBBB"));
    expect(a.length).toBeLessThan((parts[0]!.length + parts[1]!.length) / 10);
    expect(gunzipSync(a).toString()).toContain("nonce-one-AAAAAAAAAAAA");
    expect(gunzipSync(b).toString()).toContain("nonce-two-BBBBBBBBBBBB");
    expect(gunzipSync(b).toString()).not.toContain("nonce-one");
  });

  it("a wrong trailer is caught by the reader (the CRC is real)", () => {
    const parts = [markup(200), markup(200)];
    const gz = gzipJoin(parts, deflateParts(parts), Buffer.from("x"));
    gz[gz.length - 8]! ^= 0x01;
    expect(() => gunzipSync(gz)).toThrow(/incorrect data check|invalid/i);
  });

  it("refuses a string too long for one stored block, and runs that do not match the parts", () => {
    const parts = [markup(2), markup(2)];
    expect(() => gzipJoin(parts, deflateParts(parts), Buffer.alloc(65_536))).toThrow(RangeError);
    expect(() => gzipJoin(parts, deflateParts([markup(2)]), Buffer.from("x"))).toThrow(RangeError);
  });
});
