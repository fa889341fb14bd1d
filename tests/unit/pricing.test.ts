import { describe, expect, it } from "vitest";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { currencyLabel, formatPrice, minorDigits, minorToDecimal, SUPPORTED_CURRENCIES } from "@/lib/pricing";

describe("formatPrice: every price carries its ISO code", () => {
  it("shows the symbol, the amount in the currency's precision and the code", () => {
    expect(formatPrice(1200, "usd")).toBe("$12.00 USD");
    expect(formatPrice(1200, "eur")).toBe("€12.00 EUR");
    expect(formatPrice(1200, "gbp")).toBe("£12.00 GBP");
    expect(formatPrice(123456, "eur")).toBe("€1,234.56 EUR");
    expect(formatPrice(0, "gbp")).toBe("£0.00 GBP");
    expect(formatPrice(-125, "usd")).toBe("-$1.25 USD");
    // Upper or lower case in, the same out.
    expect(formatPrice(5, "EUR")).toBe(formatPrice(5, "eur"));
  });

  it("never leaves a bare dollar sign to guess at: other dollars are told apart by the code", () => {
    expect(formatPrice(1000, "cad")).toMatch(/ CAD$/);
    expect(formatPrice(1000, "aud")).toMatch(/ AUD$/);
    for (const c of SUPPORTED_CURRENCIES) expect(formatPrice(4900, c)).toMatch(new RegExp(` ${c.toUpperCase()}$`));
  });

  it("uses each currency's own minor unit, exactly", () => {
    expect(minorDigits("usd")).toBe(2);
    expect(minorDigits("jpy")).toBe(0);
    expect(formatPrice(500, "jpy")).toBe("¥500 JPY");
    expect(minorToDecimal(1999, "usd")).toBe("19.99");
    expect(minorToDecimal(-5, "eur")).toBe("-0.05");
    expect(minorToDecimal(500, "jpy")).toBe("500");
    // No float drift on amounts a float would round (0.1 + 0.2 style).
    expect(minorToDecimal(1_000_000_03, "gbp")).toBe("1000000.03");
  });

  it("names currencies for the seller's form", () => {
    expect(currencyLabel("eur")).toBe("EUR — Euro");
    expect(SUPPORTED_CURRENCIES).toEqual(["usd", "eur", "gbp"]);
  });
});

describe("a product's currency", () => {
  const product = {
    name: "Currency Meter",
    description: "A product priced in one of the supported currencies.",
    plugin_id: "com.example.currency",
    price_cents: 1200,
    category: "dev-tools",
    max_machines: 1,
    seat_model: "per-machine",
    platforms: ["linux"],
    download_url: "https://example.com/d.zip",
    icon_url: "https://example.com/i.png",
  };
  it("is one of the supported currencies, lower case, or left out (a new product is in usd, an update keeps it)", () => {
    for (const c of SUPPORTED_CURRENCIES) expect(productInputSchema.parse({ ...product, currency: c }).currency).toBe(c);
    expect(productInputSchema.parse(product).currency).toBeUndefined();
    for (const bad of ["EUR", "jpy", "", "usd\n", 1])
      expect(productInputSchema.safeParse({ ...product, currency: bad }).success, String(bad)).toBe(false);
  });
});
