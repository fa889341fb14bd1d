import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb, disconnectDb } from "@/lib/db";
import { rateLimiter } from "@/lib/http/rate-limit";
import { fingerprint, newLicense } from "../helpers/licenses";
import { post, startLeanServer } from "../helpers/lean-server";

let base: string;
let close: () => Promise<void>;
beforeAll(async () => ({ base, close } = await startLeanServer()));
afterAll(async () => {
  await close();
  await disconnectDb();
});

async function snapshot() {
  const db = getDb();
  return {
    licenses: await db.license.count(),
    activations: await db.activation.count(),
    seats: (await db.license.aggregate({ _sum: { activeMachines: true } }))._sum.activeMachines,
  };
}

function expectProblem(r: { status: number; headers: Headers; body: any; text: string }, status: number, code?: string) {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get("content-type")).toBe("application/problem+json");
  expect(r.body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String), code: code ?? expect.any(String) });
  expect(r.text).not.toMatch(/\n\s+at /);
}

describe("hostile and malformed input on /validate, /activate and /deactivate", () => {
  it("gets a 4xx problem document each time and changes nothing", async () => {
    const { license, product } = await newLicense({ maxMachines: 2 });
    const good = { license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId };
    const before = await snapshot();
    const deep = "[".repeat(5000) + "]".repeat(5000);
    const cases: Array<[string, unknown, number, string, Record<string, string>?]> = [
      ["malformed JSON", '{"license_key":', 400, "invalid_json"],
      ["empty body", "", 400, "body_required"],
      ["JSON null", "null", 400, "invalid_body"],
      ["an array", "[1,2]", 400, "invalid_body"],
      ["wrong types", { license_key: 12, machine_fingerprint: true, plugin_id: [] }, 400, "invalid_body"],
      ["missing fields", { license_key: license.key }, 400, "invalid_body"],
      ["a malformed key", { ...good, license_key: "ABCD" }, 400, "invalid_body"],
      ["a fingerprint that is not SHA-256", { ...good, machine_fingerprint: "my-pc" }, 400, "invalid_body"],
      ["a 2 MB field", { ...good, plugin_id: "x".repeat(2 * 1024 * 1024) }, 413, "body_too_large"],
      ["deep nesting", `{"license_key":${deep}}`, 400, "body_too_deep"],
      ["prototype pollution", `{"__proto__":{"valid":true},"license_key":"${license.key}"}`, 400, "invalid_body"],
      [
        "form encoding",
        "license_key=x&machine_fingerprint=y",
        415,
        "unsupported_media_type",
        { "content-type": "application/x-www-form-urlencoded" },
      ],
      ["no content type", JSON.stringify(good), 415, "unsupported_media_type", { "content-type": "" }],
    ];
    for (const path of ["/validate", "/activate", "/deactivate"]) {
      for (const [name, body, status, code, headers] of cases) {
        const r = await post(base, path, body, headers);
        expect(r.status, `${path} ${name}`).toBe(status);
        expectProblem(r, status, code);
      }
      const get = await fetch(base + path);
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
    }
    expect(await snapshot()).toEqual(before);
    expect(({} as Record<string, unknown>).valid).toBeUndefined();
  });

  it("names the offending field", async () => {
    const r = await post(base, "/activate", { license_key: "AAAA-BBBB-CCCC-DDDD", machine_fingerprint: "nope", plugin_id: "com.x" });
    expect(r.body.errors).toEqual([expect.objectContaining({ in: "body", name: "machine_fingerprint" })]);
    expect(r.body.detail).toContain("machine_fingerprint");
  });

  it("refuses a chunked body past the cap without reading all of it", async () => {
    const { request } = await import("node:http");
    const chunk = "x".repeat(64 * 1024);
    const result = await new Promise<{ status: number; sent: number }>((resolve) => {
      const req = request(`${base}/validate`, { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } });
      let sent = 0;
      let done = false;
      req.on("response", (res) => {
        done = true;
        res.resume();
        resolve({ status: res.statusCode!, sent });
        req.destroy();
      });
      req.on("error", () => {
        if (!done) resolve({ status: -1, sent });
      });
      const pump = () => {
        if (done) return;
        if (sent >= 200) return void req.end();
        sent++;
        req.write(chunk, () => setTimeout(pump, 1));
      };
      pump();
    });
    expect(result.status).toBe(413);
    expect(result.sent).toBeLessThan(200);
  });
});

describe("rate limits on the licensing paths", () => {
  it("answer 429 with Retry-After per address and per key, and RATE_LIMIT=off lifts them", async () => {
    const { license, product } = await newLicense();
    const body = { license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId };
    rateLimiter().reset();
    process.env.RATE_LIMIT_VALIDATE_PER_MIN = "5";
    try {
      const replies = [];
      for (let i = 0; i < 7; i++) replies.push(await post(base, "/validate", body));
      expect(replies.slice(0, 5).every((r) => r.status === 200)).toBe(true);
      const limited = replies[5]!;
      expectProblem(limited, 429, "rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);

      process.env.RATE_LIMIT = "off";
      expect((await post(base, "/validate", body)).status).toBe(200);
      process.env.RATE_LIMIT = "on";

      delete process.env.RATE_LIMIT_VALIDATE_PER_MIN;
      process.env.RATE_LIMIT_PER_KEY_PER_MIN = "3";
      rateLimiter().reset();
      const perKey = [];
      for (let i = 0; i < 4; i++) perKey.push(await post(base, "/validate", body));
      expect(perKey[3]!.status).toBe(429);
      const otherKey = await post(base, "/validate", { ...body, license_key: "ZZZZ-ZZZZ-ZZZZ-ZZZZ" });
      expect(otherKey.status).toBe(200);
    } finally {
      delete process.env.RATE_LIMIT_VALIDATE_PER_MIN;
      delete process.env.RATE_LIMIT_PER_KEY_PER_MIN;
      process.env.RATE_LIMIT = "on";
      rateLimiter().reset();
    }
  });
});
