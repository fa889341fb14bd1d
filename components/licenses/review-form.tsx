"use client";

import { ActionForm, ChoiceGroup, SubmitButton, TextAreaField, TextField } from "@/components/dashboard/form-fields";
import type { FormState } from "@/components/dashboard/form-state";
import { DEFAULT_AUTHOR_NAME, REVIEW_LIMITS } from "@/lib/reviews/limits";

const RATINGS = [
  { value: "5", label: "5 stars", description: "Excellent" },
  { value: "4", label: "4 stars", description: "Good" },
  { value: "3", label: "3 stars", description: "Fair" },
  { value: "2", label: "2 stars", description: "Poor" },
  { value: "1", label: "1 star", description: "Bad" },
] as const;

const LABELS = { rating: "Your rating", title: "Title", body: "Your review", author_name: "Name shown" } as const;

/**
 * The buyer's review of one license's product: stars, an optional title and text, and the name to show (a neutral
 * default, never the e-mail address). Writes it or changes it; works without JavaScript.
 */
export function ReviewForm({
  action,
  licenseId,
  productName,
  review,
}: {
  action: (state: FormState, formData: FormData) => Promise<FormState>;
  licenseId: string;
  productName: string;
  review: { rating: number; title: string; body: string; authorName: string } | null;
}) {
  return (
    <ActionForm action={action} prefix={`review-${licenseId}`} labels={LABELS} label={`Review of ${productName}`} className="space-y-4">
      <input type="hidden" name="license_id" value={licenseId} />
      <ChoiceGroup
        name="rating"
        legend={LABELS.rating}
        type="radio"
        options={RATINGS}
        defaultValue={review ? String(review.rating) : ""}
        columns="grid-cols-2 sm:grid-cols-5"
      />
      <TextField name="title" label={LABELS.title} optional defaultValue={review?.title ?? ""} maxLength={REVIEW_LIMITS.title} />
      <TextAreaField
        name="body"
        label={LABELS.body}
        optional
        rows={4}
        defaultValue={review?.body ?? ""}
        maxLength={REVIEW_LIMITS.body}
        hint={`What worked and what did not, up to ${REVIEW_LIMITS.body.toLocaleString("en-US")} characters.`}
      />
      <TextField
        name="author_name"
        label={LABELS.author_name}
        defaultValue={review?.authorName ?? DEFAULT_AUTHOR_NAME}
        maxLength={REVIEW_LIMITS.authorName}
        autoComplete="off"
        hint="Shown with your review. Your e-mail address is never shown."
      />
      <SubmitButton pendingLabel="Saving…">{review ? "Save changes" : "Post review"}</SubmitButton>
    </ActionForm>
  );
}
