import { describe, expect, it } from "vitest";
import { renderNotes } from "@/lib/releases/notes";
import { compareReleases } from "@/lib/releases/read";
import { parseVersion } from "@/lib/releases/version";

describe("release notes rendering", () => {
  it("escapes raw HTML instead of rendering it", () => {
    const html = renderNotes('<script>alert(1)</script>\n\n<img src=x onerror="alert(1)">');
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain("&lt;script&gt;");
  });

  it("keeps http(s) and mailto links, each rel=nofollow ugc, and drops every other scheme", () => {
    expect(renderNotes("[a](https://example.com/x)")).toBe('<p><a href="https://example.com/x" rel="nofollow ugc">a</a></p>\n');
    expect(renderNotes("[m](mailto:dev@example.com)")).toContain('<a href="mailto:dev@example.com" rel="nofollow ugc">');
    for (const url of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,<b>x</b>", "vbscript:x", "file:///etc/passwd", "ftp://x/y"]) {
      expect(renderNotes(`[x](${url})`), url).not.toContain("<a ");
    }
  });

  it("renders images as links, so no remote image loads", () => {
    const html = renderNotes("![screenshot](https://example.com/s.png)");
    expect(html).not.toContain("<img");
    expect(html).toContain('<a href="https://example.com/s.png" rel="nofollow ugc">screenshot</a>');
    expect(renderNotes("![x](data:image/png;base64,AAAA)")).not.toMatch(/<img|<a /);
  });

  it("leaves bare URLs as text and does no typographic rewriting", () => {
    expect(renderNotes('see https://example.com -- "quoted"')).toBe("<p>see https://example.com -- &quot;quoted&quot;</p>\n");
  });
});

describe("versions", () => {
  it("parses strict semver into its parts", () => {
    expect(parseVersion("2.10.3-beta.1")).toEqual({ version: "2.10.3-beta.1", major: 2, minor: 10, patch: 3, prerelease: "beta.1" });
    // A version is taken as sent: spaces around it are refused, not trimmed (issue 34).
    expect(() => parseVersion(" 1.0.0 ")).toThrow(/spaces around it/);
    expect(() => parseVersion("1.0.0 ")).toThrow(/spaces around it/);
  });

  it("orders by semver precedence, not by text", () => {
    const sorted = ["1.0.0", "1.10.0", "1.2.0", "1.2.0-beta.2", "1.2.0-beta.10", "0.9.9"]
      .map((version) => ({ version }))
      .sort((a, b) => -compareReleases(a, b));
    expect(sorted.map((r) => r.version)).toEqual(["1.10.0", "1.2.0", "1.2.0-beta.10", "1.2.0-beta.2", "1.0.0", "0.9.9"]);
  });
});
