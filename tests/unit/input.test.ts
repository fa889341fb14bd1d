import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AppError } from "@/lib/http/errors";
import { checkJsonContentType, MAX_JSON_DEPTH, parseJsonText, parseWith, queryObject, readBodyText } from "@/lib/http/input";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as AppError).code;
  }
  return undefined;
}

async function asyncCodeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return (e as AppError).code;
  }
  return undefined;
}

describe("JSON bodies", () => {
  it("parses valid JSON and refuses empty, malformed and over-deep bodies", () => {
    expect(parseJsonText('{"a":[1,{"b":2}]}')).toEqual({ a: [1, { b: 2 }] });
    expect(codeOf(() => parseJsonText(""))).toBe("body_required");
    expect(codeOf(() => parseJsonText("   "))).toBe("body_required");
    expect(codeOf(() => parseJsonText("{not json"))).toBe("invalid_json");
    expect(codeOf(() => parseJsonText("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1)))).toBe("body_too_deep");
    expect(parseJsonText("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH))).toBeDefined();
  });

  it("counts nesting, not brackets inside strings, and still refuses deep bodies whatever their text looks like", () => {
    const bracketsInText = JSON.stringify({ note: "[".repeat(MAX_JSON_DEPTH * 2), list: [[["ok"]]] });
    expect(parseJsonText(bracketsInText)).toEqual({ note: "[".repeat(MAX_JSON_DEPTH * 2), list: [[["ok"]]] });
    const deepWithPadding = `{"pad":"${"x".repeat(500)}","v":${"[".repeat(MAX_JSON_DEPTH + 1)}${"]".repeat(MAX_JSON_DEPTH + 1)}}`;
    expect(codeOf(() => parseJsonText(deepWithPadding))).toBe("body_too_deep");
  });

  it("refuses control characters in a parsed body however the text spells them", () => {
    const schema = z.looseObject({ a: z.string() });
    const bodyCode = (text: string) => codeOf(() => parseWith(schema, "body", parseJsonText(text)));
    // Plain text: nothing in it can decode to a control character, so the parsed body passes.
    expect(bodyCode('{"a":"plain text, é and 🎹"}')).toBeUndefined();
    // Escapes that decode to C0, DEL and C1 characters, in values and in keys, and half a surrogate pair.
    expect(bodyCode('{"a":"x\\u0001"}')).toBe("invalid_body");
    expect(bodyCode('{"a":"ok","b\\u0000":"key"}')).toBe("invalid_body");
    expect(bodyCode('{"a":"\\u007f"}')).toBe("invalid_body");
    expect(bodyCode('{"a":"\\ud800"}')).toBe("invalid_body");
    // Raw DEL and C1 characters are valid JSON text, and refused all the same.
    expect(bodyCode('{"a":"x\u007f"}')).toBe("invalid_body");
    expect(bodyCode('{"a":"x\u0085"}')).toBe("invalid_body");
    // The walk is skipped once, for the body just parsed: the same object checked again is walked.
    const body = parseJsonText('{"a":"plain"}') as { a: string };
    expect(codeOf(() => parseWith(schema, "body", body))).toBeUndefined();
    body.a = "changed\u0001";
    expect(codeOf(() => parseWith(schema, "body", body))).toBe("invalid_body");
    // Escapes that decode to tab and line breaks are allowed in bodies, as are plain escapes.
    expect(bodyCode('{"a":"one\\ntwo\\tthree \\"quoted\\" \\\\ \\u00e9"}')).toBeUndefined();
  });

  it("survives hostile nesting without exhausting the stack", () => {
    const deep = "[".repeat(200_000) + "]".repeat(200_000);
    expect(["body_too_deep", "invalid_json"]).toContain(codeOf(() => parseJsonText(deep)));
  });

  it("accepts only JSON content types", () => {
    expect(codeOf(() => checkJsonContentType("application/json"))).toBeUndefined();
    expect(codeOf(() => checkJsonContentType("application/json; charset=utf-8"))).toBeUndefined();
    expect(codeOf(() => checkJsonContentType("application/merge-patch+json"))).toBeUndefined();
    expect(codeOf(() => checkJsonContentType("application/x-www-form-urlencoded"))).toBe("unsupported_media_type");
    expect(codeOf(() => checkJsonContentType(null))).toBe("unsupported_media_type");
  });
});

describe("body size cap", () => {
  it("refuses a declared length over the cap before reading", async () => {
    const req = new Request("http://x/", { method: "POST", body: "x".repeat(10), headers: { "content-length": "999999" } });
    expect(await asyncCodeOf(readBodyText(req, 100))).toBe("body_too_large");
  });

  it("stops reading a chunked body as soon as it passes the cap", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024));
        if (pulled > 10_000) controller.close();
      },
    });
    const req = new Request("http://x/", { method: "POST", body: stream, duplex: "half" } as RequestInit);
    expect(await asyncCodeOf(readBodyText(req, 4096))).toBe("body_too_large");
    expect(pulled).toBeLessThan(20);
  });

  it("refuses bytes that are not UTF-8", async () => {
    const req = new Request("http://x/", { method: "POST", body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) });
    expect(await asyncCodeOf(readBodyText(req, 100))).toBe("invalid_encoding");
  });

  it("reads a body within the cap", async () => {
    const req = new Request("http://x/", { method: "POST", body: '{"ok":true}' });
    expect(await readBodyText(req, 100)).toBe('{"ok":true}');
  });
});

