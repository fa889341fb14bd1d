import { describe, expect, it } from "vitest";
import { formatBytes } from "@/lib/format";
import { storedFilename } from "@/components/dashboard/artifact-upload";
import { releaseFormats, artifactPlatformLabel, formatLabel } from "@/components/store/release-labels";
import { checkArtifactName } from "@/lib/releases/ingest";
import { demoLinks, updatePolicyOf } from "@/lib/marketplace/serialize";

describe("formatBytes: one size formatter for every page", () => {
  it("uses decimal units with one decimal below 100", () => {
    expect(formatBytes(0)).toBe("0 bytes");
    expect(formatBytes(1)).toBe("1 byte");
    expect(formatBytes(999)).toBe("999 bytes");
    expect(formatBytes(1000)).toBe("1.0 KB");
    expect(formatBytes(2048)).toBe("2.0 KB");
    expect(formatBytes(3500)).toBe("3.5 KB");
    expect(formatBytes(123_456)).toBe("123 KB");
    expect(formatBytes(999_960)).toBe("1.0 MB");
    expect(formatBytes(23_500_000)).toBe("23.5 MB");
    expect(formatBytes(1_200_000_000)).toBe("1.2 GB");
    expect(formatBytes(-1)).toBe("—");
    expect(formatBytes(Number.NaN)).toBe("—");
  });
});

describe("the upload's file name", () => {
  it("is one the server takes for any name a browser gives", () => {
    const cases: Array<[string, string]> = [
      ["Tape Warmth 1.0.zip", "Tape Warmth 1.0.zip"],
      ["Tape Warmth–1.0 (mac).zip", "Tape Warmth-1.0 (mac).zip"],
      ["../../etc/passwd.zip", "-.-etc-passwd.zip"],
      [".hidden.zip", "hidden.zip"],
      ["a\u0000b.zip", "a-b.zip"],
      // Shortened to 120 characters, keeping the extension that decides the file type.
      [`${"x".repeat(200)}.tar.gz`, `${"x".repeat(113)}.tar.gz`],
      [`${"y".repeat(200)}.zip`, `${"y".repeat(116)}.zip`],
    ];
    for (const [given, stored] of cases) {
      const name = storedFilename(given);
      expect(name, given).toBe(stored);
      // The server's own check takes it.
      expect(() => checkArtifactName("linux-x64", "", name, { category: "desktop-apps" }), given).not.toThrow();
    }
  });
});

describe("release labels", () => {
  it("name platforms and formats, and list a release's formats once in a fixed order", () => {
    expect(artifactPlatformLabel("macos-universal")).toBe("macOS (Universal)");
    expect(artifactPlatformLabel("plan9-x64")).toBe("plan9-x64");
    expect(formatLabel("vst3")).toBe("VST3");
    expect(formatLabel(null)).toBe("");
    expect(releaseFormats([{ format: "au" }, { format: null }, { format: "vst3" }, { format: "au" }, { format: "clap" }])).toEqual([
      "vst3",
      "au",
      "clap",
    ]);
  });
});

describe("stored demo links and update policies as the public reads them", () => {
  it("keeps only well-formed https links of a known kind", () => {
    const good = { kind: "video", url: "https://video.example.com/1", title: "Tour" };
    expect(
      demoLinks([
        good,
        { kind: "video", url: "javascript:alert(1)", title: "x" },
        { kind: "video", url: "http://video.example.com/1", title: "x" },
        { kind: "image", url: "https://example.com/a.png", title: "x" },
        { kind: "audio", url: "https://audio.example.com/a.mp3" },
        null,
        "https://example.com",
      ]),
    ).toEqual([good]);
    expect(demoLinks(null)).toEqual([]);
    expect(demoLinks({ kind: "video" })).toEqual([]);
  });

  it("reads an unknown policy as every release", () => {
    expect(updatePolicyOf("days")).toBe("days");
    expect(updatePolicyOf("major")).toBe("major");
    expect(updatePolicyOf("forever")).toBe("all");
  });
});
