"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { badArguments, formOf, idempotencyKeyOf, idOf, runOperation, textOf } from "@/lib/transports/action";
import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { EMPTY_WEBHOOK_STATE, type WebhookFormState } from "@/components/dashboard/webhook-state";

const PAGE = "/dashboard/webhooks";

/** A refusal the seller can act on (bad URL, limit reached, disabled endpoint) in words; the rest is the problem's own. */
const INVALID = "Enter the endpoint's full URL, and choose among the listed events.";

export async function createWebhookAction(_prev: WebhookFormState, form: unknown): Promise<WebhookFormState> {
  const fd = formOf(form);
  const values = {
    url: textOf(fd, "url"),
    description: textOf(fd, "description"),
    events: fd.getAll("events").filter((v): v is string => typeof v === "string"),
  };
  const outcome = await runOperation<{ endpoint: { secret: string; url: string } }>("createWebhookEndpoint", {
    body: values,
    idempotencyKey: idempotencyKeyOf(fd),
  });
  if (!outcome.ok) {
    const problem = sellerRefusal(outcome.problem);
    return { ...EMPTY_WEBHOOK_STATE, values, error: problem.code === "invalid_body" ? INVALID : problem.detail };
  }
  revalidatePath(PAGE);
  return { ...EMPTY_WEBHOOK_STATE, secret: outcome.output.endpoint.secret, url: outcome.output.endpoint.url };
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and checked by the operation.
export async function rotateWebhookSecretAction(rawId: unknown, _prev: WebhookFormState): Promise<WebhookFormState> {
  const outcome = await runOperation<{ endpoint: { secret: string } }>("rotateWebhookSecret", { params: { id: idOf(rawId) } });
  if (!outcome.ok) return { ...EMPTY_WEBHOOK_STATE, error: sellerRefusal(outcome.problem).detail };
  return { ...EMPTY_WEBHOOK_STATE, secret: outcome.output.endpoint.secret };
}

/** Runs a change and comes back to the page with a notice (a known code) or the refusal's code. */
async function act(id: Parameters<typeof runOperation>[0], call: Parameters<typeof runOperation>[1], done: string): Promise<never> {
  const outcome = await runOperation(id, call);
  const code = outcome.ok ? done : sellerRefusal(outcome.problem).code;
  revalidatePath(PAGE);
  redirect(`${PAGE}?done=${encodeURIComponent(code)}#endpoints`);
}

export async function setWebhookEnabledAction(rawId: unknown, rawEnabled: unknown): Promise<void> {
  if (typeof rawEnabled !== "boolean") badArguments("The switch takes true or false.");
  const enabled = rawEnabled;
  await act("updateWebhookEndpoint", { params: { id: idOf(rawId) }, body: { enabled } }, enabled ? "enabled" : "disabled");
}

export async function sendWebhookTestAction(rawId: unknown): Promise<void> {
  await act("sendWebhookTestEvent", { params: { id: idOf(rawId) } }, "test_queued");
}

export async function deleteWebhookAction(rawId: unknown): Promise<void> {
  await act("deleteWebhookEndpoint", { params: { id: idOf(rawId) } }, "deleted");
}

export async function redeliverWebhookAction(rawDeliveryId: unknown): Promise<void> {
  await act("redeliverWebhook", { params: { delivery_id: idOf(rawDeliveryId) } }, "redelivery_queued");
}
