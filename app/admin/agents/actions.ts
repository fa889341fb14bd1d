"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, idempotencyKeyOf, runOperation, textOf, type ActionCall } from "@/lib/transports/action";
import type { OperationId } from "@/lib/operations/index";
import { adminRefusal, fieldProblem, refusalCode } from "../_lib/action-outcome";

// Each action runs the operator's operation (lib/operations/agent-platforms.ts) through the registry: the operator's
// session, same-origin writes, limits and idempotency are execute()'s. Keys and secrets travel only in the action's
// own answer to the operator's browser, never in a URL.

const BACK = "/admin/agents";

/** What the register and rotate forms show after posting: the new key and secret once, or what was wrong. */
export interface SecretState {
  error?: string;
  /** What the operator typed, given back with an error (React clears a form after its action). */
  values?: { name: string; webhook_url: string };
  /** Distinct for every answer, so the form is drawn afresh with `values` even when an answer repeats. */
  nonce?: string;
  name?: string;
  apiKey?: string;
  webhookSecret?: string;
}

/** A webhook URL field: blank is none. */
const webhookUrl = (fd: FormData) => textOf(fd, "webhook_url").trim() || null;

/** Why the form was refused, in words: a bad field by its name, anything else as the operation words it. */
function registerRefusal(problem: Parameters<typeof adminRefusal>[0]): string {
  if (fieldProblem(problem, "name")) return "Give the platform a name of 2 to 100 characters on one line.";
  const url = fieldProblem(problem, "webhook_url");
  if (url) return `The webhook URL ${url.message}.`;
  if (problem.status === 429) return "Too many attempts in a short time. Wait a minute and try again.";
  return problem.status === 400 ? "Please check the form." : problem.detail;
}

export async function registerPlatformAction(_prev: SecretState, form: unknown): Promise<SecretState> {
  const fd = formOf(form);
  const values = { name: textOf(fd, "name").slice(0, 100), webhook_url: textOf(fd, "webhook_url").slice(0, 2000) };
  const outcome = await runOperation<{ platform: { name: string }; api_key: string; webhook_secret: string }>("registerAgentPlatform", {
    body: { name: textOf(fd, "name"), webhook_url: webhookUrl(fd) },
    idempotencyKey: idempotencyKeyOf(fd),
  });
  if (!outcome.ok) return { error: registerRefusal(adminRefusal(outcome.problem)), values, nonce: crypto.randomUUID() };
  revalidatePath(BACK);
  return { name: outcome.output.platform.name, apiKey: outcome.output.api_key, webhookSecret: outcome.output.webhook_secret };
}

export async function rotateSecretAction(_prev: SecretState, form: unknown): Promise<SecretState> {
  const fd = formOf(form);
  const outcome = await runOperation<{ platform: { name: string }; webhook_secret: string }>("rotateAgentPlatformWebhookSecret", {
    params: { id: textOf(fd, "id") },
  });
  if (!outcome.ok) {
    const problem = adminRefusal(outcome.problem);
    return { error: problem.status === 400 ? "That platform does not exist." : problem.detail };
  }
  revalidatePath(BACK);
  return { name: outcome.output.platform.name, webhookSecret: outcome.output.webhook_secret };
}

/** Runs a change and comes back to the page with a notice, or (for a refusal) a code the page words itself. */
async function act(notice: string, id: OperationId, call: ActionCall, invalid = "invalid"): Promise<never> {
  const outcome = await runOperation(id, call);
  if (!outcome.ok) redirect(`${BACK}?error=${encodeURIComponent(refusalCode(adminRefusal(outcome.problem), invalid))}`);
  revalidatePath(BACK);
  redirect(`${BACK}?notice=${notice}`);
}

export async function setWebhookAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  await act(
    "webhook-updated",
    "updateAgentPlatform",
    { params: { id: textOf(fd, "id") }, body: { webhook_url: webhookUrl(fd) } },
    "invalid_webhook_url",
  );
}

export async function revokePlatformAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  await act("platform-revoked", "revokeAgentPlatform", { params: { id: textOf(fd, "id") }, body: { reason: textOf(fd, "reason") } });
}

export async function retryDeliveryAction(form: unknown): Promise<void> {
  await act("delivery-retried", "retryWebhookDelivery", { params: { id: textOf(formOf(form), "id") } });
}
