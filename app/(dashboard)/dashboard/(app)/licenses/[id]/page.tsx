import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache, type ReactNode } from "react";
import { currentSeller } from "@/lib/auth/next-session";
import { getSellerLicense } from "@/lib/dashboard/licenses";
import { buttonDanger, buttonSmall } from "@/components/dashboard/buttons";
import { formatMoment, licenseStatus, shortFingerprint, SOURCE_LABELS } from "@/components/dashboard/format";
import { isNotFound } from "@/components/dashboard/form-state";
import { Notice } from "@/components/dashboard/notice";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { LicenseStatusBadge } from "@/components/dashboard/status-badge";
import { None, ScrollTable, td, th } from "@/components/dashboard/table";
import { CopyButton } from "@/components/ui/copy-button";
import { buttonPrimary, card, focusRing, inputBase, textLink } from "@/components/ui/styles";
import { pageSeller } from "../../../../_lib/seller";
import { releaseMachineAction, setLicenseStatusAction } from "../actions";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const findLicense = cache(async (developerId: string, id: string) => {
  try {
    return await getSellerLicense(developerId, id.slice(0, 64));
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const seller = await currentSeller();
  const license = seller?.developer ? await findLicense(seller.developer.id, (await params).id) : null;
  return { title: license ? `License ${license.key}` : "License not found", robots: { index: false } };
}

function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-3 sm:grid-cols-3 sm:gap-4">
      <dt className="text-sm font-medium text-slate-600">{term}</dt>
      <dd className="text-sm wrap-anywhere text-slate-900 sm:col-span-2">{children}</dd>
    </div>
  );
}

