import type { Metadata } from "next";
import Link from "next/link";
import { listPaymentEvents, paymentEventTypes } from "@/lib/admin/events";
import { adminMetadata, requireAdmin } from "@/lib/admin/session";
import { formatMoment, param } from "@/components/dashboard/format";
import { PageHeader } from "@/components/dashboard/page-header";
import { None, ScrollTable, td, th } from "@/components/dashboard/table";
import { buttonPrimary, textLink } from "@/components/ui/styles";
import { FilterSelect, type SearchParams } from "../_ui";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("Payment events");

export default async function AdminEventsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requireAdmin();
  const query = await searchParams;
  const types = await paymentEventTypes();
  const type = param(query.type);
  const events = await listPaymentEvents({ type: types.includes(type) ? type : undefined, limit: 100 });
  return (
    <>
      <PageHeader
        title="Payment events"
        description="The latest events received from the payment provider (and test-mode payments), each applied once; the outcome says what applying it did."
      />
      <form method="get" className="mt-6 flex items-end gap-3" aria-label="Filter events">
        <FilterSelect name="type" label="Type" value={type} options={[["", "All types"], ...types.map((t) => [t, t] as const)]} />
        <button type="submit" className={buttonPrimary}>
          Filter
        </button>
      </form>
      <div className="mt-6">
        {events.length === 0 ? (
          <p className="text-sm text-slate-600">No events yet.</p>
        ) : (
          <ScrollTable label="Payment events" minWidth="sm:min-w-[56rem]">
            <caption className="sr-only">Payment events, newest first</caption>
            <thead>
              <tr>
                <th scope="col" className={th}>
                  Received
                </th>
                <th scope="col" className={th}>
                  Type
                </th>
                <th scope="col" className={th}>
                  Order
                </th>
                <th scope="col" className={th}>
                  Account
                </th>
                <th scope="col" className={th}>
                  Outcome
                </th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.id}>
                  <td data-label="Received" className={`${td} whitespace-nowrap`}>
                    {formatMoment(e.processed_at)}
                  </td>
                  <td data-label="Type" className={td}>
                    <span className="font-medium">{e.type}</span>
                    <span className="block font-mono text-xs text-slate-600">{e.id}</span>
                  </td>
                  <td data-label="Order" className={td}>
                    {e.order_id ? (
                      <Link href={`/admin/orders/${encodeURIComponent(e.order_id)}`} className={`${textLink} font-mono text-xs`}>
                        {e.order_id}
                      </Link>
                    ) : (
                      <None />
                    )}
                  </td>
                  <td data-label="Account" className={`${td} font-mono text-xs`}>
                    {e.account_id ?? <None />}
                  </td>
                  <td data-label="Outcome" className={td}>
                    {e.outcome ?? <None />}
                  </td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        )}
      </div>
    </>
  );
}
