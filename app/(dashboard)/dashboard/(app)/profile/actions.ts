"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, runOperation } from "@/lib/transports/action";
import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { formValues, problemRefusal, type FormState } from "@/components/dashboard/form-state";
import { profileForm } from "@/components/dashboard/profile-form-data";

export async function updateProfileAction(_prev: FormState, form: unknown): Promise<FormState> {
  const { values, body } = profileForm(formOf(form));
  const outcome = await runOperation("updateSellerProfile", { body });
  // Emptying what listed paid products show is refused with the fields it concerns marked, the reason on top.
  if (!outcome.ok) return problemRefusal(sellerRefusal(outcome.problem), values, { sent: body });
  // The name is on every product page and in the catalog; the support fields on every product page.
  revalidatePath("/", "layout");
  redirect("/dashboard/profile?notice=profile-saved");
}

/** The seller's sale e-mails: each sale, a daily digest, or none (setSellerSaleEmails). */
export async function saleEmailsAction(_prev: FormState, form: unknown): Promise<FormState> {
  const values = formValues(formOf(form), ["sale_emails"]);
  const body = { sale_emails: String(values.sale_emails ?? "") };
  const outcome = await runOperation("setSellerSaleEmails", { body });
  if (!outcome.ok) return problemRefusal(sellerRefusal(outcome.problem), values, { sent: body });
  revalidatePath("/dashboard/profile");
  redirect("/dashboard/profile?notice=sale-emails-saved#sale-emails");
}
