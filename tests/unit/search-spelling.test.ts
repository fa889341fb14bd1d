import { describe, expect, it } from "vitest";
import { editDistance, spellingVariants, typoAllowance } from "@/lib/marketplace/spelling";
import { searchTerms } from "@/lib/marketplace/search-text";

describe("spelling variants", () => {
  it.each([
    ["color", "colour"],
    ["colours", "colors"],
    ["colourful", "colorful"],
    ["flavor", "flavour"],
    ["behaviour", "behavior"],
    ["gray", "grey"],
    ["greyscale", "grayscale"],
    ["analyze", "analyse"],
    ["analysers", "analyzers"],
    ["center", "centre"],
    ["centres", "centers"],
    ["centred", "centered"],
    ["meter", "metre"],
    ["license", "licence"],
    ["licenced", "licensed"],
    ["organize", "organise"],
    ["organisation", "organization"],
    ["realised", "realized"],
    ["visualizer", "visualiser"],
    ["synthesizers", "synthesisers"],
    ["catalogue", "catalog"],
    ["analog", "analogue"],
    ["modelling", "modeling"],
    ["labeled", "labelled"],
    ["artefact", "artifact"],
    ["programme", "program"],
  ])("%s is also spelled %s, and the other way round", (a, b) => {
    expect(spellingVariants(a)).toContain(b);
    expect(spellingVariants(b)).toContain(a);
    expect(spellingVariants(a)[0]).toBe(a);
  });

  it("combines rules within one word", () => {
    expect(spellingVariants("colourised")).toEqual(expect.arrayContaining(["colourised", "colorised", "colourized", "colorized"]));
  });

  it.each(["four", "hour", "tour", "your", "rise", "size", "wise", "prize", "seize", "noise", "reverb", "mix", "order", "letter", "fence"])(
    "leaves %s alone",
    (word) => {
      expect(spellingVariants(word)).toEqual([word]);
    },
  );
});

describe("typo distance", () => {
  it("counts substitutions, insertions, deletions and neighbour swaps as one edit each", () => {
    expect(editDistance("reverb", "reverb")).toBe(0);
    expect(editDistance("reverb", "rever")).toBe(1);
    expect(editDistance("reverb", "reverbb")).toBe(1);
    expect(editDistance("reverb", "revarb")).toBe(1);
    expect(editDistance("reverb", "revreb")).toBe(1);
    expect(editDistance("reverb", "erverb")).toBe(1);
    expect(editDistance("compressor", "comprseor")).toBe(2);
    expect(editDistance("café", "cafe")).toBe(1);
  });

  it("stops counting past the bound", () => {
    expect(editDistance("reverb", "saturation", 1)).toBe(2);
    expect(editDistance("abcdefgh", "hgfedcba", 2)).toBe(3);
  });

  it("allows no typo below 4 letters, one from 4 and two from 8", () => {
    expect([typoAllowance("mix"), typoAllowance("tape"), typoAllowance("reverb"), typoAllowance("saturate"), typoAllowance("compressor")]).toEqual([
      0, 1, 1, 2, 2,
    ]);
  });
});

describe("search words", () => {
  it("splits on anything but letters and digits, lower-cased and bounded", () => {
    expect(searchTerms("  Tape   SATURATION ")).toEqual(["tape", "saturation"]);
    expect(searchTerms('com.example.reverb "NEAR" (x) -y:z ^w*')).toEqual(["com", "example", "reverb", "near", "x", "y", "z", "w"]);
    expect(searchTerms("%_\\*")).toEqual([]);
    expect(searchTerms("Café")).toEqual(["café"]);
    expect(searchTerms(undefined)).toEqual([]);
    expect(searchTerms("a b c d e f g h i j")).toHaveLength(8);
    expect(searchTerms("x".repeat(100))[0]).toHaveLength(64);
  });
});
