import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { buyButtonScript } from "@/lib/embed/buy-button-script";
import { normaliseOrigin } from "@/lib/embed/origins";
import { frameAncestorsSources, frameOptionsFor, pageContentSecurityPolicy, withFrameAncestors } from "@/lib/http/security-headers";

/**
 * The buy button's verified origins: what an origin is (normalised as stored and compared), and the framing headers
 * an embeddable checkout page answers with.
 */
describe("normaliseOrigin", () => {
  const strict = { allowPrivate: false };
  const open = { allowPrivate: true };

  it("keeps scheme, host and port, lower case, without a default port or a bare trailing slash", () => {
    expect(normaliseOrigin("https://shop.example.com", strict)).toBe("https://shop.example.com");
    expect(normaliseOrigin("  HTTPS://Shop.Example.COM/  ", strict)).toBe("https://shop.example.com");
    expect(normaliseOrigin("https://shop.example.com:443", strict)).toBe("https://shop.example.com");
    expect(normaliseOrigin("https://shop.example.com:8443/", strict)).toBe("https://shop.example.com:8443");
    expect(normaliseOrigin("https://bücher.example", strict)).toBe("https://xn--bcher-kva.example");
  });

  it("refuses a path, query, fragment, credentials, another scheme or no scheme", () => {
    for (const bad of [
      "https://shop.example.com/store",
      "https://shop.example.com/?a=1",
      "https://shop.example.com?",
      "https://shop.example.com/#x",
      "https://user:pw@shop.example.com",
      "ftp://shop.example.com",
      "javascript:alert(1)",
      "shop.example.com",
      "",
      "https://",
      `https://${"a".repeat(300)}.com`,
    ]) {
      expect(() => normaliseOrigin(bad, open), bad).toThrow(expect.objectContaining({ code: "embed_origin_invalid", status: 400 }));
    }
  });

  it("plain http only for a loopback or private host, and only with WEBHOOK_ALLOW_PRIVATE", () => {
    expect(normaliseOrigin("http://127.0.0.1:4321", open)).toBe("http://127.0.0.1:4321");
    expect(normaliseOrigin("http://localhost:3000/", open)).toBe("http://localhost:3000");
    expect(normaliseOrigin("http://[::1]:8080", open)).toBe("http://[::1]:8080");
    expect(normaliseOrigin("http://10.1.2.3", open)).toBe("http://10.1.2.3");
    for (const bad of ["http://127.0.0.1:4321", "http://localhost:3000"]) {
      expect(() => normaliseOrigin(bad, strict), bad).toThrow(expect.objectContaining({ code: "embed_origin_invalid" }));
    }
    // A public host over http is refused whatever the switch says.
    expect(() => normaliseOrigin("http://shop.example.com", open)).toThrow(expect.objectContaining({ code: "embed_origin_invalid" }));
    expect(() => normaliseOrigin("http://8.8.8.8", open)).toThrow(expect.objectContaining({ code: "embed_origin_invalid" }));
  });
});

describe("frame-ancestors of an embeddable page", () => {
  const ctx = { baseUrl: "https://market.example.com", development: false };
  const directive = (policy: string) =>
    policy
      .split(";")
      .map((d) => d.trim())
      .filter((d) => d.startsWith("frame-ancestors"));

  it("names the verified origins, 'self' for our own preview, and 'none' when there are neither", () => {
    expect(frameAncestorsSources({ self: false, origins: [] })).toBe("'none'");
    expect(frameAncestorsSources({ self: false, origins: ["https://a.example", "http://127.0.0.1:4000"] })).toBe(
      "https://a.example http://127.0.0.1:4000",
    );
    expect(frameAncestorsSources({ self: true, origins: [] })).toBe("'self'");
    expect(frameAncestorsSources({ self: true, origins: ["https://a.example"] })).toBe("'self' https://a.example");
  });

  it("replaces only the frame-ancestors directive of the page policy, exactly once", () => {
    const page = pageContentSecurityPolicy("n0nce", ctx);
    expect(directive(page)).toEqual(["frame-ancestors 'none'"]);
    const framed = withFrameAncestors(page, "https://a.example");
    expect(directive(framed)).toEqual(["frame-ancestors https://a.example"]);
    // Everything else is untouched.
    const rest = (p: string) =>
      p
        .split(";")
        .map((d) => d.trim())
        .filter((d) => !d.startsWith("frame-ancestors"));
    expect(rest(framed)).toEqual(rest(page));
    expect(directive(withFrameAncestors(framed, "'none'"))).toEqual(["frame-ancestors 'none'"]);
  });

  it("X-Frame-Options agrees: DENY for nobody, SAMEORIGIN for our own pages, absent when another origin may frame", () => {
    expect(frameOptionsFor({ self: false, origins: [] })).toBe("DENY");
    expect(frameOptionsFor({ self: true, origins: [] })).toBe("SAMEORIGIN");
    expect(frameOptionsFor({ self: false, origins: ["https://a.example"] })).toBeNull();
  });
});

describe("the buy button script", () => {
  it("is plain JavaScript that parses, small, and checks messages against our origin", () => {
    const js = buyButtonScript("https://market.example.com");
    // Parsed, not run: a syntax error in the served script would break every seller's page.
    expect(() => new vm.Script(js)).not.toThrow();
    expect(js).toContain('var BASE = "https://market.example.com"');
    expect(js).toContain("e.origin !== BASE");
    expect(js).not.toContain('"*"');
    expect(Buffer.byteLength(js)).toBeLessThan(8 * 1024);
  });
});
