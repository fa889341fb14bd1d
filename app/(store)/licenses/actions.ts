"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, idOf, runOperation, textOf } from "@/lib/transports/action";
import type { ActionResult } from "@/components/licenses/confirm-undo";
import type { AppError } from "@/lib/http/errors";
import { buyerRefusal, refusalMessage, sessionEnded } from "./_lib/action-outcome";
import type { ErrorCode, NoticeCode } from "./messages";

// Each action runs the buyer's operation (lib/operations/buyer.ts) through the registry: the My licenses session,
// same-origin writes and the per-buyer limit are execute()'s. Only the session's e-mail decides whose licenses these
// are: the ids merely name one of them, and the operation answers 404 for anything that is not the buyer's.

const GONE = "That machine is not on this license any more.";

/** Where the form without JavaScript comes back to: the page with a code it words (./messages.ts). */
function afterRelease(outcome: Awaited<ReturnType<typeof runOperation>>): string {
  if (outcome.ok) return `/licenses?notice=${"released" satisfies NoticeCode}`;
  const problem = buyerRefusal(outcome.problem);
  // A machine named wrongly, released meanwhile or not the buyer's is all one to them: it is not on their licenses.
  if (problem.status === 400 || problem.status === 404) return `/licenses?notice=${"release_not_found" satisfies NoticeCode}`;
  if (problem.status === 429) return `/licenses?error=${"too_many_attempts" satisfies ErrorCode}`;
  return "/licenses?error=failed";
}

/** "Release this machine" without JavaScript: the plain form posts the license's and the machine's ids. */
export async function releaseMachine(form: unknown): Promise<void> {
  const fd = formOf(form);
  const outcome = await runOperation("buyerReleaseMachine", { params: { id: textOf(fd, "license_id"), machine_id: textOf(fd, "activation_id") } });
  revalidatePath("/licenses");
  redirect(afterRelease(outcome));
}

// The confirm/undo flow with JavaScript (components/licenses/confirm-undo.tsx): the release above, answering a
// message instead of redirecting, and its undo. Bound arguments arrive as sent: typed `unknown` and checked.

export async function releaseMachineNow(rawLicenseId: unknown, rawActivationId: unknown): Promise<ActionResult> {
  const params = { id: idOf(rawLicenseId), machine_id: idOf(rawActivationId) };
  const outcome = await runOperation("buyerReleaseMachine", { params });
  if (outcome.ok) {
    revalidatePath("/licenses");
    return { ok: true, message: "Machine released. Its seat is free." };
  }
  const problem = outcome.problem;
  if (sessionEnded(problem)) return { ok: false, message: "Your session has ended. Sign in again to release a machine." };
  return { ok: false, message: problem.status === 400 || problem.status === 404 ? GONE : refusalMessage(problem) };
}

export async function restoreMachineNow(rawLicenseId: unknown, rawActivationId: unknown): Promise<ActionResult> {
  const params = { id: idOf(rawLicenseId), machine_id: idOf(rawActivationId) };
  const outcome = await runOperation("buyerRestoreMachine", { params });
  if (outcome.ok) {
    revalidatePath("/licenses");
    return { ok: true, message: "Release undone: the machine is back." };
  }
  const problem = outcome.problem;
  if (sessionEnded(problem)) return { ok: false, message: "Your session has ended. Sign in again." };
  if (problem.code === "license_not_found" || problem.status === 400) return { ok: false, message: "That license is not yours." };
  return { ok: false, message: refusalMessage(problem) };
}

// A subscription's forms (components/licenses/subscription-panel.tsx): each posts the subscription's id and comes back
// to the page with a code it words.

