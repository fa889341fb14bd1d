import type { Db } from "../db.ts";
import { getDb } from "../db.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * Invoice numbers: one series per seller (the seller of record), 1, 2, 3, … without gaps or duplicates. The number is
 * taken in the transaction that marks the order paid, by one statement that inserts or increments the seller's
 * counter row and returns the value: on PostgreSQL the row lock makes a concurrent payment wait for this one's commit
 * (a max + 1 read would hand both the same number), and a payment that rolls back gives its number back with it.
 */
async function nextInvoiceNumber(tx: Tx, developerId: string): Promise<number> {
  const rows = await tx.$queryRaw<Array<{ number: number | bigint }>>`
    INSERT INTO "InvoiceCounter" ("developerId", "next") VALUES (${developerId}, 2)
    ON CONFLICT ("developerId") DO UPDATE SET "next" = "InvoiceCounter"."next" + 1
    RETURNING "next" - 1 AS "number"`;
  const n = rows[0]?.number;
  if (n === undefined) throw new Error("invoice counter returned no row");
  return Number(n);
}

/** The buyer's billing details as their latest invoice has them: a new invoice starts with what they gave last. */
async function lastBillingDetails(tx: Tx, buyerEmail: string) {
  const last = await tx.invoice.findFirst({
    where: { buyerEmail, billingName: { not: null } },
    orderBy: [{ issuedAt: "desc" }, { id: "desc" }],
    select: { billingName: true, billingAddress: true, billingCountry: true, billingVatId: true },
  });
  return last ?? {};
}

/**
 * The invoice of a paid order, numbered in the seller's series, with the amounts and the seller's name and contact as
 * they are now. Idempotent: an order that has its invoice keeps it (and its number).
 */
export async function issueInvoice(tx: Tx, orderId: string): Promise<{ number: number; created: boolean }> {
  const existing = await tx.invoice.findUnique({ where: { orderId }, select: { number: true } });
  if (existing) return { number: existing.number, created: false };
  const order = await tx.order.findUniqueOrThrow({
    where: { id: orderId },
    select: {
      id: true,
      status: true,
      buyerEmail: true,
      currency: true,
      subtotalCents: true,
      discountCents: true,
      amountCents: true,
      taxCents: true,
      paidAt: true,
      createdAt: true,
      product: { select: { developer: { select: { id: true, name: true, email: true, supportEmail: true, supportUrl: true } } } },
    },
  });
  if (order.status !== "paid") throw new Error(`order ${orderId} is not paid: no invoice`);
  const dev = order.product.developer;
  const buyerEmail = order.buyerEmail.trim().toLowerCase();
  const number = await nextInvoiceNumber(tx, dev.id);
  await tx.invoice.create({
    data: {
      developerId: dev.id,
      number,
      orderId: order.id,
      buyerEmail,
      currency: order.currency,
      subtotalCents: order.subtotalCents,
      discountCents: order.discountCents,
      amountCents: order.amountCents,
      taxCents: order.taxCents,
      totalCents: order.amountCents + (order.taxCents ?? 0),
      sellerName: dev.name,
      sellerContact: [dev.supportEmail ?? dev.email, dev.supportUrl].filter(Boolean).join(", "),
      ...(await lastBillingDetails(tx, buyerEmail)),
      issuedAt: order.paidAt ?? order.createdAt,
    },
  });
  return { number, created: true };
}

/** The invoice of a paid order, issued now if it has none yet (an order paid before invoices were numbered). */
export async function invoiceOf(orderId: string) {
  const db = getDb();
  const found = await db.invoice.findUnique({ where: { orderId } });
  if (found) return found;
  try {
    await db.$transaction((tx) => issueInvoice(tx, orderId));
  } catch (error) {
    // Issued by a concurrent request a moment ago: read theirs.
    if ((error as { code?: string }).code !== "P2002") throw error;
  }
  return db.invoice.findUniqueOrThrow({ where: { orderId } });
}

/** The invoice number as printed: the seller's series, padded ("INV-000042"). */
export const invoiceLabel = (number: number) => `INV-${String(number).padStart(6, "0")}`;
