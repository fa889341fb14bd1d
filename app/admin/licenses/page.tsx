import type { Metadata } from "next";
import Link from "next/link";
import { adminMetadata, requireAdmin } from "@/lib/admin/session";
import { AppError } from "@/lib/http/errors";
import { searchAllLicenses } from "@/lib/seller-api/licenses";
import { formatDay, param } from "@/components/dashboard/format";
import { MachineList } from "@/components/dashboard/license-machine-list";
import { PageHeader } from "@/components/dashboard/page-header";
import { LicenseStatusBadge } from "@/components/dashboard/status-badge";
import { td, tdNum } from "@/components/dashboard/table";
import { buttonSecondary, textLink } from "@/components/ui/styles";
import { AdminTable, SearchForm, type SearchParams } from "../_ui";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("Licenses");

const LIMIT = 50;

/** Every seller's licenses: a whole key by its index, part of a key (4+ characters, dashes optional) or of an e-mail. */
export default async function AdminLicensesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requireAdmin();
  const query = await searchParams;
  const q = param(query.q)
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 200);
  const cursor = param(query.cursor).slice(0, 200);
  const found = await searchAllLicenses({ q: q || undefined, limit: LIMIT, cursor: cursor || undefined }).catch((e: unknown) => {
    if (e instanceof AppError && e.code === "invalid_cursor") return null;
    throw e;
  });
  const page = found ?? (await searchAllLicenses({ q: q || undefined, limit: LIMIT }));
  const next = page.next_cursor ? `/admin/licenses?${new URLSearchParams({ ...(q ? { q } : {}), cursor: page.next_cursor }).toString()}` : null;
  return (
    <>
      <PageHeader title="Licenses" description="Every seller's licenses, newest first. Open one to see its machines and its event log." />
      <div className="mt-6">
        <SearchForm label="Search licenses" q={q} placeholder="Part of a key (ABCD1234) or a buyer e-mail" />
      </div>
      <div className="mt-6">
        <AdminTable
          label="Licenses"
          caption="Licenses, newest first"
          minWidth="sm:min-w-[64rem]"
          rows={page.licenses.length}
          empty="No license matches."
          columns={["Key", "Buyer", "Product and seller", "Status", { name: "Seats", numeric: true }, "Machines", "Issued"]}
        >
          {page.licenses.map((l) => (
            <tr key={l.id}>
              <td data-label="Key" className={`${td} whitespace-nowrap`}>
                <Link href={`/admin/licenses/${encodeURIComponent(l.id)}`} className={`${textLink} font-mono text-[0.8125rem]`}>
                  {l.key}
                </Link>
              </td>
              <td data-label="Buyer" className={`${td} break-all`}>
                {l.buyer_email}
              </td>
              <td data-label="Product and seller" className={td}>
                {l.product.name}
                <span className="block text-xs text-slate-600">{l.seller?.name ?? "—"}</span>
              </td>
              <td data-label="Status" className={td}>
                <LicenseStatusBadge status={l.status} />
              </td>
              <td data-label="Seats" className={tdNum}>
                {l.active_machines} / {l.max_machines}
              </td>
              <td data-label="Machines" className={td}>
                <MachineList machines={l.machines} />
              </td>
              <td data-label="Issued" className={`${td} whitespace-nowrap`}>
                <time dateTime={l.issued_at}>{formatDay(l.issued_at)}</time>
              </td>
            </tr>
          ))}
        </AdminTable>
        {next ? (
          <Link href={next} className={`${buttonSecondary} mt-4`}>
            Older licenses
          </Link>
        ) : null}
      </div>
    </>
  );
}
