import { currentSeller } from "@/lib/auth/next-session";
import { invoiceDownload } from "@/lib/receipts/invoice-response";
import { sellerInvoicePdf } from "@/lib/receipts/invoices";

export const dynamic = "force-dynamic";

/**
 * GET: the invoice of one of the signed-in seller's paid orders, as a PDF download (the document the buyer gets).
 * Who may call it: the seller whose product the order bought; anyone else, or an order that is not theirs, gets a
 * 404. It only reads.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const developer = (await currentSeller())?.developer;
  return invoiceDownload(id, developer ? (orderId) => sellerInvoicePdf(developer.id, orderId) : null);
}
