import { currentBuyer } from "@/lib/auth/next-session";
import { invoiceDownload } from "@/lib/receipts/invoice-response";
import { invoicePdf } from "@/lib/receipts/invoices";

export const dynamic = "force-dynamic";

/**
 * GET: the invoice of one of the signed-in buyer's paid orders, as a PDF download. Who may call it: the buyer whose
 * address paid the order (the My licenses session); anyone else, or an order that is not theirs, gets a 404.
 * It only reads.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ order_id: string }> }) {
  const { order_id: id } = await params;
  const buyer = await currentBuyer();
  return invoiceDownload(id, buyer ? (orderId) => invoicePdf(buyer.email, orderId) : null);
}
