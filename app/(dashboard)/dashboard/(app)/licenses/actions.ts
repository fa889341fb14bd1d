"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { AppError } from "@/lib/http/errors";
import { badArguments, formOf, idempotencyKeyOf, idOf, runOperation, textOf } from "@/lib/transports/action";
import { refusalNotice, sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import type { ActionResult } from "@/components/licenses/confirm-undo";
import { appErrorMessage, formValues, problemRefusal, refused, type FormState } from "@/components/dashboard/form-state";

const licensePath = (id: string) => `/dashboard/licenses/${encodeURIComponent(id)}`;

function revalidateLicenses(id?: string) {
  revalidatePath("/dashboard/licenses");
  if (id) revalidatePath(licensePath(id));
}

const PRODUCT = "Choose one of your products.";

/** A whole number of seats from the form; undefined when empty (the product's usual number), NaN when not one. */
function seats(text: string): number | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  return /^\d{1,4}$/.test(t) ? Number(t) : Number.NaN;
}

export async function issueComplimentaryAction(_prev: FormState, form: unknown): Promise<FormState> {
  const fd = formOf(form);
  const values = formValues(fd, ["product_id", "buyer_email", "max_machines"]);
  const body = { product_id: values.product_id, buyer_email: String(values.buyer_email).trim(), max_machines: seats(String(values.max_machines)) };
  const outcome = await runOperation<{ license: { id: string } }>("issueComplimentaryLicense", { body, idempotencyKey: idempotencyKeyOf(fd) });
  if (!outcome.ok) {
    // Not one of theirs (or gone): the product field's problem, not the 404 page.
    if (outcome.problem.status === 404) return refused(values, { product_id: [PRODUCT] });
    const word = (issue: { field: string }, message: string) => (issue.field === "product_id" ? PRODUCT : message);
    return problemRefusal(sellerRefusal(outcome.problem), values, { sent: body, numeric: new Set(["max_machines"]), word });
  }
  revalidateLicenses();
  revalidatePath("/dashboard", "layout");
  redirect(`${licensePath(outcome.output.license.id)}?notice=license-issued`);
}

/** Whether the call is to reinstate (true) or revoke (false): a bound boolean, or a 400. */
function activeOf(value: unknown): boolean {
  if (typeof value !== "boolean") badArguments("This action takes true (reinstate) or false (revoke).");
  return value;
}

/** Revoke (with the reason the form gives, on one line) or reinstate. */
function setStatus(licenseId: string, active: boolean, fd: FormData | undefined) {
  if (active) return runOperation("reinstateLicense", { params: { id: licenseId } });
  const reason = fd ? textOf(fd, "reason").replace(/\s+/g, " ").trim().slice(0, 200) : "";
  return runOperation("revokeLicense", { params: { id: licenseId }, body: reason ? { reason } : {} });
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and checked by the operation.
export async function releaseMachineAction(rawLicenseId: unknown, rawActivationId: unknown): Promise<void> {
  const licenseId = idOf(rawLicenseId);
  const outcome = await runOperation("releaseMachine", { params: { id: licenseId, machine_id: idOf(rawActivationId) } });
  // Released a moment ago (a second click, another tab): said so instead of the 404 page.
  const gone = !outcome.ok && outcome.problem.code === "activation_not_found";
  const error = outcome.ok || gone ? null : refusalNotice(sellerRefusal(outcome.problem));
  revalidateLicenses(licenseId);
  redirect(`${licensePath(licenseId)}?${outcome.ok ? "notice=machine-released" : `error=${gone ? "not-activated" : error}`}`);
}

/** Revoke (with an optional reason from the form) or reinstate. */
export async function setLicenseStatusAction(rawLicenseId: unknown, rawActive: unknown, form: unknown): Promise<void> {
  const licenseId = idOf(rawLicenseId);
  const active = activeOf(rawActive);
  const outcome = await setStatus(licenseId, active, formOf(form));
  if (!outcome.ok) redirect(`${licensePath(licenseId)}?error=${refusalNotice(sellerRefusal(outcome.problem))}`);
  revalidateLicenses(licenseId);
  redirect(`${licensePath(licenseId)}?notice=${active ? "license-reinstated" : "license-revoked"}`);
}

// The confirm/undo flow with JavaScript (components/licenses/confirm-undo.tsx): the same changes as the forms above,
// answering a message instead of redirecting, so the page can offer "Undo" for a few seconds.

/** A refusal in words for the confirm/undo flow; without a session it goes to sign in, as the forms do. */
function failure(problem: AppError): ActionResult {
  if (problem.status === 401 || problem.code === "no_developer_profile") sellerRefusal(problem);
  return { ok: false, message: appErrorMessage(problem) };
}

export async function releaseMachineNowAction(rawLicenseId: unknown, rawActivationId: unknown): Promise<ActionResult> {
  const licenseId = idOf(rawLicenseId);
  const outcome = await runOperation("releaseMachine", { params: { id: licenseId, machine_id: idOf(rawActivationId) } });
  if (!outcome.ok)
    return outcome.problem.code === "activation_not_found" ? { ok: false, message: "This machine was already released." } : failure(outcome.problem);
  revalidateLicenses(licenseId);
  return { ok: true, message: "Machine released; its seat is free." };
}

export async function restoreMachineNowAction(rawLicenseId: unknown, rawActivationId: unknown): Promise<ActionResult> {
  const licenseId = idOf(rawLicenseId);
  const outcome = await runOperation("restoreMachine", { params: { id: licenseId, machine_id: idOf(rawActivationId) } });
  if (!outcome.ok) return failure(outcome.problem);
  revalidateLicenses(licenseId);
  return { ok: true, message: "Release undone: the machine is back." };
}

export async function setLicenseStatusNowAction(rawLicenseId: unknown, rawActive: unknown, form?: unknown): Promise<ActionResult> {
  const licenseId = idOf(rawLicenseId);
  const active = activeOf(rawActive);
  // The undo of a revocation (a reinstatement) is bound without a form.
  const outcome = await setStatus(licenseId, active, form === undefined ? undefined : formOf(form));
  if (!outcome.ok) return failure(outcome.problem);
  revalidateLicenses(licenseId);
  return { ok: true, message: active ? "License reinstated." : "License revoked." };
}
