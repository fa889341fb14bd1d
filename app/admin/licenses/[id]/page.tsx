import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { adminMetadata, requireAdmin } from "@/lib/admin/session";
import { licenseDetail, licenseEvents } from "@/lib/seller-api/licenses";
import { formatMoment, SOURCE_LABELS } from "@/components/dashboard/format";
import { isNotFound } from "@/components/dashboard/form-state";
import { LicenseEventLog } from "@/components/dashboard/license-events";
import { LicenseMachinesTable } from "@/components/dashboard/license-machines";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { LicenseStatusBadge } from "@/components/dashboard/status-badge";
import { card, focusRing, textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("License");

/** One license of any seller, read-only: its facts, machines and event log (the seller manages it). */
export default async function AdminLicensePage({ params }: { params: Promise<{ id: string }> }) {
  await requireAdmin();
  const id = (await params).id.slice(0, 64);
  let detail: Awaited<ReturnType<typeof licenseDetail>>;
  try {
    detail = await licenseDetail(null, id);
  } catch (error) {
    if (isNotFound(error)) notFound();
    throw error;
  }
  const { license, seller } = detail;
  const { events, next_cursor } = await licenseEvents(null, license.id, { limit: 100 });
  const facts: Array<[string, string]> = [
    ["Product", `${license.product.name} (${license.product.plugin_id})`],
    ["Buyer", license.buyer_email],
    ["Source", SOURCE_LABELS[license.source] ?? license.source],
    ["Issued", formatMoment(license.issued_at)],
    ["Expires", license.expires_at ? formatMoment(license.expires_at) : "Never"],
    ["Seats", `${String(license.active_machines)} of ${String(license.max_machines)} in use`],
    ...(license.order_id ? [["Order", license.order_id] as [string, string]] : []),
    ...(license.revoked_at
      ? [["Revoked", `${formatMoment(license.revoked_at)}${license.revoked_reason ? ` (${license.revoked_reason})` : ""}`] as [string, string]]
      : []),
  ];
  return (
    <>
      <PageHeader
        eyebrow={
          <Link href="/admin/licenses" className={`rounded-sm hover:text-slate-900 hover:underline ${focusRing}`}>
            <span aria-hidden="true">← </span>Licenses
          </Link>
        }
        title={license.key}
        description={
          <span className="flex flex-wrap items-center gap-2 text-sm">
            <LicenseStatusBadge status={license.status} />
            <span>
              Seller{" "}
              <Link href={`/admin/sellers?q=${encodeURIComponent(seller.email)}`} className={textLink}>
                {seller.name}
              </Link>
            </span>
          </span>
        }
      />
      <div className="mt-8 space-y-10">
        <Section id="facts-heading" title="License" className={`${card} p-5 sm:p-6`}>
          <dl className="divide-y divide-slate-100">
            {facts.map(([term, value]) => (
              <div key={term} className="grid gap-1 py-3 sm:grid-cols-3 sm:gap-4">
                <dt className="text-sm font-medium text-slate-600">{term}</dt>
                <dd className="text-sm wrap-anywhere text-slate-900 sm:col-span-2">
                  {term === "Order" ? (
                    <Link href={`/admin/orders/${encodeURIComponent(value)}`} className={textLink}>
                      {value}
                    </Link>
                  ) : (
                    value
                  )}
                </dd>
              </div>
            ))}
          </dl>
        </Section>
        <Section id="machines-heading" title="Machines">
          {license.machines.length === 0 ? (
            <p className="text-sm text-slate-600">No machine is activated.</p>
          ) : (
            <LicenseMachinesTable machines={license.machines} />
          )}
        </Section>
        <Section id="events-heading" title="Event log" description="Newest first, with who did it.">
          <LicenseEventLog events={events} more={next_cursor !== null} />
        </Section>
      </div>
    </>
  );
}
