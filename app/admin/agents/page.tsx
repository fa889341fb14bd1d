import type { Metadata } from "next";
import Link from "next/link";
import { listAgentPlatforms } from "@/lib/acp/platforms";
import { adminMetadata, requireAdmin } from "@/lib/admin/session";
import { listWebhookDeliveries } from "@/lib/webhooks/deliveries";
import { formatMoment, param } from "@/components/dashboard/format";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { None, ScrollTable, td, th } from "@/components/dashboard/table";
import { buttonSecondary, inputBase, textLink } from "@/components/ui/styles";
import { AdminMessages, Badge, ReasonForm, type SearchParams } from "../_ui";
import { RegisterPlatformForm, RotateSecretForm } from "./_forms";
import { retryDeliveryAction, revokePlatformAction, setWebhookAction } from "./actions";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("Agents");

/** Messages after this page's own redirects (?notice=…, ?error=…): known codes only, in our words. */
const NOTICES: Record<string, string> = {
  "webhook-updated": "Webhook URL saved. Deliveries still waiting go to the new address.",
  "platform-revoked": "Platform revoked. Its key is refused from now on and its waiting deliveries were dropped.",
  "delivery-retried": "Delivery queued again; it is sent within seconds.",
};
const ERRORS: Record<string, string> = {
  invalid: "Please check the form: a reason of 3 to 500 characters on one line.",
  invalid_webhook_url: "The webhook URL must be https, without a user name or password in it (http://localhost is accepted outside production).",
  agent_platform_revoked: "That platform is revoked.",
  agent_platform_not_found: "There is no such platform.",
  webhook_delivery_not_failed: "Only a failed delivery can be sent again.",
  webhook_delivery_not_found: "There is no such delivery.",
  webhook_url_missing: "That platform has no webhook URL: set one first.",
  rate_limited: "Too many attempts in a short time. Wait a minute and try again.",
};
const known = (map: Record<string, string>, code: string) => (Object.hasOwn(map, code) ? map[code] : undefined);

const DELIVERY_TONES: Record<string, "green" | "amber" | "red"> = { sent: "green", pending: "amber", failed: "red" };

