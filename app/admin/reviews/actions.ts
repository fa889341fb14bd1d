"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, runOperation, textOf, type ActionCall } from "@/lib/transports/action";
import type { OperationId } from "@/lib/operations/index";
import { adminRefusal, refusalCode } from "../_lib/action-outcome";
import { reviewErrorCode, type ReviewNotice } from "./messages";

// Each action runs the operator's operation (lib/operations/reviews.ts) through the registry: the operator's session,
// same-origin writes and limits are execute()'s. The redirect target is a fixed path; a refusal goes back as a known
// code, never as text.

async function act(notice: ReviewNotice, id: OperationId, call: ActionCall): Promise<never> {
  const outcome = await runOperation(id, call);
  if (!outcome.ok) redirect(`/admin/reviews?error=${reviewErrorCode(refusalCode(adminRefusal(outcome.problem)))}`);
  revalidatePath("/", "layout");
  redirect(`/admin/reviews?notice=${notice}`);
}

export async function hideReviewAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  await act("review-hidden", "hideReview", { params: { id: textOf(fd, "id") }, body: { reason: textOf(fd, "reason") } });
}

export async function unhideReviewAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  // The note for the audit log is optional: left out when empty.
  await act("review-shown", "unhideReview", { params: { id: textOf(fd, "id") }, body: { note: textOf(fd, "reason") || undefined } });
}
