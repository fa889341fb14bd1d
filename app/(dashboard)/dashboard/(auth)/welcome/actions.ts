"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, runOperation } from "@/lib/transports/action";
import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { appErrorMessage, problemRefusal, refused, type FormState } from "@/components/dashboard/form-state";
import { profileForm } from "@/components/dashboard/profile-form-data";

export async function createProfileAction(_prev: FormState, form: unknown): Promise<FormState> {
  const { values, body } = profileForm(formOf(form));
  const outcome = await runOperation("createSellerProfile", { body });
  if (!outcome.ok) {
    // Made meanwhile (another tab, a second click): the dashboard is where this seller belongs.
    if (outcome.problem.code === "profile_exists") redirect("/dashboard");
    const problem = sellerRefusal(outcome.problem);
    if (problem.code === "profile_id_taken") return refused(values, { name: [problem.detail] }, appErrorMessage(problem));
    return problemRefusal(problem, values, { sent: body });
  }
  revalidatePath("/dashboard", "layout");
  redirect("/dashboard?notice=welcome");
}