async function subscriptionStep(
  id: "buyerCancelSubscription" | "buyerResumeSubscription" | "buyerSetTestCard",
  form: unknown,
  done: NoticeCode,
): Promise<never> {
  const fd = formOf(form);
  const card = textOf(fd, "card");
  const outcome = await runOperation(id, { params: { id: textOf(fd, "subscription_id") }, ...(id === "buyerSetTestCard" ? { body: { card } } : {}) });
  revalidatePath("/licenses");
  if (outcome.ok) redirect(`/licenses?notice=${done}`);
  const problem = buyerRefusal(outcome.problem);
  if (problem.status === 429) redirect(`/licenses?error=${"too_many_attempts" satisfies ErrorCode}`);
  if (problem.status === 409 || problem.status === 404) redirect(`/licenses?notice=${"subscription_unchanged" satisfies NoticeCode}`);
  redirect("/licenses?error=failed");
}

export async function cancelSubscription(form: unknown): Promise<void> {
  await subscriptionStep("buyerCancelSubscription", form, "subscription_canceled");
}

export async function resumeSubscription(form: unknown): Promise<void> {
  await subscriptionStep("buyerResumeSubscription", form, "subscription_resumed");
}

export async function setTestCard(form: unknown): Promise<void> {
  await subscriptionStep("buyerSetTestCard", form, "subscription_card_changed");
}

/** The plan the change form names: an interval and a seat count, as typed (the operation parses them). */
function planOf(fd: FormData) {
  const quantity = textOf(fd, "quantity");
  const interval = textOf(fd, "interval");
  return { ...(interval ? { interval } : {}), ...(quantity ? { quantity: /^\d{1,3}$/.test(quantity) ? Number(quantity) : quantity } : {}) };
}

/** Where a refused plan change comes back to: a code the page words. */
function planRefusal(problem: AppError): never {
  const p = buyerRefusal(problem);
  if (p.status === 429) redirect(`/licenses?error=${"too_many_attempts" satisfies ErrorCode}`);
  const code = p.code;
  const notice: NoticeCode =
    code === "amount_changed"
      ? "plan_amount_changed"
      : code === "payment_declined"
        ? "plan_payment_declined"
        : code === "plan_unchanged"
          ? "plan_unchanged"
          : p.status === 400
            ? "plan_invalid"
            : "subscription_unchanged";
  redirect(`/licenses?notice=${notice}`);
}

/**
 * "Preview change": the plan the buyer chose, priced (prorated) without changing anything; the page then shows the
 * amount and asks to confirm it.
 */
export async function previewPlanChange(form: unknown): Promise<void> {
  const fd = formOf(form);
  const id = textOf(fd, "subscription_id");
  const outcome = await runOperation<{ change: { interval: string; quantity: number } }>("buyerPreviewPlanChange", {
    params: { id },
    body: planOf(fd),
  });
  if (!outcome.ok) planRefusal(outcome.problem);
  const change = outcome.output.change;
  const q = new URLSearchParams({ plan: id, interval: change.interval, quantity: String(change.quantity) });
  redirect(`/licenses?${q.toString()}#subscription-${id}`);
}

/** "Confirm change": the change at the amount the buyer saw (expected_amount_cents), or nothing. */
export async function changePlan(form: unknown): Promise<void> {
  const fd = formOf(form);
  const expected = textOf(fd, "expected_amount_cents");
  const outcome = await runOperation("buyerChangePlan", {
    params: { id: textOf(fd, "subscription_id") },
    body: { ...planOf(fd), expected_amount_cents: /^-?\d{1,9}$/.test(expected) ? Number(expected) : expected },
  });
  revalidatePath("/licenses");
  if (!outcome.ok) planRefusal(outcome.problem);
  redirect(`/licenses?notice=${"plan_changed" satisfies NoticeCode}`);
}

/** "Card and invoices": Stripe's customer portal for a subscription Stripe bills. */
export async function openBillingPortal(form: unknown): Promise<void> {
  const fd = formOf(form);
  const outcome = await runOperation<{ url: string }>("buyerOpenBillingPortal", { params: { id: textOf(fd, "subscription_id") } });
  if (!outcome.ok) planRefusal(outcome.problem);
  redirect(outcome.output.url);
}
