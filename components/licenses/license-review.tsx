import type { BuyerReviewState } from "@/lib/reviews/buyer";
import type { FormState } from "@/components/dashboard/form-state";
import { Stars, ratingText } from "@/components/store/rating-stars";
import { buttonSecondary } from "@/components/ui/styles";
import { formatDate } from "./format";
import { ReviewForm } from "./review-form";

/**
 * The review part of one license on My licenses: "Rate and review" while it has none, the review with "Edit your
 * review" once it has one, and the review alone (saying why) when the license can no longer change it.
 */
export function LicenseReview({
  state,
  licenseId,
  productName,
  action,
}: {
  /** None: this license never could review (a trial, a gift), and the card says nothing about reviews. */
  state: BuyerReviewState | undefined;
  licenseId: string;
  productName: string;
  action: (state: FormState, formData: FormData) => Promise<FormState>;
}) {
  if (!state) return null;
  const { review } = state;
  const headingId = `license-${licenseId}-review`;
  return (
    <section aria-labelledby={headingId} data-testid="license-review" className="border-t border-slate-200 px-5 py-5 sm:px-6">
      <h3 id={headingId} className="text-base font-semibold text-slate-900">
        {review ? "Your review" : "Rate and review"}
      </h3>
      {review ? (
        <div className="mt-3 rounded-xl border border-slate-200 bg-white p-4" data-testid="own-review">
          <p className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <Stars value={review.rating} />
            <span className="sr-only">{ratingText(review.rating)}</span>
            {review.title ? <span className="font-semibold break-words text-slate-900">{review.title}</span> : null}
          </p>
          {review.body ? <p className="mt-2 text-sm leading-6 break-words whitespace-pre-line text-slate-700">{review.body}</p> : null}
          <p className="mt-2 text-xs text-slate-600">
            As {review.authorName} · {review.editedAt ? `edited ${formatDate(review.editedAt)}` : `posted ${formatDate(review.createdAt)}`}
          </p>
          {review.hidden ? (
            <p className="mt-2 text-sm text-amber-900" data-testid="own-review-hidden">
              The marketplace operator hid this review from the product page
              {review.hiddenReason ? `: ${review.hiddenReason}` : "."}
            </p>
          ) : null}
          {review.sellerReply ? (
            <p className="mt-3 border-l-4 border-indigo-300 pl-3 text-sm leading-6 break-words whitespace-pre-line text-slate-700">
              <span className="block text-xs font-semibold text-slate-800">The seller replied</span>
              {review.sellerReply}
            </p>
          ) : null}
        </div>
      ) : (
        <p className="mt-1 text-sm text-slate-700">
          Tell other buyers what {productName} is like. Your review is marked as a verified purchase; one review per license, and you can change it
          later.
        </p>
      )}
      {state.locked ? <p className="mt-3 text-sm text-slate-700">{state.locked}</p> : null}
      {state.canReview ? (
        <details className="group mt-3">
          <summary className={`${buttonSecondary} cursor-pointer py-2 group-open:mb-4 [&::-webkit-details-marker]:hidden`}>
            {review ? "Edit your review" : "Write a review"}
            <span className="sr-only"> of {productName}</span>
          </summary>
          <ReviewForm action={action} licenseId={licenseId} productName={productName} review={review} />
        </details>
      ) : null}
    </section>
  );
}
