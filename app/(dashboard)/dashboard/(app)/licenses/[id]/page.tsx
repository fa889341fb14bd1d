import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache, type ReactNode } from "react";
import { currentSeller } from "@/lib/auth/next-session";
import { licenseDetail, licenseEvents } from "@/lib/seller-api/licenses";
import { buttonDanger, buttonSmall } from "@/components/dashboard/buttons";
import { formatMoment, SOURCE_LABELS } from "@/components/dashboard/format";
import { isNotFound } from "@/components/dashboard/form-state";
import { LicenseEventLog } from "@/components/dashboard/license-events";
import { LicenseMachinesTable, machineSummary } from "@/components/dashboard/license-machines";
import { Notice } from "@/components/dashboard/notice";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { LicenseStatusBadge } from "@/components/dashboard/status-badge";
import { ConfirmAction, UndoProvider } from "@/components/licenses/confirm-undo";
import { CopyButton } from "@/components/ui/copy-button";
import { buttonPrimary, card, focusRing, inputBase, textLink } from "@/components/ui/styles";
import { pageSeller } from "../../../../_lib/seller";
import {
  releaseMachineAction,
  releaseMachineNowAction,
  restoreMachineNowAction,
  setLicenseStatusAction,
  setLicenseStatusNowAction,
} from "../actions";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const EVENTS_SHOWN = 100;

const findLicense = cache(async (developerId: string, id: string) => {
  try {
    return (await licenseDetail(developerId, id.slice(0, 64))).license;
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
  const { events, next_cursor } = await licenseEvents(developer.id, license.id, { limit: EVENTS_SHOWN });
  const seatsFree = Math.max(0, license.max_machines - license.active_machines);
  const revokedByPayment = license.revocation === "refunded" || license.revocation === "disputed" || license.revocation === "dispute_lost";
  const transferred = license.revocation === "transferred";

  return (
    <UndoProvider>
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
            <LicenseStatusBadge status={license.status} />
            <span>
              {license.active_machines} of {license.max_machines} {license.max_machines === 1 ? "machine" : "machines"} in use ·{" "}
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
                <code className="ml-1 rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700">{license.product.plugin_id}</code>
              </Detail>
              <Detail term="Buyer">
                <a href={`mailto:${license.buyer_email}`} className={textLink}>
                  {license.buyer_email}
                </a>
              </Detail>
              <Detail term="Source">
                {SOURCE_LABELS[license.source] ?? license.source}
                {license.bundle ? (
                  <>
                    {" "}
                    with the bundle{" "}
                    <Link href={`/dashboard/orders/${encodeURIComponent(license.bundle.order_id)}`} className={textLink}>
                      {license.bundle.name}
                    </Link>
                  </>
                ) : null}
              </Detail>
              <Detail term="Issued">
                <time dateTime={license.issued_at}>{formatMoment(license.issued_at)}</time>
              </Detail>
              <Detail term="Expires">
                {license.expires_at ? <time dateTime={license.expires_at}>{formatMoment(license.expires_at)}</time> : "Never (perpetual)"}
              </Detail>
              <Detail term="Seats">
                {license.active_machines} used, {seatsFree} free, {license.max_machines} in all
              </Detail>
              {license.order_id ? (
                <Detail term="Order">
                  <code className="font-mono text-xs">{license.order_id}</code>
                </Detail>
              ) : null}
              {license.revoked_at ? (
                <Detail term="Revoked">
                  <time dateTime={license.revoked_at}>{formatMoment(license.revoked_at)}</time>
                  {license.revoked_reason ? <span className="block text-slate-700">Reason: {license.revoked_reason}</span> : null}
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
            description="Releasing a machine frees its seat at once; the app on it asks for the key again at its next check. You can undo a release for a minute."
          >
            {license.machines.length === 0 ? (
              <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-8 text-center text-sm text-slate-600">
                No machine has activated this key yet.
              </div>
            ) : (
              <LicenseMachinesTable
                machines={license.machines}
                action={(m) => {
                  const name = machineSummary(m) || m.short_fingerprint;
                  return (
                    <ConfirmAction
                      fallback={releaseMachineAction.bind(null, license.id, m.id)}
                      run={releaseMachineNowAction.bind(null, license.id, m.id)}
                      undo={restoreMachineNowAction.bind(null, license.id, m.id)}
                      label="Release"
                      srLabel={`machine ${m.name ?? m.short_fingerprint}`}
                      question={`Release ${name} (${m.short_fingerprint})? Its seat is freed at once.`}
                      confirmLabel="Release machine"
                      danger
                      triggerClassName={buttonSmall}
                    />
                  );
                }}
              />
            )}
          </Section>

          <Section id="events-heading" title="Event log" description="Everything that happened to this license, newest first, with who did it.">
            <LicenseEventLog events={events} more={next_cursor !== null} />
          </Section>
        </div>

        <aside aria-labelledby="status-heading" className="lg:sticky lg:top-6 lg:self-start">
          <div className={`${card} p-5`}>
            <h2 id="status-heading" className="text-base font-semibold text-slate-900">
              {transferred ? "Transferred" : license.status !== "revoked" ? "Revoke this license" : "Reinstate this license"}
            </h2>
            {transferred ? (
              // The old key a transfer retired (lib/transfers): set-license-status refuses both ways.
              <p className="mt-3 text-sm text-slate-600">
                The buyer transferred this license to another holder, so this key was retired. The license continues under its new key, which you can
                revoke or reinstate.
              </p>
            ) : license.status !== "revoked" ? (
              <ConfirmAction
                fallback={setLicenseStatusAction.bind(null, license.id, false)}
                run={setLicenseStatusNowAction.bind(null, license.id, false)}
                undo={setLicenseStatusNowAction.bind(null, license.id, true, undefined)}
                label="Revoke license"
                question={`Revoke ${license.key}? It fails every validation and activation until you reinstate it.`}
                confirmLabel="Revoke"
                danger
                triggerClassName={buttonDanger}
                className="mt-3"
              >
                <div className="space-y-4 pb-4">
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
                      Kept with the license and in its event log.
                    </p>
                  </div>
                </div>
              </ConfirmAction>
            ) : revokedByPayment ? (
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
    </UndoProvider>
  );
}
