import { AppError } from "../http/errors.ts";

const PRIVATE = "private, no-store";

/**
 * The answer of an invoice download route (the buyer's under My licenses, the seller's under Orders): the PDF as an
 * attachment, or a plain 404 for no caller, an id that cannot be an order's, or an order that is not the caller's
 * (`read` throws a 404 AppError). Never cached: an invoice is one person's.
 */
export async function invoiceDownload(
  orderId: string,
  read: ((orderId: string) => Promise<{ bytes: Uint8Array; filename: string }>) | null,
): Promise<Response> {
  const notFound = () =>
    new Response("Not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": PRIVATE } });
  if (!read || !/^[A-Za-z0-9_-]{1,80}$/.test(orderId)) return notFound();
  try {
    const { bytes, filename } = await read(orderId);
    return new Response(Buffer.from(bytes), {
      headers: { "content-type": "application/pdf", "content-disposition": `attachment; filename="${filename}"`, "cache-control": PRIVATE },
    });
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return notFound();
    throw error;
  }
}
