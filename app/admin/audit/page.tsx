import type { Metadata } from "next";
import Link from "next/link";
import { AUDIT_ACTIONS, listAudit } from "@/lib/admin/audit";
import { adminMetadata, requireAdmin } from "@/lib/admin/session";
import { formatMoment, param } from "@/components/dashboard/format";
import { PageHeader } from "@/components/dashboard/page-header";
import { ScrollTable, td, th } from "@/components/dashboard/table";
import { buttonPrimary, textLink } from "@/components/ui/styles";
import { FilterSelect, type SearchParams } from "../_ui";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("Audit");

const TARGET_LINKS: Record<string, (id: string) => string> = {
  developer: (id) => `/admin/products?seller=${encodeURIComponent(id)}`,
  product: (id) => `/admin/products?q=${encodeURIComponent(id)}`,
  order: (id) => `/admin/orders/${encodeURIComponent(id)}`,
  agent_platform: () => "/admin/agents",
};

export default async function AdminAuditPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requireAdmin();
  const query = await searchParams;
  const action = param(query.action);
  const known = AUDIT_ACTIONS.find((a) => a === action);
  const entries = await listAudit({ action: known, limit: 200 });
  return (
    <>
      <PageHeader title="Audit" description="Every operator action, who took it and when, recorded in the same transaction as the action itself." />
      <form method="get" className="mt-6 flex items-end gap-3" aria-label="Filter audit entries">
        <FilterSelect name="action" label="Action" value={action} options={[["", "All actions"], ...AUDIT_ACTIONS.map((a) => [a, a] as const)]} />
        <button type="submit" className={buttonPrimary}>
          Filter
        </button>
      </form>
      <div className="mt-6">
        {entries.length === 0 ? (
          <p className="text-sm text-slate-600">No operator action yet.</p>
        ) : (
          <ScrollTable label="Audit entries" minWidth="sm:min-w-[56rem]">
            <caption className="sr-only">Operator actions, newest first</caption>
            <thead>
              <tr>
                <th scope="col" className={th}>
                  When
                </th>
                <th scope="col" className={th}>
                  Who
                </th>
                <th scope="col" className={th}>
                  Action
                </th>
                <th scope="col" className={th}>
                  Target
                </th>
                <th scope="col" className={th}>
                  Details
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} className="align-top">
                  <td data-label="When" className={`${td} whitespace-nowrap`}>
                    {formatMoment(e.created_at)}
                  </td>
                  <td data-label="Who" className={td}>
                    {e.actor_email}
                  </td>
                  <td data-label="Action" className={`${td} font-medium`}>
                    {e.action}
                  </td>
                  <td data-label="Target" className={td}>
                    {e.target_type}{" "}
                    {TARGET_LINKS[e.target_type] ? (
                      <Link href={TARGET_LINKS[e.target_type]?.(e.target_id) ?? "#"} className={`${textLink} font-mono text-xs`}>
                        {e.target_id}
                      </Link>
                    ) : (
                      <span className="font-mono text-xs">{e.target_id}</span>
                    )}
                  </td>
                  <td data-label="Details" className={td}>
                    <dl className="space-y-0.5 text-xs">
                      {Object.entries(e.detail).map(([k, v]) => (
                        <div key={k} className="flex gap-1">
                          <dt className="text-slate-600">{k.replace(/_/g, " ")}:</dt>
                          <dd className="wrap-anywhere text-slate-900">{typeof v === "string" ? v : JSON.stringify(v)}</dd>
                        </div>
                      ))}
                    </dl>
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
