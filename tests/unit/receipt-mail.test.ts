import { describe, expect, it } from "vitest";
import { licenseEmail, type LicenseEmailData } from "@/lib/email/templates";

// A license e-mail used to call the receipt shareable and link it as /api/receipt?key=<the key>: forwarding it (or
// a mail scanner keeping the URL) handed over the key, and with it the seats.

const KEY = "ABCD-EFGH-JKLM-NPQR";
const base: LicenseEmailData = {
  buyerEmail: "buyer@example.com",
  productName: "Tape Saturator Pro",
  developerName: "Ferrite Audio",
  licenseKey: KEY,
  maxMachines: 3,
  pluginId: "com.ferrite.tapesat",
  downloadUrl: "http://localhost:3000/downloads/tape-saturator-pro?t=lic1.abc",
  receiptUrl: `http://localhost:3000/api/receipt?key=${KEY}`,
  productPageUrl: "http://localhost:3000/products/tape-saturator-pro",
  orderId: "cs_test_123",
  amountDisplay: "$49.00",
};

/** Every URL in a part of the mail. */
const urls = (part: string) => [...part.matchAll(/https?:\/\/[^\s"'<>]+/g)].map((m) => m[0].replace(/&amp;/g, "&"));

describe("the receipt in license e-mails", () => {
  for (const source of ["purchase", "complimentary"] as const) {
    describe(source, () => {
      for (const receiptUrl of [
        `http://localhost:3000/api/receipt?key=${KEY}`,
        `http://localhost:3000/api/receipt?key=${KEY.toLowerCase()}&x=1`,
        `http://localhost:3000/api/receipt/credential?key=${KEY}`,
        `http://localhost:3000/r/${KEY.replace(/-/g, "")}`,
      ]) {
        it(`never links a URL carrying the key (${receiptUrl})`, () => {
          const mail = licenseEmail({ ...base, source, receiptUrl });
          for (const part of [mail.html, mail.text]) {
            for (const url of urls(part)) {
              expect(url.toUpperCase().replace(/-/g, "")).not.toContain(KEY.replace(/-/g, ""));
              expect(new URL(url).searchParams.has("key")).toBe(false);
            }
            expect(part).toContain("http://localhost:3000/licenses");
          }
        });
      }

      it("does not call the receipt shareable, and says it must stay private", () => {
        const mail = licenseEmail({ ...base, source });
        for (const part of [mail.html, mail.text]) {
          expect(part).not.toMatch(/share/i);
          expect(part).toMatch(/keep it private like the key/);
        }
      });
    });
  }

  it("keeps a receipt link on this site that holds no key", () => {
    const mail = licenseEmail({ ...base, receiptUrl: "http://localhost:3000/licenses#receipts" });
    expect(mail.text).toContain("http://localhost:3000/licenses#receipts");
  });
});
