"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, runOperation, textOf } from "@/lib/transports/action";
import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { formValues, problemRefusal, refused, type FormState } from "@/components/dashboard/form-state";

const NOT_YOURS = "That review is not one of yours.";

/** "Post reply" under a review: the session decides whose products' reviews may be answered; another's is "not found". */
export async function replyAction(_prev: FormState, form: unknown): Promise<FormState> {
  const fd = formOf(form);
  const values = formValues(fd, ["reply"]);
  const id = textOf(fd, "review_id");
  const body = { reply: values.reply };
  const outcome = await runOperation("replyToReview", { params: { id }, body });
  if (!outcome.ok) {
    // A review id that names no review of theirs (another seller's, or not an id at all): said on the form.
    if (outcome.problem.status === 404 || outcome.problem.code === "invalid_path") return refused(values, {}, NOT_YOURS);
    return problemRefusal(sellerRefusal(outcome.problem), values, { sent: body });
  }
  revalidatePath("/dashboard/reviews");
  redirect(`/dashboard/reviews?done=replied#review-${encodeURIComponent(id)}`);
}
