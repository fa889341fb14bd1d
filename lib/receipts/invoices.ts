import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from "pdf-lib";
import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { formatPrice } from "../pricing.ts";
import { SERVICE_NAME } from "../versions.ts";
import { invoiceLabel, invoiceOf } from "../invoices/number-invoice.ts";

/**
 * Invoices of a buyer's charges: every paid order (a one-time sale, a subscription's first charge, each renewal, a
 * plan change's charge) as a list for My licenses and as a PDF to download. The PDF is drawn with pdf-lib's standard
 * fonts (no files to ship), in the words and amounts the ledger has: the seats and their price, the coupon's discount,
 * the tax the provider calculated, the total, and any refunds since. A buyer reaches only orders paid with their
 * address; anything else is a 404.
 */

export interface InvoiceLine {
  id: string;
  subscriptionId: string | null;
  paidAt: Date;
  productName: string;
  description: string;
  amountCents: number;
  taxCents: number;
  totalCents: number;
  refundedCents: number;
  currency: string;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

type Charged = {
  id: string;
  refundedCents: number;
  quantity: number;
  unitAmountCents: number | null;
  subtotalCents: number;
  interval: string | null;
  periodStart: Date | null;
  periodEnd: Date | null;
  planChangeFrom: string | null;
  subscriptionId: string | null;
  renewsLicenseId: string | null;
};

/** What a charge paid for, in one line. */
function describe(o: Charged): string {
  const seats = o.quantity > 1 ? `${o.quantity} seats` : "1 seat";
  if (o.planChangeFrom) return `Plan change to ${seats}${o.interval ? `, ${o.interval}ly` : ""}: the rest of the period`;
  if (o.subscriptionId && !o.periodStart) return "Subscription change";
  if (o.periodStart && o.periodEnd) return `${seats}, ${day(o.periodStart)} to ${day(o.periodEnd)}`;
  if (o.interval) return `${seats}, first ${o.interval}`;
  if (o.renewsLicenseId) return `Another year of updates, ${seats}`;
  return `License, ${seats}`;
}

/** The buyer's paid charges, newest first (for one subscription when `subscriptionId` is given). */
export async function listInvoices(buyerEmail: string, subscriptionId?: string, limit = 100): Promise<InvoiceLine[]> {
  const orders = await getDb().order.findMany({
    where: {
      buyerEmail: { in: [buyerEmail, buyerEmail.trim().toLowerCase()] },
      status: "paid",
      ...(subscriptionId ? { subscriptionId } : {}),
    },
    orderBy: [{ paidAt: "desc" }, { id: "desc" }],
    take: limit,
    include: { product: { select: { name: true } } },
  });
  return orders.map((o) => ({
    id: o.id,
    subscriptionId: o.subscriptionId,
    paidAt: o.paidAt ?? o.createdAt,
    productName: o.product.name,
    description: describe(o),
    amountCents: o.amountCents,
    taxCents: o.taxCents ?? 0,
    totalCents: o.amountCents + (o.taxCents ?? 0),
    refundedCents: o.refundedCents,
    currency: o.currency,
  }));
}

/** Text pdf-lib's standard fonts can draw (WinAnsi): anything else becomes "?", so a name never breaks the invoice. */
const drawable = (text: string) => text.replace(/[^\x20-\x7E\u00A0-\u00FF]/g, "?");

const orderForInvoice = {
  product: { select: { name: true } },
} as const;

/** The invoice of one of the buyer's paid orders, as PDF bytes, and its file name. */
export async function invoicePdf(buyerEmail: string, orderId: string): Promise<{ bytes: Uint8Array; filename: string }> {
  const order = await getDb().order.findFirst({
    where: { id: orderId, status: "paid", buyerEmail: { in: [buyerEmail, buyerEmail.trim().toLowerCase()] } },
    include: orderForInvoice,
  });
  if (!order) throw notFound("invoice", "No paid order of yours has this id.");
  return renderInvoice(order);
}

/** The invoice of one of the seller's paid orders (from the order page of their dashboard): the same document. */
export async function sellerInvoicePdf(developerId: string, orderId: string): Promise<{ bytes: Uint8Array; filename: string }> {
  const order = await getDb().order.findFirst({ where: { id: orderId, status: "paid", product: { developerId } }, include: orderForInvoice });
  if (!order) throw notFound("invoice", "No paid order of yours has this id.");
  return renderInvoice(order);
}

type InvoiceOrder = Charged & {
  provider: string;
  couponCode: string | null;
  product: { name: string };
};

/**
 * The PDF: the seller as the seller of record (name and contact as the invoice's snapshot has them), the buyer's
 * billing name, address, country and VAT ID when given, the line, discount, tax and total in the order's currency,
 * and the number in the seller's series. The amounts are the invoice's snapshot, taken when the order was paid.
 */
async function renderInvoice(order: InvoiceOrder): Promise<{ bytes: Uint8Array; filename: string }> {
  const invoice = await invoiceOf(order.id);
  const doc = await PDFDocument.create();
  doc.setTitle(`Invoice ${invoiceLabel(invoice.number)}`);
  doc.setProducer(SERVICE_NAME);
  doc.setCreationDate(invoice.issuedAt);
  const page = doc.addPage([595.28, 841.89]); // A4
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const ink = rgb(0.09, 0.11, 0.16);
  const muted = rgb(0.38, 0.42, 0.5);
  let y = 790;
  const write = (p: PDFPage, text: string, x: number, size: number, font: PDFFont, color = ink) => {
    p.drawText(drawable(text), { x, y, size, font, color });
  };
  const line = (label: string, value: string, strong = false) => {
    write(page, label, 56, 11, strong ? bold : regular, strong ? ink : muted);
    const font = strong ? bold : regular;
    const v = drawable(value);
    page.drawText(v, { x: 539 - font.widthOfTextAtSize(v, 11), y, size: 11, font, color: ink });
    y -= 20;
  };

  write(page, "Invoice", 56, 24, bold);
  y -= 30;
  const billedTo = [invoice.billingName, invoice.billingAddress, invoice.billingCountry].filter((v): v is string => Boolean(v));
  const header: Array<[string, string]> = [
    ["Invoice number", invoiceLabel(invoice.number)],
    ["Order", order.id],
    ["Date paid", day(invoice.issuedAt)],
    ["Seller of record", invoice.sellerName],
    ["Seller contact", invoice.sellerContact],
    ["Sold through", SERVICE_NAME],
    ...billedTo.map((v, i): [string, string] => [i === 0 ? "Billed to" : "", v]),
    [billedTo.length ? "E-mail" : "Billed to", invoice.buyerEmail],
    ...(invoice.billingVatId ? [["VAT ID", invoice.billingVatId] as [string, string]] : []),
    ["Paid with", order.provider === "stripe" ? "Stripe" : "Test mode (no money moved)"],
  ];
  for (const [k, v] of header) line(k, v);
  y -= 14;
  write(page, order.product.name, 56, 13, bold);
  y -= 18;
  write(page, describe(order), 56, 11, regular, muted);
  y -= 28;
  const money = (cents: number) => formatPrice(cents, invoice.currency);
  if (order.unitAmountCents !== null && !order.planChangeFrom && invoice.subtotalCents === order.unitAmountCents * order.quantity) {
    line(`${order.quantity} x ${money(order.unitAmountCents)}`, money(invoice.subtotalCents));
  } else {
    line("Subtotal", money(invoice.subtotalCents));
  }
  if (invoice.discountCents > 0) line(`Discount${order.couponCode ? ` (coupon ${order.couponCode})` : ""}`, `-${money(invoice.discountCents)}`);
  line("Tax", invoice.taxCents === null ? "not calculated" : money(invoice.taxCents));
  line("Total paid", money(invoice.totalCents), true);
  if (order.refundedCents > 0) line("Refunded since", `-${money(order.refundedCents)}`);
  y -= 20;
  write(
    page,
    `${SERVICE_NAME} issues this invoice on behalf of the seller of record. Amounts in ${invoice.currency.toUpperCase()}.`,
    56,
    9,
    regular,
    muted,
  );
  return { bytes: await doc.save({ useObjectStreams: false }), filename: `invoice-${order.id}.pdf` };
}
