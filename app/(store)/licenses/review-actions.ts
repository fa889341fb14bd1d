"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, runOperation, textOf } from "@/lib/transports/action";
import { formValues, problemFieldErrors, refused, type FormState } from "@/components/dashboard/form-state";
import { buyerRefusal, refusalMessage } from "./_lib/action-outcome";
import type { NoticeCode } from "./messages";

const FIELDS = ["rating", "title", "body", "author_name"] as const;

/** The stars as a number: none chosen is left out (the operation says it is required), anything else as typed. */
function ratingOf(text: string): number | undefined {
  return text === "" ? undefined : /^\d+$/.test(text) ? Number(text) : Number.NaN;
}

const RATING: ReadonlySet<string> = new Set(["rating"]);

/** The review form's own words: the stars whatever was wrong with them, and plain words for characters that are not text. */
function word(issue: { field: string; message: string }, message: string): string {
  if (issue.field === "rating") return "Choose from 1 to 5 stars.";
  if (issue.message.startsWith("must not contain control characters")) return "Remove the special characters this text contains.";
  return message;
}

/**
 * "Post review" / "Save changes" on My licenses, through the buyer's operation (lib/operations/buyer.ts). Only the
 * session's e-mail decides whose license it is: the form's license id merely names one of theirs (anything else is
 * "not found"). A refusal keeps what the buyer typed, with each problem next to its field.
 */
export async function saveReview(_prev: FormState, form: unknown): Promise<FormState> {
  const fd = formOf(form);
  const values = formValues(fd, FIELDS);
  const sent = {
    license_id: textOf(fd, "license_id"),
    rating: ratingOf(textOf(fd, "rating")),
    title: textOf(fd, "title"),
    body: textOf(fd, "body"),
    author_name: textOf(fd, "author_name"),
  };
  const outcome = await runOperation<{ created: boolean }>("buyerSaveReview", { body: sent });
  if (!outcome.ok) {
    const problem = buyerRefusal(outcome.problem);
    const errors = problem.status === 400 ? problemFieldErrors(problem, { sent, numeric: RATING, word }) : {};
    // The license id is the page's, not typed: a bad one is a license the buyer does not have.
    if (errors.license_id) return refused(values, {}, "You have no such license.");
    return Object.keys(errors).length ? refused(values, errors) : refused(values, {}, refusalMessage(problem));
  }
  revalidatePath("/licenses");
  redirect(`/licenses?notice=${(outcome.output.created ? "review_posted" : "review_saved") satisfies NoticeCode}`);
}
