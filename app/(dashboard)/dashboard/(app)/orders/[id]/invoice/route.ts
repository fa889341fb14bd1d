import { currentSeller } from "@/lib/auth/next-session";
import { sellerInvoicePdf } from "@/lib/receipts/invoices";
import { AppError } from "@/lib/http/errors";

export const dynamic = "force-dynamic";

/**
 * GET: the invoice of one of the signed-in seller's paid orders, as a PDF download (the document the buyer gets).
 * Who may call it: the seller whose product the order bought; anyone else, or an order that is not theirs, gets a
 * 404. It only reads.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const seller = await currentSeller();
  const notFound = () =>
    new Response("Not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "private, no-store" } });
  if (!seller?.developer || !/^[A-Za-z0-9_-]{1,80}$/.test(id)) return notFound();
  try {
    const { bytes, filename } = await sellerInvoicePdf(seller.developer.id, id);
    return new Response(Buffer.from(bytes), {
      headers: {
        "content-type": "application/pdf",
        "content-disposition": `attachment; filename="${filename}"`,
        "cache-control": "private, no-store",
      },
    });
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return notFound();
    throw error;
  }
}
