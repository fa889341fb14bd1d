"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { currentBuyer } from "@/lib/auth/next-session";
import { buyerReleaseMachine } from "@/lib/buyer/licenses";
import { getDb } from "@/lib/db";
import { AppError } from "@/lib/http/errors";
import { restoreReleasedMachine } from "@/lib/seller-api/licenses";
import type { ActionResult } from "@/components/licenses/confirm-undo";
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

// The confirm/undo flow with JavaScript (components/licenses/confirm-undo.tsx): the release above, answering a
// message instead of redirecting, and its undo. Bound arguments arrive as sent: typed `unknown`, coerced and bounded.

export async function releaseMachineNow(rawLicenseId: unknown, rawActivationId: unknown): Promise<ActionResult> {
  const buyer = await currentBuyer();
  if (!buyer) return { ok: false, message: "Your session has ended. Sign in again to release a machine." };
  try {
    const result = await buyerReleaseMachine(buyer.email, String(rawLicenseId).slice(0, ID_MAX), String(rawActivationId).slice(0, ID_MAX));
    revalidatePath("/licenses");
    return result.deactivated
      ? { ok: true, message: "Machine released. Its seat is free." }
      : { ok: false, message: "That machine is not on this license any more." };
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return { ok: false, message: "That machine is not on this license any more." };
    throw error;
  }
}

export async function restoreMachineNow(rawLicenseId: unknown, rawActivationId: unknown): Promise<ActionResult> {
  const buyer = await currentBuyer();
  if (!buyer) return { ok: false, message: "Your session has ended. Sign in again." };
  const licenseId = String(rawLicenseId).slice(0, ID_MAX);
  // Only the session's e-mail decides whose license this is.
  const own = await getDb().license.findFirst({ where: { id: licenseId, buyerEmail: buyer.email.toLowerCase() }, select: { id: true } });
  if (!own) return { ok: false, message: "That license is not yours." };
  try {
    await restoreReleasedMachine(own.id, String(rawActivationId).slice(0, ID_MAX), { type: "buyer", name: buyer.email.toLowerCase() });
    revalidatePath("/licenses");
    return { ok: true, message: "Release undone: the machine is back." };
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return { ok: false, message: error.detail };
    throw error;
  }
}
