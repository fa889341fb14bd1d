import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from "pdf-lib";
import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { formatPrice } from "../pricing.ts";
import { SERVICE_NAME } from "../versions.ts";

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

/** The invoice of one of the buyer's paid orders, as PDF bytes, and its file name. */
export async function invoicePdf(buyerEmail: string, orderId: string): Promise<{ bytes: Uint8Array; filename: string }> {
  const order = await getDb().order.findFirst({
    where: { id: orderId, status: "paid", buyerEmail: { in: [buyerEmail, buyerEmail.trim().toLowerCase()] } },
    include: { product: { select: { name: true, developer: { select: { name: true, supportEmail: true, email: true } } } } },
  });
  if (!order) throw notFound("invoice", "No paid order of yours has this id.");
  const doc = await PDFDocument.create();
  doc.setTitle(`Invoice ${order.id}`);
  doc.setProducer(SERVICE_NAME);
  doc.setCreationDate(order.paidAt ?? order.createdAt);
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
  const dev = order.product.developer;
  const header: Array<[string, string]> = [
    ["Invoice number", order.id],
    ["Date paid", day(order.paidAt ?? order.createdAt)],
    ["Seller", dev.name],
    ["Seller contact", dev.supportEmail ?? dev.email],
    ["Sold through", SERVICE_NAME],
    ["Billed to", order.buyerEmail],
    ["Paid with", order.provider === "stripe" ? "Stripe" : "Test mode (no money moved)"],
  ];
  for (const [k, v] of header) line(k, v);
  y -= 14;
  write(page, order.product.name, 56, 13, bold);
  y -= 18;
  write(page, describe(order), 56, 11, regular, muted);
  y -= 28;
  const money = (cents: number) => formatPrice(cents, order.currency);
  if (order.unitAmountCents !== null && !order.planChangeFrom && order.subtotalCents === order.unitAmountCents * order.quantity) {
    line(`${order.quantity} x ${money(order.unitAmountCents)}`, money(order.subtotalCents));
  } else {
    line("Subtotal", money(order.subtotalCents));
  }
  if (order.discountCents > 0) line(`Discount${order.couponCode ? ` (coupon ${order.couponCode})` : ""}`, `-${money(order.discountCents)}`);
  line("Tax", order.taxCents === null ? "not calculated" : money(order.taxCents));
  line("Total paid", money(order.amountCents + (order.taxCents ?? 0)), true);
  if (order.refundedCents > 0) line("Refunded since", `-${money(order.refundedCents)}`);
  y -= 20;
  write(page, `${SERVICE_NAME} issues this invoice on the seller's behalf. Amounts in ${order.currency.toUpperCase()}.`, 56, 9, regular, muted);
  return { bytes: await doc.save({ useObjectStreams: false }), filename: `invoice-${order.id}.pdf` };
}