export default async function AdminAgentsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requireAdmin();
  const query = await searchParams;
  const notice = known(NOTICES, param(query.notice));
  const error = known(ERRORS, param(query.error)) ?? (param(query.error) ? "That did not work. Please try again." : undefined);
  const [platforms, deliveries] = await Promise.all([listAgentPlatforms(), listWebhookDeliveries({ limit: 50 })]);
  return (
    <>
      <AdminMessages notice={notice} error={error} />
      <PageHeader
        title="Agent platforms"
        description="Platforms whose agents buy through the Agentic Commerce Protocol (/api/acp) with a key you issue here. Each sees its orders' events at its webhook URL, signed with its own secret. The key and the secret are shown once, when made."
      />

      <Section id="register" title="Register a platform" className="mt-8">
        <RegisterPlatformForm idempotencyKey={crypto.randomUUID()} />
      </Section>

      <Section id="platforms" title="Platforms" className="mt-10">
        {platforms.length === 0 ? (
          <p className="text-sm text-slate-600">No platform yet.</p>
        ) : (
          <ScrollTable label="Agent platforms" minWidth="sm:min-w-[64rem]">
            <caption className="sr-only">Agent platforms, newest first, with their keys, webhooks and deliveries</caption>
            <thead>
              <tr>
                <th scope="col" className={th}>
                  Platform
                </th>
                <th scope="col" className={th}>
                  Webhook
                </th>
                <th scope="col" className={th}>
                  Deliveries
                </th>
                <th scope="col" className={th}>
                  Status
                </th>
                <th scope="col" className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {platforms.map((p) => (
                <tr key={p.id} className="align-top" data-platform={p.id}>
                  <td data-label="Platform" className={td}>
                    <p className="font-semibold text-slate-900">{p.name}</p>
                    <p className="font-mono text-xs text-slate-600">{p.key_prefix}…</p>
                    <p className="text-xs text-slate-600">since {formatMoment(p.created_at)}</p>
                  </td>
                  <td data-label="Webhook" className={td}>
                    {p.webhook_url ? <p className="max-w-xs font-mono text-xs break-all">{p.webhook_url}</p> : <None label="no webhook" />}
                    {p.revoked_at ? null : (
                      <details className="mt-2">
                        <summary className={`${buttonSecondary} cursor-pointer px-2.5 py-1.5 [&::-webkit-details-marker]:hidden`}>Change</summary>
                        <form action={setWebhookAction} className="mt-2 w-80 space-y-2">
                          <input type="hidden" name="id" value={p.id} />
                          <label htmlFor={`webhook-${p.id}`} className="block text-xs font-medium text-slate-700">
                            Webhook URL (empty: none)
                          </label>
                          <input
                            id={`webhook-${p.id}`}
                            name="webhook_url"
                            type="url"
                            maxLength={2000}
                            defaultValue={p.webhook_url ?? ""}
                            className={`${inputBase} py-1.5`}
                          />
                          <button
                            type="submit"
                            className="inline-flex rounded-lg bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-white hover:bg-indigo-700"
                          >
                            Save webhook URL
                          </button>
                        </form>
                      </details>
                    )}
                  </td>
                  <td data-label="Deliveries" className={`${td} text-xs whitespace-nowrap`}>
                    <p>
                      {p.deliveries.sent} sent · {p.deliveries.pending} waiting · {p.deliveries.failed} failed
                    </p>
                    <p className="text-slate-600">
                      {p.deliveries.last_sent_at ? `last ${formatMoment(p.deliveries.last_sent_at)}` : "none sent yet"}
                    </p>
                  </td>
                  <td data-label="Status" className={td}>
                    {p.revoked_at ? (
                      <>
                        <Badge tone="red">Revoked</Badge>
                        <p className="mt-1 text-xs text-slate-600">{formatMoment(p.revoked_at)}</p>
                      </>
                    ) : (
                      <Badge tone="green">Active</Badge>
                    )}
                  </td>
                  <td className={td}>
                    {p.revoked_at ? null : (
                      <div className="flex flex-col items-start gap-2">
                        <RotateSecretForm platformId={p.id} />
                        <ReasonForm
                          action={revokePlatformAction}
                          id={p.id}
                          summary="Revoke"
                          label="Reason (for the audit log)"
                          submit="Revoke platform"
                          danger
                        />
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        )}
      </Section>

      <Section
        id="deliveries"
        title="Recent webhook deliveries"
        description="Order events POSTed to the platforms, newest first: 8 attempts over about 20 hours, then failed."
        className="mt-10"
      >
        {deliveries.length === 0 ? (
          <p className="text-sm text-slate-600">No delivery yet.</p>
        ) : (
          <ScrollTable label="Webhook deliveries" minWidth="sm:min-w-[64rem]">
            <caption className="sr-only">Webhook deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col" className={th}>
                  Event
                </th>
                <th scope="col" className={th}>
                  Platform
                </th>
                <th scope="col" className={th}>
                  Status
                </th>
                <th scope="col" className={th}>
                  Last answer
                </th>
                <th scope="col" className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr key={d.id} className="align-top" data-delivery={d.id}>
                  <td data-label="Event" className={td}>
                    <p className="font-mono text-xs">{d.event_type}</p>
                    {d.order_id ? (
                      <Link href={`/admin/orders/${encodeURIComponent(d.order_id)}`} className={`${textLink} font-mono text-xs`}>
                        {d.order_id}
                      </Link>
                    ) : null}
                    <p className="text-xs text-slate-600">{formatMoment(d.created_at)}</p>
                  </td>
                  <td data-label="Platform" className={td}>
                    {d.platform_name ?? <None label="unknown" />}
                  </td>
                  <td data-label="Status" className={td}>
                    <Badge tone={DELIVERY_TONES[d.status] ?? "slate"}>{d.status}</Badge>
                    <p className="mt-1 text-xs text-slate-600">
                      {d.attempts} attempt{d.attempts === 1 ? "" : "s"}
                      {d.sent_at ? ` · sent ${formatMoment(d.sent_at)}` : ""}
                      {d.next_attempt_at && d.attempts > 0 ? ` · next ${formatMoment(d.next_attempt_at)}` : ""}
                    </p>
                  </td>
                  <td data-label="Last answer" className={`${td} max-w-md text-xs`}>
                    {d.last_status !== null ? <p className="font-mono">HTTP {d.last_status}</p> : null}
                    {d.last_error ? <p className="break-words text-red-800">{d.last_error}</p> : d.last_status === null ? <None label="—" /> : null}
                  </td>
                  <td className={td}>
                    {d.status === "failed" ? (
                      <form action={retryDeliveryAction}>
                        <input type="hidden" name="id" value={d.id} />
                        <button type="submit" className={`${buttonSecondary} px-2.5 py-1.5`}>
                          Send again
                        </button>
                      </form>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        )}
      </Section>
    </>
  );
}
