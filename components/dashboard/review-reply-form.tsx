"use client";

import { REVIEW_LIMITS } from "@/lib/reviews/limits";
import { ActionForm, SubmitButton, TextAreaField } from "./form-fields";
import type { FormState } from "./form-state";

/** The seller's one public reply under a review; final once posted, which the hint says before sending. */
export function ReviewReplyForm({ action, reviewId }: { action: (state: FormState, formData: FormData) => Promise<FormState>; reviewId: string }) {
  return (
    <ActionForm action={action} prefix={`reply-${reviewId}`} labels={{ reply: "Your reply" }} label="Reply to this review" className="space-y-3">
      <input type="hidden" name="review_id" value={reviewId} />
      <TextAreaField
        name="reply"
        label="Your reply"
        rows={3}
        required
        maxLength={REVIEW_LIMITS.reply}
        hint="Shown publicly under the review. You can reply once, and the reply cannot be changed afterwards."
      />
      <SubmitButton pendingLabel="Posting…">Post reply</SubmitButton>
    </ActionForm>
  );
}
