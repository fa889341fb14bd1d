import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addMonths, checkoutPrice, couponApplies, licenseExpiry, offeredIntervals, periodEnd, prorate } from "@/lib/subscriptions/plans";

/** The arithmetic of recurring periods and prices (lib/subscriptions/plans.ts), which renewals, checkout and pages share. */

const utc = (s: string) => new Date(`${s}T10:00:00.000Z`);
const plan = (monthly: number | null, yearly: number | null) => ({
  pricingModel: "subscription",
  priceCents: monthly ?? yearly ?? 0,
  monthlyPriceCents: monthly,
  yearlyPriceCents: yearly,
  renewalPriceCents: null,
});

describe("periods", () => {
  it("keep the anchor's day of the month, or the month's last day where it has none", () => {
    const jan31 = utc("2027-01-31");
    expect(periodEnd(jan31, "month", 1).toISOString()).toBe("2027-02-28T10:00:00.000Z");
    expect(periodEnd(jan31, "month", 2).toISOString()).toBe("2027-03-31T10:00:00.000Z");
    expect(periodEnd(utc("2028-01-31"), "month", 1).toISOString()).toBe("2028-02-29T10:00:00.000Z");
    expect(periodEnd(utc("2028-02-29"), "year", 1).toISOString()).toBe("2029-02-28T10:00:00.000Z");
    expect(periodEnd(utc("2027-11-27"), "month", 2).toISOString()).toBe("2028-01-27T10:00:00.000Z");
  });

  it("never drift: the n-th end counted from the anchor is n months later, always after the one before", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }),
        fc.integer({ min: 1, max: 60 }),
        (anchor, n) => {
          const end = addMonths(anchor, n);
          const before = addMonths(anchor, n - 1);
          expect(end.getTime()).toBeGreaterThan(before.getTime());
          const months = (end.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + end.getUTCMonth() - anchor.getUTCMonth();
          expect(months).toBe(n);
          expect(end.getUTCDate()).toBeLessThanOrEqual(anchor.getUTCDate());
          expect(end.getUTCHours()).toBe(anchor.getUTCHours());
        },
      ),
    );
  });

  it("give the license its grace past the paid end", () => {
    expect(licenseExpiry(utc("2027-01-31"), 3).toISOString()).toBe("2027-02-03T10:00:00.000Z");
    expect(licenseExpiry(utc("2027-01-31"), 0).toISOString()).toBe("2027-01-31T10:00:00.000Z");
  });
});

describe("prices", () => {
  it("sell a subscription by the intervals it offers, monthly first, and refuse any other", () => {
    expect(offeredIntervals(plan(900, 9000))).toEqual(["month", "year"]);
    expect(checkoutPrice(plan(900, 9000), undefined)).toEqual({ unitCents: 900, interval: "month" });
    expect(checkoutPrice(plan(900, 9000), "year")).toEqual({ unitCents: 9000, interval: "year" });
    expect(checkoutPrice(plan(null, 9000), undefined)).toEqual({ unitCents: 9000, interval: "year" });
    expect(() => checkoutPrice(plan(null, 9000), "month")).toThrow(expect.objectContaining({ code: "interval_not_offered" }));
  });

  it("sell a product bought once without an interval, and refuse one", () => {
    const once = { ...plan(null, null), pricingModel: "one_time", priceCents: 1500 };
    expect(checkoutPrice(once, undefined)).toEqual({ unitCents: 1500, interval: null });
    expect(() => checkoutPrice(once, "month")).toThrow(expect.objectContaining({ code: "interval_not_offered", status: 400 }));
  });
});

describe("coupons on charges", () => {
  it("take off the first charge (once), every charge (forever) or those of their first months (repeating)", () => {
    const once = { couponDuration: "once", couponMonths: null };
    const forever = { couponDuration: "forever", couponMonths: null };
    const three = { couponDuration: "repeating", couponMonths: 3 };
    expect([0, 1, 12].map((m) => couponApplies(once, m))).toEqual([true, false, false]);
    expect([0, 1, 12].map((m) => couponApplies(forever, m))).toEqual([true, true, true]);
    expect([0, 1, 2, 3, 12].map((m) => couponApplies(three, m))).toEqual([true, true, true, false, false]);
    expect(couponApplies({ couponDuration: null, couponMonths: null }, 0)).toBe(false);
  });
});

describe("proration", () => {
  it("is the amount for the time left, rounded half up to the minor unit, for any amount and period", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -10_000_000, max: 10_000_000 }),
        fc.integer({ min: 1, max: 400 * 86_400_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (amount, length, share) => {
          const remaining = Math.floor(length * share);
          const got = prorate(amount, remaining, length);
          // The exact quotient, in integers: |got| is the nearest integer to |amount| × remaining / length, halves up.
          const exact = (BigInt(Math.abs(amount)) * BigInt(remaining) * 2n) / BigInt(length);
          const expected = Number((exact + 1n) / 2n) * Math.sign(amount);
          expect(got === expected || (expected === 0 && got === 0)).toBe(true);
          expect(Math.abs(got)).toBeLessThanOrEqual(Math.abs(amount));
        },
      ),
    );
  });

  it("gives nothing for no time left and everything for a whole period, and halves a period exactly", () => {
    expect(prorate(1000, 0, 30)).toBe(0);
    expect(prorate(1000, 30, 30)).toBe(1000);
    expect(prorate(1000, 45, 30)).toBe(1000);
    expect(prorate(999, 15, 30)).toBe(500); // 499.5 rounds up
    expect(prorate(-999, 15, 30)).toBe(-500);
    expect(prorate(1, 1, 3)).toBe(0);
  });
});
