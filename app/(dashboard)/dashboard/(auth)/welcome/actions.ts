"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { currentSeller } from "@/lib/auth/next-session";
import { createDeveloperProfile } from "@/lib/dashboard/developer-profile";
import { AppError } from "@/lib/http/errors";
import { appErrorMessage, refused, type FormState } from "@/components/dashboard/form-state";
import { profileFormValues, readProfileForm } from "../../../_lib/profile-form-data";

export async function createProfileAction(_prev: FormState, fd: FormData): Promise<FormState> {
  const seller = await currentSeller();
  if (!seller) redirect("/dashboard/sign-in");
  if (seller.developer) redirect("/dashboard");
  const form = readProfileForm(fd);
  if (!form.ok) return form.state;
  try {
    await createDeveloperProfile(seller.email, form.input);
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    if (error.code === "profile_exists") redirect("/dashboard");
    return refused(profileFormValues(fd), error.code === "profile_id_taken" ? { name: [error.detail] } : {}, appErrorMessage(error));
  }
  revalidatePath("/dashboard", "layout");
  redirect("/dashboard?notice=welcome");
}
