import { describe, expect, it } from "vitest";
import { entitledReleases, updatesUntil } from "@/lib/releases/entitlement";

const DAY = 86_400_000;
const T0 = new Date("2026-01-01T00:00:00Z");
const at = (days: number) => new Date(T0.getTime() + days * DAY);

interface R {
  version: string;
  major: number;
  publishedAt: Date | null;
  status: string;
}
const rel = (version: string, publishedDay: number | null, status = "published"): R => ({
  version,
  major: Number(version.split(".")[0]),
  publishedAt: publishedDay === null ? null : at(publishedDay),
  status,
});
const versions = (rs: R[]) => rs.map((r) => r.version);

// 1.0.0 on day 0, 1.1.0 day 20, 2.0.0 day 100, 2.1.0 day 200, 3.0.0 draft, 1.2.0 yanked (day 30).
const RELEASES: R[] = [
  rel("3.0.0", null, "draft"),
  rel("2.1.0", 200),
  rel("2.0.0", 100),
  rel("1.2.0", 30, "yanked"),
  rel("1.1.0", 20),
  rel("1.0.0", 0),
];

describe("updatesUntil", () => {
  it("is issuedAt + updateDays for the days policy", () => {
    expect(updatesUntil({ updatePolicy: "days", updateDays: 30 }, { issuedAt: at(5) })?.toISOString()).toBe(at(35).toISOString());
  });
  it("is null for every other policy, and for days without a number", () => {
    expect(updatesUntil({ updatePolicy: "all", updateDays: 30 }, { issuedAt: T0 })).toBeNull();
    expect(updatesUntil({ updatePolicy: "major", updateDays: null }, { issuedAt: T0 })).toBeNull();
    expect(updatesUntil({ updatePolicy: "days", updateDays: null }, { issuedAt: T0 })).toBeNull();
  });
});

describe("entitledReleases", () => {
  it("all: every published release, never drafts or yanked ones, in the order given", () => {
    expect(versions(entitledReleases({ updatePolicy: "all", updateDays: null }, { issuedAt: at(10) }, RELEASES))).toEqual([
      "2.1.0",
      "2.0.0",
      "1.1.0",
      "1.0.0",
    ]);
  });

  it("an unknown policy reads as all", () => {
    expect(versions(entitledReleases({ updatePolicy: "whatever", updateDays: null }, { issuedAt: at(10) }, RELEASES))).toHaveLength(4);
  });

  it("days: releases published on or before issuedAt + days, the boundary included", () => {
    const policy = { updatePolicy: "days", updateDays: 10 };
    expect(versions(entitledReleases(policy, { issuedAt: at(10) }, RELEASES))).toEqual(["1.1.0", "1.0.0"]); // until day 20 exactly
    expect(versions(entitledReleases(policy, { issuedAt: at(9) }, RELEASES))).toEqual(["1.0.0"]); // until day 19
    expect(versions(entitledReleases(policy, { issuedAt: at(95) }, RELEASES))).toEqual(["2.0.0", "1.1.0", "1.0.0"]);
    expect(versions(entitledReleases(policy, { issuedAt: at(500) }, RELEASES))).toEqual(["2.1.0", "2.0.0", "1.1.0", "1.0.0"]);
  });

  it("days: the yanked release inside the window stays out", () => {
    const got = versions(entitledReleases({ updatePolicy: "days", updateDays: 60 }, { issuedAt: at(0) }, RELEASES));
    expect(got).toEqual(["1.1.0", "1.0.0"]);
  });

  it("days with no number of days limits nothing", () => {
    expect(entitledReleases({ updatePolicy: "days", updateDays: null }, { issuedAt: at(0) }, RELEASES)).toHaveLength(4);
  });

  it("major: the majors out when the license was issued, and their later minor releases", () => {
    const policy = { updatePolicy: "major", updateDays: null };
    // Issued on day 50: only 1.x was out; 1.x releases (published any time) are entitled, 2.x is not.
    expect(versions(entitledReleases(policy, { issuedAt: at(50) }, RELEASES))).toEqual(["1.1.0", "1.0.0"]);
    // Issued on day 100 exactly: 2.0.0 was out (boundary included): 2.1.0 later is entitled too.
    expect(versions(entitledReleases(policy, { issuedAt: at(100) }, RELEASES))).toEqual(["2.1.0", "2.0.0", "1.1.0", "1.0.0"]);
  });

  it("major: a license issued before any release gets the lowest published major", () => {
    const policy = { updatePolicy: "major", updateDays: null };
    const later = [rel("2.0.0", 300), rel("3.0.0", 400), rel("2.5.0", 500)];
    expect(versions(entitledReleases(policy, { issuedAt: at(-10) }, later))).toEqual(["2.0.0", "2.5.0"]);
  });

  it("major: a yanked or draft release never raises the major", () => {
    const policy = { updatePolicy: "major", updateDays: null };
    const rs = [rel("2.0.0", 5, "yanked"), rel("1.0.0", 0), rel("2.1.0", 50)];
    expect(versions(entitledReleases(policy, { issuedAt: at(10) }, rs))).toEqual(["1.0.0"]);
  });

  it("nothing published: nothing entitled, whatever the policy", () => {
    for (const updatePolicy of ["all", "days", "major"]) {
      expect(entitledReleases({ updatePolicy, updateDays: 30 }, { issuedAt: T0 }, [rel("1.0.0", null, "draft")])).toEqual([]);
      expect(entitledReleases({ updatePolicy, updateDays: 30 }, { issuedAt: T0 }, [])).toEqual([]);
    }
  });

  it("a published row without a date is not entitled (never published really)", () => {
    expect(entitledReleases({ updatePolicy: "all", updateDays: null }, { issuedAt: T0 }, [rel("1.0.0", null, "published")])).toEqual([]);
  });
});

describe("a license's own end of updates (an updates plan, a subscription's perpetual fallback)", () => {
  it("keeps the releases published until it, under every policy, and is the earlier of it and the policy's end", () => {
    const own = { issuedAt: T0, updatesUntil: at(150) };
    expect(versions(entitledReleases({ updatePolicy: "all", updateDays: null }, own, RELEASES))).toEqual(["2.0.0", "1.1.0", "1.0.0"]);
    expect(versions(entitledReleases({ updatePolicy: "days", updateDays: 365 }, own, RELEASES))).toEqual(["2.0.0", "1.1.0", "1.0.0"]);
    expect(versions(entitledReleases({ updatePolicy: "days", updateDays: 25 }, own, RELEASES))).toEqual(["1.1.0", "1.0.0"]);
    expect(updatesUntil({ updatePolicy: "all", updateDays: null }, own)?.toISOString()).toBe(at(150).toISOString());
    expect(updatesUntil({ updatePolicy: "days", updateDays: 25 }, own)?.toISOString()).toBe(at(25).toISOString());
    expect(updatesUntil({ updatePolicy: "days", updateDays: 365 }, own)?.toISOString()).toBe(at(150).toISOString());
    // Null: the policy alone.
    expect(versions(entitledReleases({ updatePolicy: "all", updateDays: null }, { issuedAt: T0, updatesUntil: null }, RELEASES))).toEqual([
      "2.1.0",
      "2.0.0",
      "1.1.0",
      "1.0.0",
    ]);
  });
});
