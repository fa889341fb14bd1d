"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { updateDeveloperProfile } from "@/lib/dashboard/developer-profile";
import type { FormState } from "@/components/dashboard/form-state";
import { readProfileForm } from "../../../_lib/profile-form-data";

export async function updateProfileAction(_prev: FormState, fd: FormData): Promise<FormState> {
  const { developer } = await requireSeller();
  const form = readProfileForm(fd);
  if (!form.ok) return form.state;
  await updateDeveloperProfile(developer.id, form.input);
  // The name is on every product page and in the catalog.
  revalidatePath("/", "layout");
  redirect("/dashboard/profile?notice=profile-saved");
}
