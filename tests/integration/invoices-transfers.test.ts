import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { dbEngine, disconnectDb, getDb } from "@/lib/db";
import { CLIENT_ADDRESS_HEADER, rateLimiter } from "@/lib/http/rate-limit";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { issueLicense } from "@/lib/licensing/issue-license";
import { licenseCache } from "@/lib/licensing/license-state";
import { setLicenseStatus } from "@/lib/licensing/set-license-status";
import { validateLicense } from "@/lib/licensing/validate-license";
import { formatPrice } from "@/lib/pricing";
import { invoicePdf, sellerInvoicePdf } from "@/lib/receipts/invoices";
import { refundOrder } from "@/lib/refunds/refund-order";
import { submitReview } from "@/lib/reviews/submit-review";
import { runOperation } from "@/lib/transports/action";
import { statusIndexFor } from "@/lib/verifiable/status-list";
import { fingerprint } from "../helpers/licenses";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

/**
 * Invoices and license transfers (issue 35, items 7 and 8). Invoices: every paid order gets one, numbered per seller
 * 1, 2, 3, … without gaps (also under concurrent payments), printed as a PDF that is parsed back here with PDF.js and
 * whose number, names and totals are the order's; the buyer adds billing details afterwards and the number stays.
 * Transfers: the holder offers a license, the recipient accepts by the e-mailed link, the license moves with a new
 * key, the old key answers TRANSFERRED, the old holder's machines are released, the old credential's status position
 * is revoked; refused where the product does not allow it and for refunded licenses.
 */

const request = { headers: new Headers() };
vi.mock("next/headers", () => ({ headers: () => Promise.resolve(request.headers) }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ORIGIN = "http://localhost:3000";
const fx = {
  developer: "",
  sellerEmail: `inv-seller-${run}@example.com`,
  sellerName: `Invoice Seller ${run}`,
  product: "",
  closed: "",
  pluginId: `com.invoices.app${run}`,
};

async function cookieOf(email: string): Promise<string> {
  await requestSignIn({ email, purpose: "buyer" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  return `${session.cookieName}=${session.cookieValue}`;
}

async function as(email: string): Promise<void> {
  const h = new Headers({ [CLIENT_ADDRESS_HEADER]: "198.51.100.77", origin: ORIGIN, cookie: await cookieOf(email) });
  request.headers = h;
}

async function buy(buyerEmail: string, productId = fx.product) {
  const { session_id } = await createCheckout({ product_id: productId, buyer_email: buyerEmail });
  await payTestCheckout(session_id);
  return getDb().order.findUniqueOrThrow({ where: { id: session_id } });
}

/** The text of every page of a PDF, as PDF.js extracts it. */
async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  const standardFontDataUrl = `${join(process.cwd(), "node_modules/pdfjs-dist/standard_fonts")}/`;
  const doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), standardFontDataUrl, isEvalSupported: false }).promise;
  const parts: string[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    parts.push(content.items.map((it) => ("str" in it ? it.str : "")).join("\n"));
  }
  await doc.destroy();
  return parts.join("\n");
}

beforeAll(async () => {
  const dev = await sellingDeveloper(fx.sellerEmail, { name: fx.sellerName, website: null, bio: "" });
  await getDb().developer.update({ where: { id: dev.id }, data: { refundPolicy: "Refunds within 14 days.", supportEmail: fx.sellerEmail } });
  fx.developer = dev.id;
  fx.product = (
    await createTestProduct(dev.id, `Invoiced App ${run}`, fx.pluginId, { max_machines: 2, price_cents: 2500, allow_transfers: true })
  ).id;
  fx.closed = (await createTestProduct(dev.id, `Kept App ${run}`, `${fx.pluginId}.kept`, { max_machines: 2, price_cents: 1500 })).id;
});

beforeEach(() => rateLimiter().reset());

afterAll(async () => {
  rateLimiter().reset();
  await disconnectDb();
});

