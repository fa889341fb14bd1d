"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { currentBuyer } from "@/lib/auth/next-session";
import { buyerReleaseMachine } from "@/lib/buyer/licenses";
import { AppError } from "@/lib/http/errors";
import type { ErrorCode, NoticeCode } from "./messages";

const ID_MAX = 64;

function field(formData: FormData, name: string): string {
  const value = formData.get(name);
  return typeof value === "string" ? value.trim().slice(0, ID_MAX) : "";
}

/**
 * "Release this machine". Only the session's e-mail decides whose licenses these are: the ids in the form merely
 * name one of them, and lib answers 404 for anything that is not the buyer's.
 */
export async function releaseMachine(formData: FormData): Promise<void> {
  const buyer = await currentBuyer();
  if (!buyer) redirect(`/licenses?error=${"session_ended" satisfies ErrorCode}`);

  const licenseId = field(formData, "license_id");
  const activationId = field(formData, "activation_id");
  let notice: NoticeCode = "released";
  if (!licenseId || !activationId) {
    notice = "release_not_found";
  } else {
    try {
      const result = await buyerReleaseMachine(buyer.email, licenseId, activationId);
      if (!result.deactivated) notice = "release_not_found";
    } catch (error) {
      if (error instanceof AppError && error.status === 404) notice = "release_not_found";
      else throw error;
    }
  }
  revalidatePath("/licenses");
  redirect(`/licenses?notice=${notice}`);
}
