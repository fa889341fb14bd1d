import { describe, expect, it, vi } from "vitest";
import { AppError } from "@/lib/http/errors";
import { invoiceDownload } from "@/lib/receipts/invoice-response";

const pdf = { bytes: new TextEncoder().encode("%PDF-1.7"), filename: "INV-000001.pdf" };

describe("the invoice download answer (buyer's and seller's routes)", () => {
  it("is the PDF as a private attachment", async () => {
    const r = await invoiceDownload("ord_1", () => Promise.resolve(pdf));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/pdf");
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="INV-000001.pdf"');
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    expect(await r.text()).toBe("%PDF-1.7");
  });

  it("is a plain, uncached 404 without a caller, for an id no order can have, and for another's order", async () => {
    const read = vi.fn(() => Promise.resolve(pdf));
    for (const r of [
      await invoiceDownload("ord_1", null),
      await invoiceDownload("../etc/passwd", read),
      await invoiceDownload("x".repeat(81), read),
      await invoiceDownload("ord_2", () => Promise.reject(new AppError("order_not_found", 404, "No such order."))),
    ]) {
      expect(r.status).toBe(404);
      expect(r.headers.get("cache-control")).toBe("private, no-store");
    }
    expect(read).not.toHaveBeenCalled();
  });

  it("lets any other failure through (the route's error handling answers it)", async () => {
    await expect(invoiceDownload("ord_1", () => Promise.reject(new Error("disk gone")))).rejects.toThrow("disk gone");
  });
});