describe("invoices", () => {
  it("numbers each seller's paid orders without gaps and prints the order's totals, seller and buyer in the PDF", async () => {
    const buyer = `inv-buyer-${run}@example.com`;
    const first = await buy(buyer);
    const second = await buy(buyer, fx.closed);
    const invoices = await getDb().invoice.findMany({ where: { developerId: fx.developer }, orderBy: { number: "asc" } });
    expect(invoices.map((i) => [i.number, i.orderId])).toEqual([
      [1, first.id],
      [2, second.id],
    ]);
    expect(invoices[0]).toMatchObject({ totalCents: first.amountCents + (first.taxCents ?? 0), currency: first.currency, sellerName: fx.sellerName });

    const pdf = await invoicePdf(buyer, first.id);
    const text = await pdfText(pdf.bytes);
    expect(text).toContain("INV-000001");
    expect(text).toContain(fx.sellerName);
    expect(text).toContain("Seller of record");
    expect(text).toContain(buyer);
    expect(text).toContain(formatPrice(first.subtotalCents, first.currency));
    expect(text).toContain(formatPrice(first.amountCents + (first.taxCents ?? 0), first.currency));
    // The seller downloads the same document; another buyer or another seller does not.
    expect(await pdfText((await sellerInvoicePdf(fx.developer, first.id)).bytes)).toContain("INV-000001");
    await expect(invoicePdf(`someone-${run}@example.com`, first.id)).rejects.toMatchObject({ status: 404 });
    await expect(sellerInvoicePdf("dev_nobody", first.id)).rejects.toMatchObject({ status: 404 });

    // Billing details after the fact, through the operation: printed, the number unchanged.
    await as(buyer);
    const set = await runOperation("buyerSetBillingDetails", {
      body: { order_id: first.id, name: "Ada Example GmbH", address: "Hauptstrasse 1, 10115 Berlin", country: "de", vat_id: "DE 123456789" },
    });
    expect(set).toEqual({ ok: true, output: { order_id: first.id, invoice_number: "INV-000001" } });
    const again = await pdfText((await invoicePdf(buyer, first.id)).bytes);
    for (const part of ["INV-000001", "Ada Example GmbH", "Hauptstrasse 1, 10115 Berlin", "DE", "DE123456789"]) expect(again).toContain(part);
    // Control characters and another buyer's order are refused.
    const bad = await runOperation("buyerSetBillingDetails", { body: { order_id: first.id, name: "Ada\u0007", address: "x", country: "DE" } });
    expect(bad).toMatchObject({ ok: false, problem: { status: 400 } });
    await as(`other-${run}@example.com`);
    const foreign = await runOperation("buyerSetBillingDetails", { body: { order_id: first.id, name: "Eve", address: "x", country: "DE" } });
    expect(foreign).toMatchObject({ ok: false, problem: { status: 404 } });
    // The next invoice starts with the details the buyer gave.
    const third = await buy(buyer);
    expect(await getDb().invoice.findUniqueOrThrow({ where: { orderId: third.id } })).toMatchObject({ number: 3, billingName: "Ada Example GmbH" });
  });

  it("gives concurrent payments of one seller consecutive numbers, none twice", async () => {
    const before = await getDb().invoice.count({ where: { developerId: fx.developer } });
    const sessions = await Promise.all(
      Array.from({ length: 12 }, (_, i) => createCheckout({ product_id: fx.closed, buyer_email: `race-${i}-${run}@example.com` })),
    );
    await Promise.all(sessions.map((s) => payTestCheckout(s.session_id)));
    const numbers = (await getDb().invoice.findMany({ where: { developerId: fx.developer }, select: { number: true } }))
      .map((i) => i.number)
      .sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: before + 12 }, (_, i) => i + 1));
    // On PostgreSQL the payments really run at once (SQLite serializes them): the counter row's lock orders them.
    expect(["sqlite", "postgresql"]).toContain(dbEngine());
  });
});

