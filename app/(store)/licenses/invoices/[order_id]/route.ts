import { currentBuyer } from "@/lib/auth/next-session";
import { invoicePdf } from "@/lib/receipts/invoices";
import { AppError } from "@/lib/http/errors";

export const dynamic = "force-dynamic";

/**
 * GET: the invoice of one of the signed-in buyer's paid orders, as a PDF download. Who may call it: the buyer whose
 * address paid the order (the My licenses session); anyone else, or an order that is not theirs, gets a 404.
 * It only reads.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ order_id: string }> }) {
  const { order_id: id } = await params;
  const buyer = await currentBuyer();
  const notFound = () =>
    new Response("Not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "private, no-store" } });
  if (!buyer || !/^[A-Za-z0-9_-]{1,80}$/.test(id)) return notFound();
  try {
    const { bytes, filename } = await invoicePdf(buyer.email, id);
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