export default async function LicensePage({ params, searchParams }: Props) {
  const { developer } = await pageSeller();
  const license = await findLicense(developer.id, (await params).id);
  if (!license) notFound();
  const status = licenseStatus(license);
  const seatsFree = Math.max(0, license.maxMachines - license.activeMachines);

  return (
    <>
      <Notice searchParams={await searchParams} />
      <PageHeader
        eyebrow={
          <Link href="/dashboard/licenses" className={`rounded-sm hover:text-slate-900 hover:underline ${focusRing}`}>
            <span aria-hidden="true">← </span>Licenses
          </Link>
        }
        title={`${license.product.name} license`}
        description={
          <span className="flex flex-wrap items-center gap-2 text-sm">
            <LicenseStatusBadge status={status} />
            <span>
              {license.activeMachines} of {license.maxMachines} {license.maxMachines === 1 ? "machine" : "machines"} in use ·{" "}
              {SOURCE_LABELS[license.source] ?? license.source}
            </span>
          </span>
        }
      />

      <div className="mt-8 grid gap-8 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0 space-y-10">
          <Section id="key-heading" title="License key" className={`${card} p-5 sm:p-6`}>
            <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
              <p
                id="license-key"
                data-testid="license-key"
                className="min-w-0 flex-1 rounded-lg border border-slate-300 bg-slate-50 px-3 py-3 font-mono text-lg font-semibold tracking-wide wrap-anywhere text-slate-900 select-all sm:text-xl"
              >
                {license.key}
              </p>
              <CopyButton text={license.key} label="license key" selectTargetId="license-key" className="py-3" />
            </div>
            <dl className="mt-4 divide-y divide-slate-100">
              <Detail term="Product">
                <Link href={`/dashboard/products/${encodeURIComponent(license.product.id)}`} className={textLink}>
                  {license.product.name}
                </Link>{" "}
                <code className="ml-1 rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700">{license.product.pluginId}</code>
              </Detail>
              <Detail term="Buyer">
                <a href={`mailto:${license.buyerEmail}`} className={textLink}>
                  {license.buyerEmail}
                </a>
              </Detail>
              <Detail term="Source">{SOURCE_LABELS[license.source] ?? license.source}</Detail>
              <Detail term="Issued">
                <time dateTime={license.issuedAt.toISOString()}>{formatMoment(license.issuedAt)}</time>
              </Detail>
              <Detail term="Expires">
                {license.expiresAt ? <time dateTime={license.expiresAt.toISOString()}>{formatMoment(license.expiresAt)}</time> : "Never (perpetual)"}
              </Detail>
              <Detail term="Seats">
                {license.activeMachines} used, {seatsFree} free, {license.maxMachines} in all
              </Detail>
              {license.orderId ? (
                <Detail term="Order">
                  <code className="font-mono text-xs">{license.orderId}</code>
                </Detail>
              ) : null}
              {license.revokedAt ? (
                <Detail term="Revoked">
                  <time dateTime={license.revokedAt.toISOString()}>{formatMoment(license.revokedAt)}</time>
                  {license.revokedReason ? <span className="block text-slate-700">Reason: {license.revokedReason}</span> : null}
                </Detail>
              ) : null}
              <Detail term="Receipt">
                <a href={`/api/receipt?key=${encodeURIComponent(license.key)}`} className={textLink}>
                  Signed receipt (JSON)
                </a>
              </Detail>
            </dl>
          </Section>

          <Section
            id="machines-heading"
            title="Machines"
            description="Releasing a machine frees its seat at once; the app on it asks for the key again at its next check."
          >
            {license.activations.length === 0 ? (
              <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-8 text-center text-sm text-slate-600">
                No machine has activated this key yet.
              </div>
            ) : (
              <ScrollTable label="Machines" minWidth="min-w-[36rem]">
                <caption className="sr-only">Machines using this license</caption>
                <thead>
                  <tr>
                    <th scope="col" className={th}>
                      Fingerprint
                    </th>
                    <th scope="col" className={th}>
                      Activated
                    </th>
                    <th scope="col" className={th}>
                      Last validated
                    </th>
                    <th scope="col" className={th}>
                      <span className="sr-only">Release</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {license.activations.map((a) => (
                    <tr key={a.id}>
                      <td className={td}>
                        <code title={a.fingerprint} className="font-mono text-[0.8125rem] text-slate-900">
                          {shortFingerprint(a.fingerprint)}
                        </code>
                        <span className="sr-only"> (full fingerprint {a.fingerprint})</span>
                      </td>
                      <td className={`${td} whitespace-nowrap`}>
                        <time dateTime={a.activatedAt.toISOString()}>{formatMoment(a.activatedAt)}</time>
                      </td>
                      <td className={`${td} whitespace-nowrap`}>
                        {a.lastValidatedAt ? (
                          <time dateTime={a.lastValidatedAt.toISOString()}>{formatMoment(a.lastValidatedAt)}</time>
                        ) : (
                          <None label="never" />
                        )}
                      </td>
                      <td className={`${td} text-right`}>
                        <form action={releaseMachineAction.bind(null, license.id, a.id)}>
                          <button type="submit" className={buttonSmall}>
                            Release<span className="sr-only"> machine {shortFingerprint(a.fingerprint)}</span>
                          </button>
                        </form>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </ScrollTable>
            )}
          </Section>
        </div>

        <aside aria-labelledby="status-heading" className="lg:sticky lg:top-6 lg:self-start">
          <div className={`${card} p-5`}>
            <h2 id="status-heading" className="text-base font-semibold text-slate-900">
              {license.isActive ? "Revoke this license" : "Reinstate this license"}
            </h2>
            {license.isActive ? (
              <form action={setLicenseStatusAction.bind(null, license.id, false)} className="mt-3 space-y-4">
                <p className="text-sm text-slate-600">
                  Refunds, chargebacks, leaked keys: a revoked key fails every validation and activation. You can reinstate it later.
                </p>
                <div>
                  <label htmlFor="revoke-reason" className="block text-sm font-medium text-slate-900">
                    Reason <span className="font-normal text-slate-600">(optional)</span>
                  </label>
                  <input
                    id="revoke-reason"
                    name="reason"
                    type="text"
                    maxLength={200}
                    aria-describedby="revoke-reason-hint"
                    className={`${inputBase} mt-1.5`}
                  />
                  <p id="revoke-reason-hint" className="mt-1.5 text-sm text-slate-600">
                    Kept with the license for your records.
                  </p>
                </div>
                <button type="submit" className={buttonDanger}>
                  Revoke license
                </button>
              </form>
            ) : license.revocation === "refunded" || license.revocation === "disputed" || license.revocation === "dispute_lost" ? (
              // Ended by the payment side (lib/licensing/set-license-status.ts refuses to reinstate these).
              <p className="mt-3 text-sm text-slate-600">
                {license.revocation === "disputed"
                  ? "Suspended while a payment dispute is open; it works again if the dispute is won."
                  : "The payment went back to the buyer, so this license cannot be reinstated. Issue a complimentary license instead."}
              </p>
            ) : (
              <form action={setLicenseStatusAction.bind(null, license.id, true)} className="mt-3 space-y-4">
                <p className="text-sm text-slate-600">The key works again on its machines and can activate free seats.</p>
                <button type="submit" className={buttonPrimary}>
                  Reinstate license
                </button>
              </form>
            )}
          </div>
        </aside>
      </div>
    </>
  );
}
