"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { currentBuyer } from "@/lib/auth/next-session";
import { AppError } from "@/lib/http/errors";
import { hasControlCharacter } from "@/lib/http/input";
import { reviewContentSchema } from "@/lib/reviews/schemas";
import { submitReview } from "@/lib/reviews/submit-review";
import { formText, formValues, refused, zodFieldErrors, type FormState } from "@/components/dashboard/form-state";
import type { ErrorCode, NoticeCode } from "./messages";

const FIELDS = ["rating", "title", "body", "author_name"] as const;

/**
 * "Post review" / "Save changes" on My licenses. Only the session's e-mail decides whose license it is: the form's
 * license id merely names one of theirs (anything else is "not found"). A refusal keeps what the buyer typed.
 */
export async function saveReview(_prev: FormState, fd: FormData): Promise<FormState> {
  const buyer = await currentBuyer();
  if (!buyer) redirect(`/licenses?error=${"session_ended" satisfies ErrorCode}`);
  const values = formValues(fd, FIELDS);
  const licenseId = formText(fd, "license_id").slice(0, 64);
  const rating = String(values.rating);
  const parsed = reviewContentSchema.safeParse(
    {
      rating: /^[1-5]$/.test(rating) ? Number(rating) : rating === "" ? undefined : Number.NaN,
      title: values.title,
      body: values.body,
      author_name: values.author_name,
    },
    { reportInput: true },
  );
  if (!parsed.success) {
    const errors = zodFieldErrors(parsed.error);
    if (errors.rating) errors.rating = ["Choose from 1 to 5 stars."];
    // Where the text holds a character that is not text, say so plainly.
    for (const f of ["title", "body", "author_name"] as const)
      if (errors[f] && hasControlCharacter(String(values[f]), f === "body")) errors[f] = ["Remove the special characters this text contains."];
    return refused(values, errors);
  }
  let created: boolean;
  try {
    created = (await submitReview({ licenseId, buyerEmail: buyer.email }, parsed.data)).created;
  } catch (error) {
    if (error instanceof AppError && error.status < 500)
      return refused(values, {}, error.status === 429 ? "Too many attempts in a short time. Wait a minute and try again." : error.detail);
    throw error;
  }
  revalidatePath("/licenses");
  redirect(`/licenses?notice=${(created ? "review_posted" : "review_saved") satisfies NoticeCode}`);
}
