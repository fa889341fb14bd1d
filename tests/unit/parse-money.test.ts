import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstLanguageTag, parseMoney } from "@/lib/money/parse-money";
import { formatPrice, minorDigits, minorToDecimal } from "@/lib/pricing";

const CURRENCIES = ["usd", "eur", "gbp", "jpy", "kwd"] as const;
const DECIMAL_CURRENCIES = ["usd", "eur", "gbp", "kwd", "bhd"] as const;
const LOCALES = ["en-US", "de-DE", "fr-FR", "de-CH", "en-IN", "es-ES"] as const;
/** One more than the largest amount accepted, in minor units: a billion major units. */
const limit = (currency: string) => 10n ** BigInt(9 + minorDigits(currency));

const currency = fc.constantFrom(...CURRENCIES);
const locale = fc.constantFrom(...LOCALES);
/** Any amount the parser accepts, in minor units of `c`; small ones often, where separators are few. */
const minorOf = (c: string) =>
  fc.oneof(fc.bigInt({ min: 0n, max: 10n ** BigInt(minorDigits(c) + 4) }), fc.bigInt({ min: 0n, max: limit(c) - 1n })).map(Number);
const ok = (minor: number, c: string) => ({ ok: true, minor, understood: formatPrice(minor, c) });

/** How Intl writes an amount in a locale, all the currency's decimals shown; exact (formatted from a decimal string). */
function intlFormat(minor: number, c: string, loc: string, display: "symbol" | "narrowSymbol" | "code" | "none") {
  const digits = minorDigits(c);
  const style = display === "none" ? { style: "decimal" as const } : { style: "currency" as const, currency: c, currencyDisplay: display };
  return new Intl.NumberFormat(loc, { ...style, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    minorToDecimal(minor, c) as `${number}`,
  );
}

/** The shape no one can read for sure: 1 to 3 digits (no leading 0), one "." or ",", three digits. */
function isAmbiguousShape(minor: number, c: string) {
  return minorDigits(c) === 3 && minor >= 1000 && minor < 1_000_000;
}

describe("parseMoney: what Intl writes reads back to the same minor units", () => {
  it("in en-US, de-DE, fr-FR, de-CH, en-IN and es-ES, with a sign, a code, a narrow sign or none", () => {
    fc.assert(
      fc.property(
        currency.chain((c) =>
          fc.tuple(fc.constant(c), minorOf(c), locale, fc.constantFrom("symbol", "narrowSymbol", "code", "none") as fc.Arbitrary<"symbol">),
        ),
        ([c, minor, loc, display]) => {
          const text = intlFormat(minor, c, loc, display);
          const parsed = parseMoney(text, c, { locale: loc });
          // A 3-decimal amount under 1,000 is written "1.234" or "1,234": refused, as every such text is.
          if (isAmbiguousShape(minor, c)) expect(parsed, text).toMatchObject({ ok: false, code: "ambiguous" });
          else expect(parsed, text).toEqual(ok(minor, c));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("whatever the locale passed with it", () => {
    fc.assert(
      fc.property(
        currency.chain((c) => fc.tuple(fc.constant(c), minorOf(c), locale, fc.constantFrom(...LOCALES, "ar-EG", "not a tag", undefined))),
        ([c, minor, written, given]) => {
          fc.pre(!isAmbiguousShape(minor, c));
          expect(parseMoney(intlFormat(minor, c, written, "symbol"), c, { locale: given })).toEqual(ok(minor, c));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

// Text that looks like money often: digits, every separator, signs and codes, minus signs, and noise.
const moneyish = fc.string({
  unit: fc.constantFrom(..."0123456789012345678901234567890123456789.,., '’\u00a0\u202f-−€$£¥".split(""), "EUR", "usd", "JP¥", "x", "e", "1e5"),
  maxLength: 24,
});

describe("parseMoney: whatever is typed", () => {
  it("never throws; an accepted amount is a safe, non-negative integer under the bound, and `understood` is its formatPrice", () => {
    fc.assert(
      fc.property(moneyish, currency, fc.option(locale, { nil: undefined }), (text, c, loc) => {
        const parsed = parseMoney(text, c, { locale: loc });
        if (!parsed.ok) {
          expect(parsed.message.length).toBeGreaterThan(0);
          return;
        }
        expect(Number.isSafeInteger(parsed.minor)).toBe(true);
        expect(parsed.minor).toBeGreaterThanOrEqual(0);
        expect(BigInt(parsed.minor)).toBeLessThan(limit(c));
        expect(parsed.understood).toBe(formatPrice(parsed.minor, c));
      }),
      { numRuns: 5000 },
    );
  });

  it("the locale never changes whether text is accepted, nor the amount, nor the reason for a refusal", () => {
    fc.assert(
      fc.property(moneyish, currency, locale, (text, c, loc) => {
        const plain = parseMoney(text, c);
        const localised = parseMoney(text, c, { locale: loc });
        if (plain.ok) expect(localised).toEqual(plain);
        else expect(localised).toMatchObject({ ok: false, code: plain.code });
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses any amount with more decimals than its currency has", () => {
    const grouped = fc.tuple(fc.integer({ min: 0, max: 999_999_999 }), fc.constantFrom("", ",", ".", " ", "'", "\u202f"));
    fc.assert(
      fc.property(
        currency,
        grouped,
        fc.constantFrom(".", ","),
        fc.integer({ min: 1, max: 4 }),
        fc.nat(),
        locale,
        (c, [whole, group], point, extra, seed, loc) => {
          fc.pre(group !== point);
          const fraction = String(seed)
            .padStart(minorDigits(c) + extra, "7")
            .slice(-(minorDigits(c) + extra));
          const integer = group === "" ? String(whole) : String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, group);
          const text = `${integer}${point}${fraction}`;
          const parsed = parseMoney(text, c, { locale: loc });
          // In JPY "1.234" is a thousand and more (a group), which is no decimal at all.
          const aGroup = minorDigits(c) === 0 && fraction.length === 3 && whole > 0 && whole < 1000;
          if (aGroup) expect(parsed, text).toEqual(ok(Number(`${whole}${fraction}`), c));
          else if (parsed.ok) expect.fail(`${text} ${c} was accepted as ${parsed.understood}`);
          else expect(["too_many_decimals", "ambiguous"], text).toContain(parsed.code);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("refuses the ambiguous shape in every currency with decimals, naming both readings; reads it as a group without", () => {
    const signs: Record<string, [string, string]> = {
      usd: ["$", "USD"],
      eur: ["€", "EUR"],
      gbp: ["£", "GBP"],
      kwd: ["KWD ", "KWD"],
      bhd: ["BHD ", "BHD"],
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 999 }),
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom(".", ","),
        fc.constantFrom(...DECIMAL_CURRENCIES),
        fc.constantFrom("none", "before", "after"),
        fc.option(locale, { nil: undefined }),
        (whole, part, point, c, sign, loc) => {
          const [symbol, code] = signs[c]!;
          const number = `${whole}${point}${String(part).padStart(3, "0")}`;
          const text = sign === "before" ? `${symbol}${number}` : sign === "after" ? `${number} ${code}` : number;
          const parsed = parseMoney(text, c, { locale: loc });
          expect(parsed, text).toMatchObject({ ok: false, code: "ambiguous" });
          if (!parsed.ok)
            expect(parsed.message).toContain(formatPrice(Number(`${whole}${String(part).padStart(3, "0")}${"0".repeat(minorDigits(c))}`), c));
          expect(parseMoney(number, "jpy", { locale: loc })).toEqual(ok(whole * 1000 + part, "jpy"));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("parseMoney: examples", () => {
  const accepted: Array<[string, string, number]> = [
    ["19.90", "eur", 1990],
    ["19,90", "eur", 1990],
    ["19,9", "usd", 1990],
    ["1,5", "eur", 150],
    ["1 234,50", "eur", 123450],
    ["1\u00a0234,50", "eur", 123450],
    ["1\u202f234,50", "eur", 123450],
    ["1'234.50", "eur", 123450],
    ["1’234.50", "eur", 123450],
    ["1,234.50", "eur", 123450],
    ["1.234,50", "eur", 123450],
    ["1.234.567", "eur", 123456700],
    ["1,234,567", "gbp", 123456700],
    ["12,34,567.89", "usd", 123456789],
    ["€19,90", "eur", 1990],
    ["€ 19,90", "eur", 1990],
    ["19.90 EUR", "eur", 1990],
    ["19,90 €", "eur", 1990],
    ["eur 19.90", "eur", 1990],
    ["$5", "usd", 500],
    ["US$5", "usd", 500],
    ["£12", "gbp", 1200],
    ["1,234", "jpy", 1234],
    ["1.234", "jpy", 1234],
    ["¥1,234", "jpy", 1234],
    ["1234", "eur", 123400],
    ["1234.567", "kwd", 1234567],
    ["0,234", "kwd", 234],
    ["01.234", "kwd", 1234],
    [".5", "eur", 50],
    ["0", "eur", 0],
    ["  7  ", "usd", 700],
    ["999999999.99", "eur", 99_999_999_999],
    ["999,999,999.999", "kwd", 999_999_999_999],
  ];
  it.each(accepted)("%s in %s is %d minor units", (text, c, minor) => {
    expect(parseMoney(text, c)).toEqual(ok(minor, c));
  });

  const refused: Array<[string, string, string]> = [
    ["", "eur", "empty"],
    ["   ", "eur", "empty"],
    ["abc", "eur", "not_a_number"],
    ["1,23,4", "eur", "not_a_number"],
    ["12,34.56,7", "eur", "not_a_number"],
    ["1.234 567,89", "eur", "not_a_number"],
    ["1,5 000", "eur", "not_a_number"],
    ["1..5", "eur", "not_a_number"],
    ["5.", "eur", "not_a_number"],
    ["1e5", "eur", "not_a_number"],
    ["$5", "eur", "not_a_number"],
    ["5 USD", "eur", "not_a_number"],
    ["€5", "usd", "not_a_number"],
    ["5 €", "gbp", "not_a_number"],
    ["1,234", "eur", "ambiguous"],
    ["1.234", "usd", "ambiguous"],
    ["€999.000", "eur", "ambiguous"],
    ["1.234", "kwd", "ambiguous"],
    ["19.999", "eur", "ambiguous"],
    ["19.9999", "eur", "too_many_decimals"],
    ["1 234,567", "eur", "too_many_decimals"],
    ["1234,567", "eur", "too_many_decimals"],
    ["0.001", "usd", "too_many_decimals"],
    ["1.5", "jpy", "too_many_decimals"],
    ["1,2345", "kwd", "too_many_decimals"],
    ["-5", "eur", "negative"],
    ["−€5", "eur", "negative"],
    ["€-5", "eur", "negative"],
    ["5 EUR-", "eur", "negative"],
    ["1000000000", "eur", "too_large"],
    ["1,000,000,000.00", "usd", "too_large"],
    ["99999999999999999999", "jpy", "too_large"],
    ["1".repeat(200), "eur", "not_a_number"],
  ];
  it.each(refused)("%j in %s is refused: %s", (text, c, code) => {
    expect(parseMoney(text, c)).toMatchObject({ ok: false, code });
  });

  it("says what it could mean and how to write it, in a few words", () => {
    expect(parseMoney("1,234", "eur")).toEqual({
      ok: false,
      code: "ambiguous",
      message: "Did you mean €1,234.00 EUR or €1.234 EUR? Write 1234 or 1234.00; EUR has only 2 decimals.",
    });
    // The one thing the locale does: the rewrite is suggested with its decimal separator.
    expect(parseMoney("1,234", "eur", { locale: "de-DE" })).toMatchObject({ message: expect.stringContaining("Write 1234 or 1234,00;") });
    // formatPrice writes KWD with a no-break space after the code; the second reading is written the same way.
    expect(parseMoney("1.234", "kwd")).toMatchObject({
      message: `Did you mean ${formatPrice(1_234_000, "kwd")} or ${formatPrice(1234, "kwd")}? Write 1234 for the first, 01.234 for the second.`,
    });
    expect(parseMoney("19.999", "eur")).toMatchObject({ message: expect.stringContaining("€19,999.00 EUR or €19.999 EUR") });
    expect(parseMoney("1.5", "jpy")).toMatchObject({ message: "JPY has no decimals: enter a whole amount, such as 1234." });
    expect(parseMoney("1.555", "kwd", {}).ok).toBe(false);
    expect(parseMoney("1,2345", "kwd")).toMatchObject({ message: "KWD has 3 decimals at most, such as 19.900." });
    expect(parseMoney("1,999", "usd")).toMatchObject({ code: "ambiguous" });
    expect(parseMoney("0.001", "usd")).toMatchObject({ message: "USD has 2 decimals at most, such as 19.90." });
    expect(parseMoney("$5", "eur")).toMatchObject({ message: "The amount is in EUR, not $: enter it in EUR." });
    expect(parseMoney("-5", "eur")).toMatchObject({ message: "Enter the amount without a minus sign." });
    expect(parseMoney("1000000000", "eur")).toMatchObject({ message: "Enter an amount under €1,000,000,000.00 EUR." });
    expect(parseMoney("abc", "eur")).toMatchObject({ message: "Enter an amount such as 19.90 or 19,90." });
    expect(parseMoney("", "usd")).toMatchObject({ message: "Enter an amount." });
  });

  it("refuses a currency that is not an ISO code, as a programming error", () => {
    expect(() => parseMoney("5", "")).toThrow(TypeError);
    expect(() => parseMoney("5", "euro")).toThrow(TypeError);
  });
});

describe("firstLanguageTag", () => {
  it("takes the first tag of an Accept-Language header, canonical; nothing when there is none or it is malformed", () => {
    expect(firstLanguageTag("de-CH,de;q=0.9,en;q=0.8")).toBe("de-CH");
    expect(firstLanguageTag("fr;q=0.9")).toBe("fr");
    expect(firstLanguageTag("EN-us")).toBe("en-US");
    expect(firstLanguageTag("*")).toBeUndefined();
    expect(firstLanguageTag("")).toBeUndefined();
    expect(firstLanguageTag(null)).toBeUndefined();
    expect(firstLanguageTag("not a tag")).toBeUndefined();
  });
});
