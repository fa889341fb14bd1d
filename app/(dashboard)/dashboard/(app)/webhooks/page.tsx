import type { Metadata } from "next";
import { SELLER_EVENT_TYPES } from "@/lib/seller-webhooks/events";
import { listEndpointDeliveries, listEndpoints, type DeliveryView, type EndpointView } from "@/lib/seller-webhooks/endpoints";
import { buttonSmall } from "@/components/dashboard/buttons";
import { formatMoment, param } from "@/components/dashboard/format";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { ScrollTable, td, tdNum, th, thNum } from "@/components/dashboard/table";
import { ConfirmSubmit, WebhookCreateForm, WebhookRotateForm } from "@/components/dashboard/webhook-forms";
import { Badge } from "@/components/ui/badge";
import { card } from "@/components/ui/styles";
import { pageSeller } from "../../../_lib/seller";
import {
  createWebhookAction,
  deleteWebhookAction,
  redeliverWebhookAction,
  rotateWebhookSecretAction,
  sendWebhookTestAction,
  setWebhookEnabledAction,
} from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Webhooks", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** Deliveries shown per endpoint; the API pages through the rest. */
const LOG_SIZE = 10;

// Only known codes are shown, so a crafted link cannot put words on the page.
const DONE: Record<string, { text: string; ok: boolean }> = {
  enabled: { text: "Endpoint enabled; its failure streak starts again from zero.", ok: true },
  disabled: { text: "Endpoint disabled: events are not queued for it until you enable it again.", ok: true },
  test_queued: { text: "Test event queued: it appears in the endpoint's delivery log within seconds.", ok: true },
  deleted: { text: "Endpoint deleted.", ok: true },
  redelivery_queued: { text: "Redelivery queued: the same message (same webhook-id), freshly signed.", ok: true },
  webhook_delivery_pending: { text: "That delivery is already queued; wait for it to be sent or to fail.", ok: false },
  webhook_endpoint_disabled: { text: "That endpoint is disabled: enable it first.", ok: false },
};