describe("query and validation", () => {
  it("keeps the first value of a repeated parameter", () => {
    expect(queryObject(new URL("http://x/?a=1&a=2&b=3"))).toEqual({ a: "1", b: "3" });
  });

  it("names the failing parameter in a 400", () => {
    const schema = z.object({ limit: z.coerce.number().int().max(50) });
    try {
      parseWith(schema, "query", { limit: "500" });
      expect.unreachable();
    } catch (e) {
      const err = e as AppError;
      expect(err.status).toBe(400);
      expect(err.code).toBe("invalid_query");
      expect(err.detail).toContain('"limit"');
      expect(err.extra.errors?.[0]).toMatchObject({ in: "query", name: "limit" });
    }
  });
});

describe("the schemas forms share with the API refuse control characters", () => {
  const product = {
    name: "Tape Warmth",
    tagline: "Warm tape saturation.",
    description: "A product description long enough to pass.\nOn two lines, with a\ttab.",
    plugin_id: "com.example.tape",
    price_cents: 1500,
    category: "audio-plugins",
    max_machines: 2,
    seat_model: "per-machine",
    platforms: ["linux"],
    download_url: "https://example.com/tape.zip",
    icon_url: "/icons/tape-warmth.svg",
    compatibility: ["VST3"],
    min_version: "1.0",
  };

  it("in a product (the dashboard form posts here too: a NUL in a name gave 500 on PostgreSQL)", async () => {
    const { productInputSchema } = await import("@/lib/marketplace/schemas");
    expect(productInputSchema.safeParse(product).success).toBe(true);
    for (const [field, value] of [
      ["name", "Tape\u0000Warmth"],
      ["name", "Tape\nWarmth"],
      ["tagline", "Warm\u001b[31m"],
      ["description", "A product description long enough to pass.\u0000"],
      ["min_version", "1.0\u0085"],
      ["compatibility", ["VST\u00003"]],
    ] as const) {
      const r = productInputSchema.safeParse({ ...product, [field]: value });
      expect(r.success, `${field}: ${JSON.stringify(value)}`).toBe(false);
      expect(r.error?.issues[0]?.message).toBe("must not contain control characters");
    }
  });

  it("in a developer profile and a complimentary license", async () => {
    const { profileInputSchema } = await import("@/lib/selling/developer-profile");
    const { complimentaryInputSchema } = await import("@/lib/selling/licenses");
    expect(profileInputSchema.safeParse({ name: "Studio", bio: "Line one.\nLine two." }).success).toBe(true);
    expect(profileInputSchema.safeParse({ name: "Stu\u0000dio" }).success).toBe(false);
    expect(profileInputSchema.safeParse({ name: "Studio", bio: "\u0000" }).success).toBe(false);
    expect(complimentaryInputSchema.safeParse({ product_id: "p\u0000", buyer_email: "a@example.com" }).success).toBe(false);
  });
});
