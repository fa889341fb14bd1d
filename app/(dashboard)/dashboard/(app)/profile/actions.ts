"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { updateDeveloperProfile } from "@/lib/dashboard/developer-profile";
import { AppError } from "@/lib/http/errors";
import { appErrorMessage, refused, type FormState } from "@/components/dashboard/form-state";
import { profileFormValues, readProfileForm } from "../../../_lib/profile-form-data";

export async function updateProfileAction(_prev: FormState, fd: FormData): Promise<FormState> {
  const { developer } = await requireSeller();
  const form = readProfileForm(fd);
  if (!form.ok) return form.state;
  try {
    await updateDeveloperProfile(developer.id, form.input);
  } catch (error) {
    // Emptying what listed paid products show: refused, with the fields it concerns marked.
    if (!(error instanceof AppError) || error.code !== "seller_profile_incomplete") throw error;
    const errors = Object.fromEntries(
      (error.extra.errors ?? []).map((e) => [e.name, [`${e.message.charAt(0).toUpperCase()}${e.message.slice(1)}.`]]),
    );
    return refused(profileFormValues(fd), errors, appErrorMessage(error));
  }
  // The name is on every product page and in the catalog; the support fields on every product page.
  revalidatePath("/", "layout");
  redirect("/dashboard/profile?notice=profile-saved");
}
