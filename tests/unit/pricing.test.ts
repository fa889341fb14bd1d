import { describe, expect, it } from "vitest";
import { licenseEmail } from "@/lib/email/templates";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { currencyLabel, formatPrice, minorDigits, minorToDecimal, orderCharges, SUPPORTED_CURRENCIES } from "@/lib/pricing";

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

describe("an order's charges", () => {
  const order = { currency: "eur", quantity: 2, subtotalCents: 5000, discountCents: 500, couponCode: "SPRING", amountCents: 4500, taxCents: null };

  it("lists quantity, subtotal, the coupon's discount, tax and the total, each with its code", () => {
    expect(orderCharges(order)).toEqual({
      currency: "eur",
      quantity: 2,
      unit: "€25.00 EUR",
      subtotal: "€50.00 EUR",
      discount: "€5.00 EUR",
      couponCode: "SPRING",
      tax: "not calculated",
      taxCalculated: false,
      total: "€45.00 EUR",
      refunded: null,
    });
    // Tax the provider calculated is added to the total; zero tax is shown as zero, not as "not calculated".
    expect(orderCharges({ ...order, taxCents: 855 })).toMatchObject({ tax: "€8.55 EUR", taxCalculated: true, total: "€53.55 EUR" });
    expect(orderCharges({ ...order, taxCents: 0 })).toMatchObject({ tax: "€0.00 EUR", total: "€45.00 EUR" });
    // An order from before seats and coupons has no subtotal of its own.
    expect(orderCharges({ ...order, quantity: 1, subtotalCents: 0, discountCents: 0, couponCode: null, amountCents: 1999 })).toMatchObject({
      unit: "€19.99 EUR",
      subtotal: "€19.99 EUR",
      discount: null,
      total: "€19.99 EUR",
    });
  });

  it("are in the license e-mail, in the HTML and the text part", () => {
    const mail = licenseEmail({
      buyerEmail: "buyer@example.com",
      productName: "Tape Saturator Pro",
      developerName: "Ferrite Audio",
      licenseKey: "ABCD-EFGH-JKLM-NPQR",
      maxMachines: 6,
      pluginId: "com.ferrite.tapesat",
      downloadUrl: "http://localhost:3000/downloads/tape-saturator-pro?t=lic1.abc",
      receiptUrl: "http://localhost:3000/licenses",
      productPageUrl: "http://localhost:3000/products/tape-saturator-pro",
      orderId: "cs_test_123",
      amountDisplay: formatPrice(4500, "eur"),
      charges: orderCharges(order),
    });
    for (const part of [mail.text, mail.html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ")]) {
      expect(part).toContain("2 × €25.00 EUR");
      expect(part).toContain("€50.00 EUR");
      expect(part).toContain("−€5.00 EUR (SPRING)");
      expect(part).toMatch(/Tax:?\s+not calculated/);
      expect(part).toMatch(/Total paid:?\s+€45\.00 EUR/);
      expect(part).toMatch(/6 machines/);
    }
  });
});