describe("license transfer", () => {
  it("moves a license to the new holder by the e-mailed link: new key, machines released, old key TRANSFERRED, old credential revoked", async () => {
    const from = `xfer-from-${run}@example.com`;
    const to = `xfer-to-${run}@example.com`;
    const order = await buy(from);
    const license = await getDb().license.findUniqueOrThrow({ where: { orderId: order.id } });
    const fp = fingerprint(`xfer-${run}`);
    expect((await activateMachine({ license_key: license.key, machine_fingerprint: fp, plugin_id: fx.pluginId })).activated).toBe(true);
    const index = await statusIndexFor(license.id);
    // The first holder reviewed the product.
    const review = (await submitReview({ key: license.key }, { rating: 4, title: "Solid", body: "Does what it says.", author_name: "First" })).review;

    await as(from);
    const started = await runOperation<{ transfer_id: string; status: string }>("buyerStartTransfer", {
      body: { license_id: license.id, to_email: to },
    });
    expect(started).toMatchObject({ ok: true, output: { status: "pending", to_email: to } });
    const offer = await getDb().emailMessage.findFirstOrThrow({ where: { to, kind: "license-transfer-offer" }, orderBy: { createdAt: "desc" } });
    const token = /token=([A-Za-z0-9_-]+)/.exec(offer.text)![1]!;
    // Only the hash is stored.
    expect(await getDb().licenseTransfer.count({ where: { tokenHash: token } })).toBe(0);

    // The old holder cannot accept it for themselves.
    const wrong = await runOperation("buyerAcceptTransfer", { body: { token } });
    expect(wrong).toMatchObject({ ok: false, problem: { status: 403, code: "transfer_other_recipient" } });

    await as(to);
    const accepted = await runOperation<{ license_id: string; license_key: string; released_machines: number }>("buyerAcceptTransfer", {
      body: { token },
    });
    expect(accepted).toMatchObject({ ok: true, output: { license_id: license.id, released_machines: 1 } });
    const newKey = accepted.ok ? accepted.output.license_key : "";
    expect(newKey).not.toBe(license.key);
    // Single use.
    expect(await runOperation("buyerAcceptTransfer", { body: { token } })).toMatchObject({
      ok: false,
      problem: { status: 409, code: "transfer_accepted" },
    });

    const moved = await getDb().license.findUniqueOrThrow({ where: { id: license.id }, include: { activations: true } });
    expect(moved).toMatchObject({ buyerEmail: to, key: newKey, activeMachines: 0, orderId: order.id, isActive: true });
    expect(moved.activations).toHaveLength(0);
    licenseCache().clear();
    expect(await validateLicense({ license_key: license.key, machine_fingerprint: fp, plugin_id: fx.pluginId })).toMatchObject({
      valid: false,
      code: "TRANSFERRED",
    });
    const fp2 = fingerprint(`xfer-new-${run}`);
    expect(await activateMachine({ license_key: newKey, machine_fingerprint: fp2, plugin_id: fx.pluginId })).toMatchObject({ activated: true });
    expect(await validateLicense({ license_key: newKey, machine_fingerprint: fp2, plugin_id: fx.pluginId })).toMatchObject({ valid: true });
    // The credential position the old holder's credential names is now a revoked one.
    expect(await getDb().license.findUniqueOrThrow({ where: { statusIndex: index } })).toMatchObject({
      key: license.key,
      isActive: false,
      revocation: "transferred",
    });
    expect(await statusIndexFor(license.id)).not.toBe(index);
    // The retired key stays retired: the seller can neither reinstate it (two holders of one license) nor revoke it
    // again (which would overwrite why it ended); the license itself, with the new key, still can be.
    const retired = await getDb().license.findUniqueOrThrow({ where: { key: license.key } });
    for (const active of [true, false]) {
      await expect(setLicenseStatus({ licenseId: retired.id, active })).rejects.toMatchObject({ status: 409, code: "license_transferred" });
    }
    expect(await getDb().license.findUniqueOrThrow({ where: { id: retired.id } })).toMatchObject({
      isActive: false,
      revocation: "transferred",
      revokedReason: `Transferred to another holder (license ${license.id})`,
    });
    licenseCache().clear();
    expect(await validateLicense({ license_key: license.key, machine_fingerprint: fp, plugin_id: fx.pluginId })).toMatchObject({
      code: "TRANSFERRED",
    });
    // The first holder's review stayed theirs (on the retired key), still counted; the new holder writes their own
    // instead of editing it.
    expect(await getDb().review.findUniqueOrThrow({ where: { id: review.id } })).toMatchObject({
      licenseId: retired.id,
      rating: 4,
      authorName: "First",
    });
    const own = await submitReview(
      { licenseId: license.id, buyerEmail: to },
      { rating: 2, title: "Meh", body: "Not for me.", author_name: "Second" },
    );
    expect(own.created).toBe(true);
    expect(own.review.id).not.toBe(review.id);
    expect(own.productRating).toMatchObject({ count: 2, average: 3 });
    expect(await getDb().review.findUniqueOrThrow({ where: { id: review.id } })).toMatchObject({ rating: 4, title: "Solid" });
    // The history, and the three e-mails.
    const events = await getDb().licenseEvent.findMany({ where: { licenseId: license.id, type: "transferred" } });
    expect(events).toHaveLength(1);
    expect(events[0]!.detail).toMatchObject({ from, to, released_machines: 1 });
    for (const [addr, kind] of [
      [from, "license-transferred"],
      [to, "license-transferred"],
      [fx.sellerEmail, "license-transferred-seller"],
    ] as const)
      expect(await getDb().emailMessage.count({ where: { to: addr, kind } }), `${addr} ${kind}`).toBe(1);
    // The invoice stays the original buyer's.
    expect(await getDb().invoice.findUniqueOrThrow({ where: { orderId: order.id } })).toMatchObject({ buyerEmail: from });
  });

  it("is refused where the product does not allow it, for refunded and trial licenses, and can be cancelled", async () => {
    const holder = `xfer-refused-${run}@example.com`;
    await as(holder);
    const kept = await buy(holder, fx.closed);
    const keptLicense = await getDb().license.findUniqueOrThrow({ where: { orderId: kept.id } });
    expect(await runOperation("buyerStartTransfer", { body: { license_id: keptLicense.id, to_email: `x-${run}@example.com` } })).toMatchObject({
      ok: false,
      problem: { status: 403, code: "transfer_not_allowed" },
    });
    const trial = await issueLicense(getDb(), { productId: fx.product, buyerEmail: holder, maxMachines: 1, source: "trial", trial: true });
    expect(await runOperation("buyerStartTransfer", { body: { license_id: trial.id, to_email: `x-${run}@example.com` } })).toMatchObject({
      ok: false,
      problem: { status: 409, code: "license_trial" },
    });
    const refunded = await buy(holder);
    await refundOrder({ orderId: refunded.id, reason: "test", actor: { kind: "seller", developerId: fx.developer, email: fx.sellerEmail } });
    const refundedLicense = await getDb().license.findUniqueOrThrow({ where: { orderId: refunded.id } });
    expect(await runOperation("buyerStartTransfer", { body: { license_id: refundedLicense.id, to_email: `x-${run}@example.com` } })).toMatchObject({
      ok: false,
      problem: { status: 409, code: "license_refunded" },
    });
    // Someone else's license is a 404; a pending offer can be cancelled and its link then refuses.
    const mine = await buy(holder);
    const mineLicense = await getDb().license.findUniqueOrThrow({ where: { orderId: mine.id } });
    const offer = await runOperation<{ transfer_id: string }>("buyerStartTransfer", {
      body: { license_id: mineLicense.id, to_email: `x2-${run}@example.com` },
    });
    expect(offer.ok).toBe(true);
    const transferId = offer.ok ? offer.output.transfer_id : "";
    expect(await runOperation("buyerCancelTransfer", { body: { transfer_id: transferId } })).toMatchObject({
      ok: true,
      output: { status: "cancelled" },
    });
    await as(`x2-${run}@example.com`);
    expect(await runOperation("buyerAcceptTransfer", { body: { transfer_id: transferId } })).toMatchObject({
      ok: false,
      problem: { status: 409, code: "transfer_cancelled" },
    });
    expect(await runOperation("buyerStartTransfer", { body: { license_id: mineLicense.id, to_email: `x3-${run}@example.com` } })).toMatchObject({
      ok: false,
      problem: { status: 404 },
    });
  });
});
