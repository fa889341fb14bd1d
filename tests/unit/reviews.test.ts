import { describe, expect, it } from "vitest";
import { summarise } from "@/lib/reviews/aggregate";
import { reviewRefusal, type ReviewerLicense } from "@/lib/reviews/eligibility";
import { roundAverage } from "@/lib/reviews/rating";
import { replyBodySchema, reviewContentSchema } from "@/lib/reviews/schemas";

const bought: ReviewerLicense = { isActive: true, trial: false, source: "purchase", revocation: null, expiresAt: null };

describe("who may review", () => {
  it("a bought license in force may; every other kind is refused with its own code", () => {
    expect(reviewRefusal(bought)).toBeNull();
    expect(reviewRefusal({ ...bought, expiresAt: new Date(Date.now() + 60_000) })).toBeNull();
    const code = (l: Partial<ReviewerLicense>) => reviewRefusal({ ...bought, ...l })?.code;
    expect(code({ trial: true, source: "trial" })).toBe("trial_license");
    expect(code({ source: "complimentary" })).toBe("not_purchased");
    expect(code({ isActive: false, revocation: "refunded" })).toBe("license_refunded");
    expect(code({ isActive: false, revocation: "disputed" })).toBe("license_disputed");
    expect(code({ isActive: false, revocation: "dispute_lost" })).toBe("license_disputed");
    expect(code({ isActive: false, revocation: "seller" })).toBe("license_revoked");
    expect(code({ isActive: false, revocation: null })).toBe("license_revoked");
    expect(code({ expiresAt: new Date(Date.now() - 1) })).toBe("license_expired");
    expect(reviewRefusal({ ...bought, source: "complimentary" })?.status).toBe(403);
  });
});

describe("rating figures", () => {
  it("average and count come from the distribution; an unrated product averages 0", () => {
    expect(summarise({ "5": 0, "4": 0, "3": 0, "2": 0, "1": 0 })).toEqual({ average: 0, count: 0 });
    expect(summarise({ "5": 2, "4": 1, "3": 0, "2": 0, "1": 1 })).toEqual({ average: 15 / 4, count: 4 });
    expect(roundAverage(15 / 4)).toBe(3.8);
    expect(roundAverage(4.25)).toBe(4.3);
    expect(roundAverage(14 / 3)).toBe(4.7);
  });
});

describe("review text", () => {
  it("keeps line breaks in the text (as \\n), trims, collapses the name to one line, defaults title and text to empty", () => {
    expect(reviewContentSchema.parse({ rating: 5, body: "  One.\r\n\r\nTwo.\r " })).toEqual({ rating: 5, title: "", body: "One.\n\nTwo." });
    expect(reviewContentSchema.parse({ rating: 1, author_name: "  Ana   María " }).author_name).toBe("Ana María");
  });

  it("refuses what is not text, and limits", () => {
    for (const bad of [
      { rating: 3, title: "tab\there" },
      { rating: 3, body: "nul\u0000" },
      { rating: 3, author_name: "line\nbreak" },
      { rating: 3, body: "x".repeat(4001) },
      { rating: 3, body: `${"x".repeat(3999)}\r\n\r\n` + "y".repeat(2) },
      { rating: "5" },
    ]) {
      expect(reviewContentSchema.safeParse(bad).success, JSON.stringify(bad).slice(0, 60)).toBe(false);
    }
    // Carriage returns do not count against the limit: 4,000 characters once line breaks are \n.
    expect(reviewContentSchema.safeParse({ rating: 3, body: `${"x".repeat(3998)}\r\n` + "y" }).success).toBe(true);
    expect(replyBodySchema.safeParse({ reply: "   " }).success).toBe(false);
    expect(replyBodySchema.safeParse({ reply: "x".repeat(2001) }).success).toBe(false);
  });
});
