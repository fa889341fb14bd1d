"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { AppError } from "@/lib/http/errors";
import { replyToReview } from "@/lib/reviews/respond";
import { replyBodySchema, reviewIdSchema } from "@/lib/reviews/schemas";
import { appErrorMessage, formText, formValues, refused, zodFieldErrors, type FormState } from "@/components/dashboard/form-state";

/** "Post reply" under a review: the session decides whose products' reviews may be answered; another's is "not found". */
export async function replyAction(_prev: FormState, fd: FormData): Promise<FormState> {
  const { developer } = await requireSeller();
  const values = formValues(fd, ["reply"]);
  const id = reviewIdSchema.safeParse(formText(fd, "review_id"));
  const parsed = replyBodySchema.safeParse({ reply: values.reply }, { reportInput: true });
  if (!id.success) return refused(values, {}, "That review is not one of yours.");
  if (!parsed.success) return refused(values, zodFieldErrors(parsed.error));
  try {
    await replyToReview(developer.id, id.data, parsed.data.reply);
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    return refused(values, {}, error.status === 404 ? "That review is not one of yours." : appErrorMessage(error));
  }
  revalidatePath("/dashboard/reviews");
  redirect(`/dashboard/reviews?done=replied#review-${id.data}`);
}
