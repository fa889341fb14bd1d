"use server";

import { revalidatePath } from "next/cache";
import { notFound, redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { complimentaryInputSchema, issueComplimentaryLicense, sellerReleaseMachine, sellerSetLicenseStatus } from "@/lib/dashboard/licenses";
import { AppError } from "@/lib/http/errors";
import { appErrorMessage, formText, formValues, isNotFound, refused, zodFieldErrors, type FormState } from "@/components/dashboard/form-state";

const licensePath = (id: string) => `/dashboard/licenses/${encodeURIComponent(id)}`;

function revalidateLicenses(id?: string) {
  revalidatePath("/dashboard/licenses");
  if (id) revalidatePath(licensePath(id));
}

export async function issueComplimentaryAction(_prev: FormState, fd: FormData): Promise<FormState> {
  const { developer } = await requireSeller();
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
    licenseId = (await issueComplimentaryLicense(developer.id, parsed.data)).id;
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
  const { developer } = await requireSeller();
  let released: boolean;
  try {
    released = (await sellerReleaseMachine(developer.id, licenseId, String(rawActivationId))).deactivated;
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
  const { developer } = await requireSeller();
  const reason = active ? undefined : formText(fd, "reason").replace(/\s+/g, " ").trim().slice(0, 200) || undefined;
  try {
    await sellerSetLicenseStatus(developer.id, licenseId, active === true, reason);
  } catch (error) {
    if (isNotFound(error)) notFound();
    throw error;
  }
  revalidateLicenses(licenseId);
  redirect(`${licensePath(licenseId)}?notice=${active ? "license-reinstated" : "license-revoked"}`);
}
