import { describe, expect, it } from "vitest";
import { machineTitle, seatsAndMachines } from "@/lib/format";
import { versionWithoutV } from "@/components/dashboard/version-offer";
import { disputeClosedEmail, maskEmail, saleDigestEmail, saleEmail, suspensionEmail } from "@/lib/email/seller-templates";
import { previousUtcDay } from "@/lib/seller-mail/sale-emails";

describe("words that match the numbers", () => {
  it("counts seats and machines apart", () => {
    expect(seatsAndMachines(2, 4)).toBe("2 seats · 4 machines");
    expect(seatsAndMachines(1, 1)).toBe("1 seat · 1 machine");
    expect(seatsAndMachines(1, 3)).toBe("1 seat · 3 machines");
  });

  it("names a machine by what its app sent, in order, and nothing when it sent nothing", () => {
    expect(machineTitle({ name: "Studio Mac", platform: "macOS 15.1", appVersion: "2.3.1" })).toBe("Studio Mac · macOS 15.1 · version 2.3.1");
    expect(machineTitle({ name: null, platform: "Windows 11", appVersion: "v1.0.0" })).toBe("Windows 11 · version 1.0.0");
    expect(machineTitle({ name: "  ", platform: null, appVersion: null })).toBe("");
  });

  it('offers "v1.0.0" as "1.0.0", and only a version', () => {
    expect(versionWithoutV("v1.0.0")).toBe("1.0.0");
    expect(versionWithoutV("V2.1.0-beta.1")).toBe("2.1.0-beta.1");
    for (const other of ["1.0.0", "v1.0", "v01.0.0", "version 1", "v1.0.0+build", ""]) expect(versionWithoutV(other), other).toBeNull();
  });
});

describe("seller mails", () => {
  it("mask the buyer's address to its first character and domain", () => {
    expect(maskEmail("jane.doe@example.com")).toBe("j***@example.com");
    expect(maskEmail("a@b.co")).toBe("a***@b.co");
    expect(maskEmail("nobody")).toBe("***");
  });

  it("a sale: amount with its code, seats and machines, the order link, names escaped in HTML", () => {
    const m = saleEmail({
      kind: "sale",
      productName: "Tape <Warmth>",
      orderId: "cs_abc",
      amountCents: 4500,
      currency: "eur",
      seats: 3,
      machines: 6,
      buyerEmail: "buyer@example.com",
      couponCode: "SPRING",
    });
    expect(m.subject).toBe("New sale: Tape <Warmth> for €45.00 EUR");
    expect(m.text).toContain("3 seats · 6 machines");
    expect(m.text).toContain("b***@example.com");
    expect(m.text).toContain("/dashboard/orders/cs_abc");
    expect(m.html).toContain("Tape &lt;Warmth&gt;");
    expect(m.html).not.toContain("<Warmth>");
  });

  it("a digest: one line per product and a total per currency", () => {
    const m = saleDigestEmail({
      day: "2026-11-27",
      products: [
        { name: "A", orders: 2, currency: "usd", amountCents: 3000 },
        { name: "B", orders: 1, currency: "eur", amountCents: 900 },
      ],
      totals: [
        { currency: "eur", amountCents: 900, orders: 1 },
        { currency: "usd", amountCents: 3000, orders: 2 },
      ],
    });
    expect(m.subject).toBe("Your sales on 2026-11-27: 3 orders, €9.00 EUR + $30.00 USD");
    expect(m.text).toMatch(/Total EUR:\s+1 order · €9\.00 EUR/);
    expect(m.text).toMatch(/Total USD:\s+2 orders · \$30\.00 USD/);
  });

  it("suspension carries the operator's reason; a dispute says won or lost", () => {
    expect(suspensionEmail({ sellerName: "S", reason: "Copied listings" }).text).toContain("Operator's reason: Copied listings");
    const base = { productName: "P", orderId: "cs_1", amountCents: 100, currency: "usd", disputeId: "dp_1" };
    expect(disputeClosedEmail({ ...base, outcome: "won" }).subject).toBe("Dispute won: $1.00 USD for P");
    expect(disputeClosedEmail({ ...base, outcome: "lost" }).subject).toBe("Dispute lost: $1.00 USD for P");
  });

  it("the digest covers the UTC day before now", () => {
    expect(previousUtcDay(new Date("2026-11-28T00:05:00Z"))).toEqual({
      day: "2026-11-27",
      from: new Date("2026-11-27T00:00:00Z"),
      to: new Date("2026-11-28T00:00:00Z"),
    });
  });
});
