import { describe, expect, it } from "vitest";
import {
  isPagePath,
  newNonce,
  NON_PAGE_CONTENT_SECURITY_POLICY,
  pageContentSecurityPolicy,
  securityHeaders,
  STRIPE_CHECKOUT_ORIGIN,
} from "@/lib/http/security-headers";

const https = { baseUrl: "https://market.example.com", development: false };
const http = { baseUrl: "http://localhost:3000", development: false };

function directives(policy: string): Map<string, string> {
  return new Map(
    policy.split(";").map((d) => {
      const [name = "", ...values] = d.trim().split(/\s+/);
      return [name, values.join(" ")];
    }),
  );
}

describe("security headers", () => {
  it("an https deployment gets HSTS and upgrade-insecure-requests; http gets neither", () => {
    const secure = securityHeaders("/", https, "abc");
    expect(secure["Strict-Transport-Security"]).toBe("max-age=63072000; includeSubDomains");
    expect(directives(secure["Content-Security-Policy"]).has("upgrade-insecure-requests")).toBe(true);

    const plain = securityHeaders("/", http, "abc");
    expect(plain).not.toHaveProperty("Strict-Transport-Security");
    expect(plain["Content-Security-Policy"]).not.toContain("upgrade-insecure-requests");
    // Non-page answers follow the same rule.
    expect(securityHeaders("/api/catalog", https)["Strict-Transport-Security"]).toBeDefined();
    expect(securityHeaders("/api/catalog", http)).not.toHaveProperty("Strict-Transport-Security");
  });

  it("a page's scripts need the nonce: no unsafe-inline or unsafe-eval for scripts in production", () => {
    const d = directives(pageContentSecurityPolicy("n0nce", https));
    expect(d.get("script-src")).toBe("'self' 'nonce-n0nce' 'strict-dynamic'");
    expect(d.get("default-src")).toBe("'self'");
    expect(d.get("object-src")).toBe("'none'");
    expect(d.get("base-uri")).toBe("'none'");
    expect(d.get("frame-ancestors")).toBe("'none'");
    expect(d.get("connect-src")).toBe("'self'");
    expect(d.get("font-src")).toBe("'self'");
    // The Buy form's POST answers with a 303 to Stripe Checkout; Chromium applies form-action to that redirect.
    expect(d.get("form-action")).toBe(`'self' ${STRIPE_CHECKOUT_ORIGIN}`);
    // Style attributes cannot carry a nonce; a nonce next to 'unsafe-inline' would switch it off.
    expect(d.get("style-src")).toBe("'self' 'unsafe-inline'");
  });

  it("a page loads images from this site only: no other host learns who views a product", () => {
    // Product icons and screenshots are uploads; one given by URL is fetched once and stored (lib/selling/uploads.ts).
    for (const ctx of [https, http, { ...http, development: true }]) {
      const img = directives(pageContentSecurityPolicy("n", ctx)).get("img-src");
      expect(img).toBe("'self' data: blob:");
      expect(img).not.toMatch(/https?:/);
      expect(directives(securityHeaders("/products/x", ctx, "n")["Content-Security-Policy"]).get("img-src")).toBe("'self' data: blob:");
    }
  });

  it("'unsafe-eval' only for next dev", () => {
    expect(pageContentSecurityPolicy("n", { ...http, development: true })).toContain("script-src 'self' 'nonce-n' 'strict-dynamic' 'unsafe-eval'");
    expect(pageContentSecurityPolicy("n", http)).not.toContain("unsafe-eval");
  });

  it("every answer refuses framing and sniffing and limits features", () => {
    for (const [path, nonce] of [
      ["/", "n"],
      ["/products/x", "n"],
      ["/api/catalog", undefined],
      ["/uploads/abc.png", undefined],
    ] as const) {
      const h = securityHeaders(path, https, nonce);
      expect(h["X-Frame-Options"]).toBe("DENY");
      expect(h["X-Content-Type-Options"]).toBe("nosniff");
      expect(directives(h["Content-Security-Policy"]).get("frame-ancestors")).toBe("'none'");
      for (const feature of ["camera", "microphone", "geolocation", "payment", "usb"]) expect(h["Permissions-Policy"]).toContain(`${feature}=()`);
    }
  });

  it("data, files and uploads get a policy under which nothing runs", () => {
    expect(isPagePath("/api/mcp")).toBe(false);
    expect(isPagePath("/uploads/a.svg")).toBe(false);
    expect(isPagePath("/openapi.json")).toBe(false);
    expect(isPagePath("/.well-known/did.json")).toBe(false);
    expect(isPagePath("/")).toBe(true);
    expect(isPagePath("/apis")).toBe(true);
    expect(isPagePath("/checkout/cs_1")).toBe(true);
    const d = directives(securityHeaders("/uploads/a.svg", https)["Content-Security-Policy"]);
    expect(d.get("default-src")).toBe("'none'");
    expect(d.has("script-src")).toBe(false);
    expect(NON_PAGE_CONTENT_SECURITY_POLICY).not.toContain("nonce");
  });

  it("a page cannot be given a policy without a nonce", () => {
    expect(() => securityHeaders("/", https)).toThrow(/nonce/);
  });

  it("pages whose URL is a capability send no Referer to other sites, and keep their own Origin", () => {
    expect(securityHeaders("/checkout/cs_1", https, "n")["Referrer-Policy"]).toBe("same-origin");
    expect(securityHeaders("/auth/verify", https, "n")["Referrer-Policy"]).toBe("same-origin");
    expect(securityHeaders("/", https, "n")["Referrer-Policy"]).toBe("strict-origin-when-cross-origin");
  });

  it("nonces are 128 random bits, fresh each time, in the characters a CSP nonce allows", () => {
    const seen = new Set(Array.from({ length: 1000 }, () => newNonce()));
    expect(seen.size).toBe(1000);
    for (const n of seen) expect(n).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  });
});
