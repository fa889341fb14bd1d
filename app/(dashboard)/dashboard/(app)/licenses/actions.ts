"use server";

import { revalidatePath } from "next/cache";
import { notFound, redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { complimentaryInputSchema, issueComplimentaryLicense, sellerReleaseMachine, sellerSetLicenseStatus } from "@/lib/dashboard/licenses";
import { AppError } from "@/lib/http/errors";
import { licenseDetail, restoreReleasedMachine } from "@/lib/seller-api/licenses";
import type { ActionResult } from "@/components/licenses/confirm-undo";
import { appErrorMessage, formText, formValues, isNotFound, refused, zodFieldErrors, type FormState } from "@/components/dashboard/form-state";

const licensePath = (id: string) => `/dashboard/licenses/${encodeURIComponent(id)}`;

function revalidateLicenses(id?: string) {
  revalidatePath("/dashboard/licenses");
  if (id) revalidatePath(licensePath(id));
}

export async function issueComplimentaryAction(_prev: FormState, fd: FormData): Promise<FormState> {
  const { developer, email } = await requireSeller();
  const values = formValues(fd, ["product_id", "buyer_email", "max_machines"]);
  const seats = String(values.max_machines).trim();
  const parsed = complimentaryInputSchema.safeParse(
    {
      product_id: values.product_id,
      buyer_email: String(values.buyer_email).trim(),
      max_machines: seats === "" ? undefined : /^\d{1,4}$/.test(seats) ? Number(seats) : Number.NaN,
    },
    { reportInput: true },
  );
  if (!parsed.success) {
    const errors = zodFieldErrors(parsed.error, { numeric: new Set(["max_machines"]) });
    if (errors.product_id) errors.product_id = ["Choose one of your products."];
    return refused(values, errors);
  }
  let licenseId: string;
  try {
    licenseId = (await issueComplimentaryLicense(developer.id, parsed.data, Date.now(), { type: "seller", name: email })).id;
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    if (error.status === 404) return refused(values, { product_id: ["Choose one of your products."] });
    return refused(values, {}, appErrorMessage(error));
  }
  revalidateLicenses();
  revalidatePath("/dashboard", "layout");
  redirect(`${licensePath(licenseId)}?notice=license-issued`);
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and coerced here.
export async function releaseMachineAction(rawLicenseId: unknown, rawActivationId: unknown): Promise<void> {
  const licenseId = String(rawLicenseId);
  const { developer, email } = await requireSeller();
  let released: boolean;
  try {
    released = (await sellerReleaseMachine(developer.id, licenseId, String(rawActivationId), { type: "seller", name: email })).deactivated;
  } catch (error) {
    // Released a moment ago (a second click, another tab): say so instead of a 404.
    if (error instanceof AppError && error.code === "activation_not_found") released = false;
    else if (isNotFound(error)) notFound();
    else throw error;
  }
  revalidateLicenses(licenseId);
  redirect(`${licensePath(licenseId)}?${released ? "notice=machine-released" : "error=not-activated"}`);
}

/** Revoke (with an optional reason from the form) or reinstate. */
export async function setLicenseStatusAction(rawLicenseId: unknown, active: unknown, fd: FormData): Promise<void> {
  const licenseId = String(rawLicenseId);
  const { developer, email } = await requireSeller();
  const reason = active ? undefined : formText(fd, "reason").replace(/\s+/g, " ").trim().slice(0, 200) || undefined;
  try {
    await sellerSetLicenseStatus(developer.id, licenseId, active === true, reason, { type: "seller", name: email });
  } catch (error) {
    if (isNotFound(error)) notFound();
    throw error;
  }
  revalidateLicenses(licenseId);
  redirect(`${licensePath(licenseId)}?notice=${active ? "license-reinstated" : "license-revoked"}`);
}

// The confirm/undo flow with JavaScript (components/licenses/confirm-undo.tsx): the same changes as the forms above,
// answering a message instead of redirecting, so the page can offer "Undo" for a few seconds.

function failure(error: unknown): ActionResult {
  if (error instanceof AppError && error.status < 500) return { ok: false, message: appErrorMessage(error) };
  throw error;
}

export async function releaseMachineNowAction(rawLicenseId: unknown, rawActivationId: unknown): Promise<ActionResult> {
  const licenseId = String(rawLicenseId);
  const { developer, email } = await requireSeller();
  try {
    const done = await sellerReleaseMachine(developer.id, licenseId, String(rawActivationId), { type: "seller", name: email });
    revalidateLicenses(licenseId);
    return done.deactivated
      ? { ok: true, message: "Machine released; its seat is free." }
      : { ok: false, message: "This machine was already released." };
  } catch (error) {
    return failure(error);
  }
}

export async function restoreMachineNowAction(rawLicenseId: unknown, rawActivationId: unknown): Promise<ActionResult> {
  const licenseId = String(rawLicenseId);
  const { developer, email } = await requireSeller();
  try {
    await licenseDetail(developer.id, licenseId);
    await restoreReleasedMachine(licenseId, String(rawActivationId), { type: "seller", name: email });
    revalidateLicenses(licenseId);
    return { ok: true, message: "Release undone: the machine is back." };
  } catch (error) {
    return failure(error);
  }
}

export async function setLicenseStatusNowAction(rawLicenseId: unknown, active: unknown, fd?: FormData): Promise<ActionResult> {
  const licenseId = String(rawLicenseId);
  const { developer, email } = await requireSeller();
  const reason = active || !fd ? undefined : formText(fd, "reason").replace(/\s+/g, " ").trim().slice(0, 200) || undefined;
  try {
    await sellerSetLicenseStatus(developer.id, licenseId, active === true, reason, { type: "seller", name: email });
    revalidateLicenses(licenseId);
    return { ok: true, message: active === true ? "License reinstated." : "License revoked." };
  } catch (error) {
    return failure(error);
  }
}
