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
import { buttonSecondary, card, focusRing, inputBase, textLink } from "@/components/ui/styles";
import { formatPrice } from "@/lib/pricing";
import { getSubscription, type SubscriptionView } from "@/lib/subscriptions/manage";
import { getDb } from "@/lib/db";
import { advanceSubscriptionAction, cancelSubscriptionAction, subscriptionCardAction } from "../../actions";
import { AdminNotice, type SearchParams } from "../../_ui";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("License");

/** One license of any seller, read-only: its facts, machines and event log (the seller manages it). */
export default async function AdminLicensePage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  await requireAdmin();
  const query = await searchParams;
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
  const subscription = await subscriptionOfLicense(license.id);
  const facts: Array<[string, string]> = [
    ["Product", `${license.product.name} (${license.product.plugin_id})`],
    ["Buyer", license.buyer_email],
    ["Source", SOURCE_LABELS[license.source] ?? license.source],
    ["Issued", formatMoment(license.issued_at)],
    ["Expires", license.expires_at ? formatMoment(license.expires_at) : "Never"],
    ["Machines", `${String(license.active_machines)} of ${String(license.max_machines)} in use`],
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
      <div className="mt-6">
        <AdminNotice searchParams={query} />
      </div>
      <div className="mt-8 space-y-10">
        {subscription ? <SubscriptionSection licenseId={license.id} s={subscription} /> : null}
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

/** The subscription a license follows, as the operator sees it; null for a license bought once. */
async function subscriptionOfLicense(licenseId: string): Promise<SubscriptionView | null> {
  const row = await getDb().subscription.findUnique({ where: { licenseId }, select: { id: true } });
  return row ? getSubscription({ operator: true }, row.id) : null;
}

/** Its standing, and in test mode the clock and the card; a cancellation for any provider. */
function SubscriptionSection({ licenseId, s }: { licenseId: string; s: SubscriptionView }) {
  const hidden = (
    <>
      <input type="hidden" name="id" value={s.id} />
      <input type="hidden" name="license_id" value={licenseId} />
    </>
  );
  const facts: Array<[string, string]> = [
    ["Subscription", s.id],
    ["Status", s.status.replace("_", " ")],
    ["Plan", `${formatPrice(s.unit_amount_cents * s.quantity, s.currency)} a ${s.interval}${s.coupon_code ? `, coupon ${s.coupon_code}` : ""}`],
    ["Current period", `${formatMoment(s.current_period_start)} to ${formatMoment(s.current_period_end)}`],
    ["Next charge", s.next_charge ? `${formatPrice(s.next_charge.amount_cents, s.currency)} on ${formatMoment(s.next_charge.at)}` : "None"],
    ["Paid periods", String(s.paid_periods)],
    ...(s.test_card ? [["Test card", s.test_card === "fails" ? "declines" : "pays"] as [string, string]] : []),
  ];
  return (
    <Section id="subscription-heading" title="Subscription" className={`${card} p-5 sm:p-6`}>
      <dl className="divide-y divide-slate-100" data-testid="admin-subscription">
        {facts.map(([term, value]) => (
          <div key={term} className="grid gap-1 py-3 sm:grid-cols-3 sm:gap-4">
            <dt className="text-sm font-medium text-slate-600">{term}</dt>
            <dd className="text-sm wrap-anywhere text-slate-900 sm:col-span-2">{value}</dd>
          </div>
        ))}
      </dl>
      {s.status !== "ended" ? (
        <div className="mt-4 flex flex-wrap items-end gap-4">
          {s.test_card ? (
            <>
              <form action={advanceSubscriptionAction} className="flex flex-wrap items-end gap-2">
                {hidden}
                <label className="text-sm text-slate-700">
                  Days to pass
                  <input name="days" type="number" min={1} max={800} defaultValue={31} className={`${inputBase} mt-1 w-24`} />
                </label>
                <button type="submit" className={buttonSecondary}>
                  Move the clock
                </button>
              </form>
              <form action={subscriptionCardAction}>
                {hidden}
                <input type="hidden" name="card" value={s.test_card === "fails" ? "succeeds" : "fails"} />
                <button type="submit" className={buttonSecondary}>
                  {s.test_card === "fails" ? "Use a card that pays" : "Use a card that declines"}
                </button>
              </form>
            </>
          ) : null}
          {s.status !== "canceling" ? (
            <form action={cancelSubscriptionAction}>
              {hidden}
              <button type="submit" className={buttonSecondary}>
                Cancel at period end
              </button>
            </form>
          ) : null}
        </div>
      ) : null}
    </Section>
  );
}
