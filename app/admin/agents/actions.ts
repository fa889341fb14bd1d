"use server";

import { randomUUID } from "node:crypto";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import {
  platformNameSchema,
  registerAgentPlatform,
  revokeAgentPlatform,
  rotateAgentPlatformSecret,
  setAgentPlatformWebhook,
  webhookUrlSchema,
} from "@/lib/acp/platforms";
import { reasonBodySchema } from "@/lib/admin/schemas";
import { requireAdmin } from "@/lib/admin/session";
import { AppError } from "@/lib/http/errors";
import { kickWebhooks } from "@/lib/webhooks/deliver";
import { retryWebhookDelivery } from "@/lib/webhooks/deliveries";

// Every action checks the operator itself (a server action is its own endpoint); Next checks the Origin of every
// action post. Keys and secrets travel only in the action's own answer to the operator's browser, never in a URL.

const BACK = "/admin/agents";
const idSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/);
const deliveryIdSchema = z.string().regex(/^[a-z0-9]{10,40}$/);

const text = (fd: FormData, name: string) => {
  const v = fd.get(name);
  return typeof v === "string" ? v : "";
};

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

/** Redirects back with a known notice, or (for a refusal) a known error code the page words itself. */
async function run(notice: string, act: () => Promise<unknown>): Promise<never> {
  try {
    await act();
  } catch (error) {
    if (error instanceof AppError && error.status < 500)
      redirect(
        `${BACK}?error=${encodeURIComponent(error.status === 400 ? (error.code === "invalid_webhook_url" ? error.code : "invalid") : error.code)}`,
      );
    throw error;
  }
  revalidatePath(BACK);
  redirect(`${BACK}?notice=${notice}`);
}

export async function registerPlatformAction(_prev: SecretState, fd: FormData): Promise<SecretState> {
  const admin = await requireAdmin();
  const values = { name: text(fd, "name").slice(0, 100), webhook_url: text(fd, "webhook_url").slice(0, 2000) };
  const nonce = randomUUID();
  const name = platformNameSchema.safeParse(values.name);
  if (!name.success) return { error: "Give the platform a name of 2 to 100 characters on one line.", values, nonce };
  const rawUrl = values.webhook_url.trim();
  const url = rawUrl ? webhookUrlSchema.safeParse(rawUrl) : null;
  if (url && !url.success) return { error: `The webhook URL ${url.error.issues[0]?.message ?? "is invalid"}.`, values, nonce };
  const made = await registerAgentPlatform(admin, { name: name.data, webhook_url: url?.data ?? null });
  revalidatePath(BACK);
  return { name: made.platform.name, apiKey: made.api_key, webhookSecret: made.webhook_secret };
}

export async function rotateSecretAction(_prev: SecretState, fd: FormData): Promise<SecretState> {
  const admin = await requireAdmin();
  const id = idSchema.safeParse(text(fd, "id"));
  if (!id.success) return { error: "That platform does not exist." };
  try {
    const rotated = await rotateAgentPlatformSecret(admin, id.data);
    revalidatePath(BACK);
    return { name: rotated.platform.name, webhookSecret: rotated.webhook_secret };
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return { error: error.detail };
    throw error;
  }
}

export async function setWebhookAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  await run("webhook-updated", async () => {
    const id = idSchema.safeParse(text(fd, "id"));
    const raw = text(fd, "webhook_url").trim();
    const url = raw ? webhookUrlSchema.safeParse(raw) : null;
    if (!id.success || (url && !url.success)) throw new AppError("invalid_webhook_url", 400, "invalid webhook URL");
    await setAgentPlatformWebhook(admin, id.data, url?.data ?? null);
  });
}

export async function revokePlatformAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  await run("platform-revoked", async () => {
    const id = idSchema.safeParse(text(fd, "id"));
    const body = reasonBodySchema.safeParse({ reason: text(fd, "reason") });
    if (!id.success || !body.success) throw new AppError("invalid", 400, "invalid form");
    await revokeAgentPlatform(admin, id.data, body.data.reason);
  });
}

export async function retryDeliveryAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  await run("delivery-retried", async () => {
    const id = deliveryIdSchema.safeParse(text(fd, "id"));
    if (!id.success) throw new AppError("invalid", 400, "invalid form");
    await retryWebhookDelivery(admin, id.data);
    kickWebhooks();
  });
}
