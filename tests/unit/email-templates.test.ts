import { describe, expect, it } from "vitest";
import { escapeHtml, licenseEmail, signInEmail, trialEmail, trialNotNeededEmail, type LicenseEmailData } from "@/lib/email/templates";

const base: LicenseEmailData = {
  buyerEmail: "buyer@example.com",
  productName: "Tape Saturator Pro",
  developerName: "Ferrite Audio",
  licenseKey: "ABCD-EFGH-JKLM-NPQR",
  maxMachines: 3,
  pluginId: "com.ferrite.tapesat",
  downloadUrl: "http://localhost:3000/downloads/tape-saturator-pro?t=lic1.abc",
  receiptUrl: "http://localhost:3000/api/receipt?key=ABCD-EFGH-JKLM-NPQR",
  productPageUrl: "http://localhost:3000/products/tape-saturator-pro",
  orderId: "cs_test_123",
  amountDisplay: "$49.00",
};

/** The text a reader sees in an HTML part: tags dropped, the entities we write decoded. */
function visibleText(html: string): string {
  return html
    .replace(/<(style|title)[\s\S]*?<\/\1>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");
}

describe("escapeHtml", () => {
  it("escapes the five HTML-significant characters and nothing else", () => {
    expect(escapeHtml(`<script>alert("x" + 'y')</script> & ü`)).toBe("&lt;script&gt;alert(&quot;x&quot; + &#39;y&#39;)&lt;/script&gt; &amp; ü");
    expect(escapeHtml("&amp;")).toBe("&amp;amp;");
    expect(escapeHtml(42)).toBe("42");
  });
});

describe("license e-mail", () => {
  const mail = licenseEmail(base);

  it("names the product in the subject", () => {
    expect(mail.subject).toBe("Your license key for Tape Saturator Pro");
  });

  it("puts the key, links, price, machines and order in both parts", () => {
    for (const part of [mail.html, mail.text]) {
      expect(part).toContain("ABCD-EFGH-JKLM-NPQR");
      expect(part).toContain("http://localhost:3000/downloads/tape-saturator-pro?t=lic1.abc");
      expect(part).toContain("http://localhost:3000/licenses");
      expect(part).toContain("http://localhost:3000/products/tape-saturator-pro");
      expect(part).toContain("cs_test_123");
      expect(part).toContain("$49.00");
      expect(part).toContain("3 machines");
      expect(part).toContain("Ferrite Audio");
      expect(part).toContain("com.ferrite.tapesat");
    }
    // A URL with a query string: escaped in HTML attributes, verbatim in text.
    expect(mail.text).toContain(base.downloadUrl);
    expect(mail.html).toContain(`href="${base.downloadUrl.replace(/&/g, "&amp;")}"`);
    // The receipt URL holds the key: the mail links the licenses page instead (tests/unit/receipt-mail.test.ts).
    expect(mail.text).not.toContain(base.receiptUrl);
    expect(visibleText(mail.html)).toMatch(/first launch it asks for your license key/);
    expect(mail.text).toMatch(/first launch it asks for your license key/);
    expect(mail.text).toMatch(/Release the old machine from inside the app, or from My licenses/);
  });

  it("shows the key in monospace and stays within mail-client rules", () => {
    expect(mail.html).toMatch(/font-family:ui-monospace[^"]*"[^>]*>ABCD-EFGH-JKLM-NPQR</);
    expect(mail.html).toContain("max-width:600px");
    expect(mail.html).not.toMatch(/<style|<link|<script|<img|@import|url\(/i);
    expect(mail.html).not.toMatch(/class=/);
    expect(mail.html.startsWith("<!DOCTYPE html>")).toBe(true);
  });

  it("says 1 machine, not 1 machines", () => {
    const one = licenseEmail({ ...base, maxMachines: 1 });
    expect(one.text).toContain("up to 1 machine at a time");
    expect(one.text).not.toContain("1 machines");
  });

  it("escapes every seller-controlled value", () => {
    const evil = licenseEmail({
      ...base,
      productName: `<script>alert("pwned")</script> 'Quoted' & Co`,
      developerName: `"><img src=x onerror=alert(1)>`,
      downloadUrl: `http://localhost:3000/downloads/file?a=1&b="2"`,
    });
    expect(evil.html).not.toContain("<script>");
    expect(evil.html).not.toContain("<img");
    expect(evil.html).not.toMatch(/="[^"]*"2"/); // the quote cannot end the href attribute
    expect(evil.html).toContain("&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; &#39;Quoted&#39; &amp; Co");
    expect(evil.html).toContain('href="http://localhost:3000/downloads/file?a=1&amp;b=&quot;2&quot;"');
    expect(visibleText(evil.html)).toContain(`Thanks for buying <script>alert("pwned")</script> 'Quoted' & Co`);
    // The text part is plain text: shown as written.
    expect(evil.text).toContain(`<script>alert("pwned")</script> 'Quoted' & Co`);
    expect(evil.subject).toBe(`Your license key for <script>alert("pwned")</script> 'Quoted' & Co`);
  });

  it("never links to a non-http URL and keeps the subject on one line", () => {
    const odd = licenseEmail({ ...base, productName: "Two\r\nLines\nBcc: x@evil.example", downloadUrl: "javascript:alert(1)" });
    expect(odd.subject).toBe("Your license key for Two Lines Bcc: x@evil.example");
    expect(odd.html).not.toMatch(/href="javascript:/i);
    expect(odd.html).toContain('href="http://localhost:3000/javascript:alert(1)"');
  });

  it("never links a seller's own URL: a download link off this site becomes the licenses page", () => {
    const raw = licenseEmail({ ...base, downloadUrl: "https://evil.example/login" });
    for (const part of [raw.html, raw.text]) {
      expect(part).not.toContain("evil.example");
      expect(part).toContain("http://localhost:3000/licenses");
    }
  });

  it("says a complimentary license is sent on the seller's behalf, in the platform's voice", () => {
    const gift = licenseEmail({ ...base, source: "complimentary", developerName: "PayPal Security", productName: "Verify your account" });
    expect(gift.subject).toBe(`License key for "Verify your account", sent on behalf of PayPal Security via Indie License Market`);
    for (const part of [visibleText(gift.html), gift.text]) {
      expect(part).toContain("Indie License Market sends this e-mail on behalf of PayPal Security, a seller on Indie License Market");
      expect(part).toContain(`The product name "Verify your account" and the seller name "PayPal Security" are written by the seller`);
      expect(part).toContain("never asks for passwords or payment details by e-mail");
      expect(part).not.toMatch(/Thanks for buying|Price paid/);
    }
  });
});

describe("sign-in e-mail", () => {
  it("carries the link and expiry for both purposes", () => {
    const url = "http://localhost:3000/licenses/sign-in?token=abc&x=1";
    const licenses = signInEmail({ email: "buyer@example.com", url, purpose: "licenses", expiresMinutes: 15 });
    const dashboard = signInEmail({ email: "dev@example.com", url, purpose: "dashboard", expiresMinutes: 1 });
    expect(licenses.subject).toMatch(/licenses/);
    expect(dashboard.subject).toMatch(/dashboard/);
    expect(licenses.text).toContain(url);
    expect(licenses.html).toContain(`href="${url.replace(/&/g, "&amp;")}"`);
    expect(licenses.text).toContain("15 minutes");
    expect(dashboard.text).toContain("1 minute");
    expect(dashboard.text).not.toContain("1 minutes");
    expect(visibleText(licenses.html)).toContain("buyer@example.com");
    expect(signInEmail({ email: `<b>"x"</b>@example.com`, url, purpose: "licenses", expiresMinutes: 5 }).html).not.toContain("<b>");
  });
});

describe("trial e-mails", () => {
  const trial = {
    buyerEmail: "tester@example.com",
    productName: "Tape Saturator Pro",
    developerName: "Ferrite Audio",
    licenseKey: "WXYZ-2345-6789-ABCD",
    maxMachines: 1,
    pluginId: "com.ferrite.tapesat",
    downloadUrl: "http://localhost:3000/downloads/tape-saturator-pro?t=abc.def",
    productPageUrl: "http://localhost:3000/products/tape-saturator-pro",
    expiresAt: new Date("2026-12-07T10:00:00.000Z"),
  };

  it("carry the trial key, its end date and the download link in both parts", () => {
    const mail = trialEmail(trial);
    expect(mail.subject).toBe("Your trial key for Tape Saturator Pro");
    for (const part of [mail.html, mail.text]) {
      expect(part).toContain("WXYZ-2345-6789-ABCD");
      expect(part).toContain("2026-12-07");
      expect(part).toContain("http://localhost:3000/products/tape-saturator-pro");
      expect(part).toContain("tester@example.com");
      expect(part).toContain("1 machine");
    }
    expect(mail.text).toContain(trial.downloadUrl);
    expect(mail.html).toContain(`href="${trial.downloadUrl}"`);
    expect(mail.html).not.toMatch(/<style|<link|<script|<img|@import|url\(/i);
  });

  it("escape seller-controlled names and keep the subject on one line", () => {
    const evil = trialEmail({ ...trial, productName: `<script>x</script>\r\nBcc: a@evil.example`, developerName: `"><img src=x>` });
    expect(evil.html).not.toContain("<script>");
    expect(evil.html).not.toContain("<img");
    expect(evil.subject).toBe("Your trial key for <script>x</script> Bcc: a@evil.example");
  });

  it("tell an owner no trial was made, without any key", () => {
    const note = trialNotNeededEmail({ buyerEmail: "owner@example.com", productName: "Tape Saturator Pro" });
    expect(note.subject).toBe("You already own Tape Saturator Pro");
    expect(note.text).toContain("http://localhost:3000/licenses");
    expect(note.text).not.toMatch(/[0-9A-Z]{4}(-[0-9A-Z]{4}){3}/);
  });
});
