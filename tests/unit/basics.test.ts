import { describe, expect, it } from "vitest";
import { engineOf, sqlitePath } from "@/lib/db/engine";
import { buildSearchText, searchTerms } from "@/lib/marketplace/search-text";
import { formatPrice, platformFeeCents, PRICING } from "@/lib/pricing";
import { seatSummary } from "@/lib/marketplace/serialize";
import { discoveryPayload } from "@/lib/agents/documents";
import { llmsFullTxt, llmsTxt } from "@/lib/agents/text-documents";
import { getTerms } from "@/lib/terms/get-terms";

describe("pricing", () => {
  // The interface specification's table "Pricing constants (from the discovery and terms documents)", copied by hand.
  const SPEC = {
    model: "percentage",
    transaction_fee_percent: 5,
    monthly_fee: 0,
    setup_fee: 0,
    sdk: "free, MIT license",
    self_hosting: "free",
    currency: "usd",
  };

  it("publishes the specification's constants in the discovery, terms and text documents", () => {
    expect(PRICING).toEqual(SPEC);
    expect(discoveryPayload().pricing).toEqual(SPEC);
    expect(getTerms().pricing).toMatchObject({
      model: SPEC.model,
      transaction_fee_percent: SPEC.transaction_fee_percent,
      monthly_fee_cents: SPEC.monthly_fee * 100,
      setup_fee_cents: SPEC.setup_fee * 100,
      sdk_cost: SPEC.sdk,
      self_host_cost: SPEC.self_hosting,
      currency: SPEC.currency,
      fee_example: { price_cents: 4900, platform_fee_cents: 245, seller_receives_cents: 4655 },
    });
    const full = llmsFullTxt();
    for (const [k, v] of Object.entries(SPEC)) expect(full).toContain(`- ${k}: ${v}`);
    expect(llmsTxt()).toContain(`${SPEC.transaction_fee_percent}% per sale, no monthly fee`);
  });
  it("takes 5 % rounded to the cent", () => {
    expect(platformFeeCents(4900)).toBe(245);
    expect(platformFeeCents(799)).toBe(40);
    expect(platformFeeCents(0)).toBe(0);
  });
  it("formats prices with their ISO code", () => {
    expect(formatPrice(4900)).toBe("$49.00 USD");
    expect(formatPrice(799, "usd")).toBe("$7.99 USD");
  });
});

describe("database URLs", () => {
  it("pick the engine by scheme", () => {
    expect(engineOf("file:./data/x.db")).toBe("sqlite");
    expect(engineOf("postgresql://u@h/db")).toBe("postgresql");
    expect(engineOf("postgres://u@h/db")).toBe("postgresql");
    expect(() => engineOf("mysql://u@h/db")).toThrow(/DATABASE_URL/);
  });
  it("give SQLite file paths", () => {
    expect(sqlitePath("file:./data/x.db")).toBe("./data/x.db");
    expect(sqlitePath("file:/tmp/x.db?mode=rwc")).toBe("/tmp/x.db");
  });
});

describe("search", () => {
  it("lower-cases and splits terms, bounded", () => {
    expect(searchTerms("  Tape   SATURATION ")).toEqual(["tape", "saturation"]);
    expect(searchTerms(undefined)).toEqual([]);
    expect(searchTerms("a b c d e f g h i j")).toHaveLength(8);
  });
  it("indexes names, tags and the developer", () => {
    const text = buildSearchText({
      name: "Tape Warmth",
      tagline: "t",
      description: "d",
      developerName: "Tidewater Audio",
      category: "audio-plugins",
      pluginId: "com.x.y",
      compatibility: ["VST3"],
      inputs: ["audio"],
      outputs: ["audio"],
      platforms: ["macos"],
    });
    expect(text).toContain("tape warmth");
    expect(text).toContain("tidewater audio");
    expect(text).toContain("vst3");
  });
});

describe("seat summaries", () => {
  it("say in plain words what a license allows", () => {
    expect(seatSummary(1, "per-machine")).toContain("1 machine;");
    expect(seatSummary(3, "floating")).toContain("up to 3 machines in use at the same time");
  });
});
