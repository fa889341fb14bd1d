import { afterAll, describe, expect, it } from "vitest";
import { freezeLiveSettings, liveSetting } from "@/lib/env";

/**
 * The server process freezes live settings at start (server.ts): each is then read from process.env once. This file
 * has its own module instance (vitest isolates test files), so the freeze does not reach other tests.
 */

const saved = { ...process.env };
afterAll(() => {
  process.env = saved;
});

describe("freezeLiveSettings", () => {
  it("keeps each setting at the value first read, before or after the freeze", () => {
    process.env.TRUST_PROXY = "1";
    expect(liveSetting("TRUST_PROXY")).toBe(1);
    freezeLiveSettings();
    process.env.TRUST_PROXY = "2";
    expect(liveSetting("TRUST_PROXY")).toBe(1);

    process.env.RATE_LIMIT = "off";
    expect(liveSetting("RATE_LIMIT")).toBe("off");
    process.env.RATE_LIMIT = "on";
    expect(liveSetting("RATE_LIMIT")).toBe("off");
  });
});
