import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { heapRoomAdvice } from "../../lib/server/heap-room.ts";

const MB = 2 ** 20;

describe("room in the heap for the license cache", () => {
  it("is enough for the default cache under the ceiling npm start gives (512 MB old space, 8 MB semi-spaces)", () => {
    expect(heapRoomAdvice(100_000, 536 * MB)).toBeUndefined();
  });

  it("is not enough for a larger cache, and the advice names a ceiling that is", () => {
    const advice = heapRoomAdvice(500_000, 536 * MB);
    expect(advice).toMatch(/^LICENSE_CACHE_SIZE=500000 needs about 1149 MB of heap .* 536 MB ceiling: set NODE_OPTIONS=--max-old-space-size=1664 /);
    expect(heapRoomAdvice(500_000, 1664 * MB)).toBeUndefined();
  });

  it("reads this process's own ceiling by default", () => {
    const ceiling = getHeapStatistics().heap_size_limit;
    expect(heapRoomAdvice(1, ceiling)).toBe(heapRoomAdvice(1));
    expect(heapRoomAdvice(10_000_000)).toContain(`${Math.round(ceiling / MB)} MB ceiling`);
  });
});