function DeliveryLog({ deliveries }: { deliveries: DeliveryView[] }) {
  if (deliveries.length === 0) return <p className="text-sm text-slate-600">No deliveries yet. Send a test event to try the endpoint.</p>;
  return (
    <ScrollTable label="Deliveries" minWidth="sm:min-w-[48rem]">
      <caption className="sr-only">Recent deliveries with event, status, HTTP status, response time and attempts</caption>
      <thead>
        <tr>
          <th scope="col" className={th}>
            Event
          </th>
          <th scope="col" className={th}>
            Status
          </th>
          <th scope="col" className={thNum}>
            HTTP
          </th>
          <th scope="col" className={thNum}>
            Time
          </th>
          <th scope="col" className={thNum}>
            Attempts
          </th>
          <th scope="col" className={th}>
            When
          </th>
          <th scope="col" className={th}>
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((d) => (
          <tr key={d.id}>
            <td data-label="Event" className={td}>
              <code className="font-mono text-sm">{d.event_type}</code>
              {d.last_error ? (
                <p className="mt-1 max-w-md truncate text-xs text-slate-500" title={d.last_error}>
                  {d.last_error}
                </p>
              ) : null}
            </td>
            <td data-label="Status" className={td}>
              <Badge tone={d.status === "sent" ? "success" : d.status === "failed" ? "neutral" : "accent"}>
                {d.status === "pending" && d.next_attempt_at
                  ? `Pending, next ${formatMoment(d.next_attempt_at)}`
                  : d.status === "sent"
                    ? "Sent"
                    : d.status === "failed"
                      ? "Failed"
                      : "Pending"}
              </Badge>
            </td>
            <td data-label="HTTP" className={tdNum}>
              {d.last_status ?? "—"}
            </td>
            <td data-label="Time" className={tdNum}>
              {d.last_duration_ms !== null ? `${d.last_duration_ms} ms` : "—"}
            </td>
            <td data-label="Attempts" className={tdNum}>
              {d.attempts}
            </td>
            <td data-label="When" className={td}>
              <time dateTime={d.created_at}>{formatMoment(d.created_at)}</time>
            </td>
            <td className={td}>
              {d.status !== "pending" ? (
                <form action={redeliverWebhookAction.bind(null, d.id)}>
                  <button type="submit" className={buttonSmall}>
                    Redeliver<span className="sr-only"> {d.event_type}</span>
                  </button>
                </form>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}

function Endpoint({ e, deliveries }: { e: EndpointView; deliveries: DeliveryView[] }) {
  return (
    <article className={`${card} p-6`} aria-labelledby={`we-${e.id}`}>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <h3 id={`we-${e.id}`} className="font-mono text-sm font-semibold break-all text-slate-900">
            {e.url}
          </h3>
          {e.description ? <p className="mt-1 text-sm text-slate-600">{e.description}</p> : null}
          <p className="mt-2 text-sm text-slate-700">
            Events:{" "}
            {e.events.length === 0
              ? "all"
              : e.events.map((x) => (
                  <code key={x} className="mr-2 font-mono">
                    {x}
                  </code>
                ))}
          </p>
          <p className="mt-2 text-sm">
            {e.enabled ? <Badge tone="success">Enabled</Badge> : <Badge>Disabled</Badge>}
            {!e.enabled && e.disabled_reason ? <span className="ml-2 text-slate-600">{e.disabled_reason}</span> : null}
            {e.enabled && e.failure_streak > 0 ? <span className="ml-2 text-slate-600">{e.failure_streak} failed in a row</span> : null}
          </p>
        </div>
        <div className="flex flex-wrap items-start gap-2">
          {e.enabled ? (
            <form action={sendWebhookTestAction.bind(null, e.id)}>
              <button type="submit" className={buttonSmall}>
                Send test event
              </button>
            </form>
          ) : null}
          <form action={setWebhookEnabledAction.bind(null, e.id, !e.enabled)}>
            <button type="submit" className={buttonSmall}>
              {e.enabled ? "Disable" : "Enable"}
            </button>
          </form>
          <WebhookRotateForm action={rotateWebhookSecretAction.bind(null, e.id)} url={e.url} />
          <ConfirmSubmit
            action={deleteWebhookAction.bind(null, e.id)}
            question={`Delete the webhook endpoint ${e.url}? Deliveries still queued for it are dropped.`}
          >
            Delete
          </ConfirmSubmit>
        </div>
      </div>
      <h4 className="mt-6 mb-2 text-sm font-semibold text-slate-900">Recent deliveries</h4>
      <DeliveryLog deliveries={deliveries} />
    </article>
  );
}

export default async function WebhooksPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const query = await searchParams;
  const endpoints = await listEndpoints(developer.id);
  const logs = await Promise.all(endpoints.map((e) => listEndpointDeliveries(developer.id, e.id, { limit: LOG_SIZE })));
  const done = DONE[param(query.done)];

  return (
    <>
      {done ? (
        <div
          role="status"
          id="webhooks-notice"
          className={`mb-6 rounded-lg border px-4 py-3 text-sm ${done.ok ? "border-emerald-200 bg-emerald-50 text-emerald-900" : "border-amber-200 bg-amber-50 text-amber-950"}`}
        >
          {done.text}
        </div>
      ) : null}
      <PageHeader
        title="Webhooks"
        description="Your endpoints receive sales, license, release and dispute events as signed POST requests (Standard Webhooks). Failed deliveries are retried with backoff for about 20 hours; an endpoint that keeps failing is disabled and you get an e-mail."
      />
      <Section
        id="endpoints"
        title="Endpoints"
        description={`${endpoints.length} ${endpoints.length === 1 ? "endpoint" : "endpoints"}.`}
        className="mt-8"
      >
        {endpoints.length === 0 ? (
          <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
            <p className="text-base font-medium text-slate-900">No endpoints yet.</p>
            <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">Add one below; you get its signing secret once.</p>
          </div>
        ) : (
          <div className="space-y-6">
            {endpoints.map((e, i) => (
              <Endpoint key={e.id} e={e} deliveries={logs[i]?.deliveries ?? []} />
            ))}
          </div>
        )}
      </Section>
      <Section id="new-endpoint" title="Add an endpoint" className="mt-12">
        <div className={`${card} p-6`}>
          <WebhookCreateForm action={createWebhookAction} events={SELLER_EVENT_TYPES} idempotencyKey={crypto.randomUUID()} />
        </div>
      </Section>
    </>
  );
}
