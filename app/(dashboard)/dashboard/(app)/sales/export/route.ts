import { requireSeller } from "@/lib/auth/next-session";
import { salesCsv } from "@/lib/selling/sales";

export const dynamic = "force-dynamic";

/** The signed-in seller's ledger as a CSV download. */
export async function GET() {
  const { developer } = await requireSeller();
  return new Response(await salesCsv(developer.id), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="sales-${new Date().toISOString().slice(0, 10)}.csv"`,
      "cache-control": "private, no-store",
    },
  });
}
