"use server";

import { revalidatePath } from "next/cache";
import { notFound, redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { AppError } from "@/lib/http/errors";
import {
  createEndpoint,
  createEndpointInputSchema,
  deleteEndpoint,
  redeliver,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from "@/lib/seller-webhooks/endpoints";
import { isNotFound } from "@/components/dashboard/form-state";
import { EMPTY_WEBHOOK_STATE, type WebhookFormState } from "@/components/dashboard/webhook-state";

const PAGE = "/dashboard/webhooks";

/** A refusal the seller can act on (bad URL, limit reached, disabled endpoint) as words; anything else is a bug. */
function refusal(error: unknown): string {
  if (error instanceof AppError && error.status < 500) return error.detail;
  throw error;
}

export async function createWebhookAction(_prev: WebhookFormState, fd: FormData): Promise<WebhookFormState> {
  const { developer } = await requireSeller();
  const text = (name: string) => {
    const v = fd.get(name);
    return typeof v === "string" ? v : "";
  };
  const values = {
    url: text("url"),
    description: text("description"),
    events: fd.getAll("events").filter((v): v is string => typeof v === "string"),
  };
  const parsed = createEndpointInputSchema.safeParse(values);
  if (!parsed.success) return { ...EMPTY_WEBHOOK_STATE, values, error: "Enter the endpoint's full URL, and choose among the listed events." };
  try {
    const endpoint = await createEndpoint(developer.id, parsed.data);
    revalidatePath(PAGE);
    return { ...EMPTY_WEBHOOK_STATE, secret: endpoint.secret, url: endpoint.url };
  } catch (error) {
    return { ...EMPTY_WEBHOOK_STATE, values, error: refusal(error) };
  }
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and coerced here.
export async function rotateWebhookSecretAction(rawId: unknown, _prev: WebhookFormState): Promise<WebhookFormState> {
  const { developer } = await requireSeller();
  try {
    const endpoint = await rotateEndpointSecret(developer.id, String(rawId));
    return { ...EMPTY_WEBHOOK_STATE, secret: endpoint.secret };
  } catch (error) {
    if (isNotFound(error)) notFound();
    return { ...EMPTY_WEBHOOK_STATE, error: refusal(error) };
  }
}

/** Runs a change and comes back to the page with a notice (a known code) or the refusal's code. */
async function act(change: (developerId: string) => Promise<unknown>, done: string): Promise<never> {
  const { developer } = await requireSeller();
  let outcome = done;
  try {
    await change(developer.id);
  } catch (error) {
    if (isNotFound(error)) notFound();
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    outcome = error.code;
  }
  revalidatePath(PAGE);
  redirect(`${PAGE}?done=${encodeURIComponent(outcome)}#endpoints`);
}

export async function setWebhookEnabledAction(rawId: unknown, rawEnabled: unknown): Promise<void> {
  const enabled = rawEnabled === true || rawEnabled === "true";
  await act((dev) => updateEndpoint(dev, String(rawId), { enabled }), enabled ? "enabled" : "disabled");
}

export async function sendWebhookTestAction(rawId: unknown): Promise<void> {
  await act((dev) => sendTestEvent(dev, String(rawId)), "test_queued");
}

export async function deleteWebhookAction(rawId: unknown): Promise<void> {
  await act((dev) => deleteEndpoint(dev, String(rawId)), "deleted");
}

export async function redeliverWebhookAction(rawDeliveryId: unknown): Promise<void> {
  await act((dev) => redeliver(dev, String(rawDeliveryId)), "redelivery_queued");
}
