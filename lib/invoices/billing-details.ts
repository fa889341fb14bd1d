import { z } from "zod";
import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { CONTROL_CHARACTER_MESSAGE, singleLineText } from "../http/input.ts";
import { invoiceLabel, invoiceOf } from "./number-invoice.ts";

const line = (max: number, what: string) => z.string().trim().min(1).max(max).refine(singleLineText, CONTROL_CHARACTER_MESSAGE).describe(what);

/** What a buyer may put on their invoice after the fact: name, address, country, and a VAT ID if they have one. */
export const billingDetailsSchema = z.object({
  order_id: line(64, "The paid order whose invoice takes these details"),
  name: line(200, "The name (a person's or a company's) the invoice is billed to"),
  address: line(300, "The postal address, on one line"),
  country: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{2}$/, "must be a two-letter country code (ISO 3166-1 alpha-2)")
    .describe("The country, as a two-letter code (ISO 3166-1 alpha-2)"),
  vat_id: z
    .string()
    .trim()
    .max(20)
    .regex(/^[A-Za-z0-9 .-]*$/, "must be letters, digits, spaces, dots and dashes")
    .optional()
    .describe("The buyer's VAT ID, if any (blank: none)"),
});
export type BillingDetails = z.infer<typeof billingDetailsSchema>;

export const billingDetailsResultSchema = z.object({ order_id: z.string(), invoice_number: z.string() });

/**
 * The buyer adds or changes the billing details of one of their invoices. The invoice keeps its number and amounts;
 * the next invoices start with these details. An order that is not the buyer's (or not paid) is 404.
 */
export async function setBillingDetails(buyerEmail: string, input: BillingDetails) {
  const buyer = buyerEmail.trim().toLowerCase();
  const order = await getDb().order.findFirst({
    where: { id: input.order_id, status: "paid", buyerEmail: { in: [buyerEmail, buyer] } },
    select: { id: true },
  });
  if (!order) throw notFound("invoice", "No paid order of yours has this id.");
  const invoice = await invoiceOf(order.id);
  const vat = input.vat_id?.replace(/\s+/g, "").toUpperCase() ?? "";
  await getDb().invoice.update({
    where: { id: invoice.id },
    data: { billingName: input.name, billingAddress: input.address, billingCountry: input.country, billingVatId: vat === "" ? null : vat },
  });
  return { order_id: order.id, invoice_number: invoiceLabel(invoice.number) };
}
