import Link from "next/link";
import { listProductReviews } from "@/lib/reviews/list-reviews";
import { REVIEW_PAGE, type PublicReview, type RatingSummary } from "@/lib/reviews/schemas";
import { formatDay } from "@/lib/format";
import { card, textLink } from "@/components/ui/styles";
import { plural } from "./labels";
import { Stars, ratingText } from "./rating-stars";

/** The query parameter that pages the reviews on a product page (?reviews=2#reviews). */
const REVIEWS_PAGE_PARAM = "reviews";

/** The page of reviews a product page's query asks for: a small whole number, else the first. */
export function reviewsPageOf(query: Record<string, string | string[] | undefined>): number {
  const raw = query[REVIEWS_PAGE_PARAM];
  const v = Array.isArray(raw) ? raw[0] : raw;
  return v && /^[1-9]\d{0,3}$/.test(v) ? Number(v) : 1;
}

/**
 * "Ratings and reviews" on a product page: the average, the count and the 5→1 distribution, then the newest reviews
 * (paged through the query string, so it works without JavaScript), each marked as a verified purchase, with the
 * seller's reply. Every review comes from a bought license; none shows anything about the buyer but the name they chose.
 */
export async function ProductReviews({
  productId,
  productName,
  developer,
  page,
}: {
  productId: string;
  productName: string;
  developer: string;
  page: number;
}) {
  const first = await listProductReviews(productId, { sort: "newest", page, limit: REVIEW_PAGE.default });
  // A page past the end (an old link) shows the last one.
  const data = page > first.pages ? await listProductReviews(productId, { sort: "newest", page: first.pages, limit: REVIEW_PAGE.default }) : first;
  const { rating } = data;
  return (
    <section id="reviews" aria-labelledby="reviews-heading" className="scroll-mt-6">
      <h2 id="reviews-heading" className="text-xl font-semibold text-slate-900">
        Ratings and reviews
      </h2>
      {rating.count === 0 ? (
        <div className={`${card} mt-4 p-5`} data-testid="reviews-empty">
          <p className="text-base font-medium text-slate-900">No reviews yet</p>
          <p className="mt-1 text-sm leading-6 text-pretty text-slate-700">
            Reviews here come only from people who bought {productName}. After buying, you can rate it from{" "}
            <Link href="/licenses" className={textLink}>
              My licenses
            </Link>
            .
          </p>
        </div>
      ) : (
        <>
          <div className={`${card} mt-4 grid gap-6 p-5 sm:grid-cols-[auto_minmax(0,1fr)] sm:items-center`}>
            <div>
              <p className="text-4xl font-semibold text-slate-900" aria-hidden="true">
                {rating.average.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 })}
              </p>
              <p className="mt-1" data-testid="reviews-average">
                <Stars value={rating.average} size="md" />
                <span className="sr-only">{ratingText(rating.average, rating.count)}</span>
              </p>
              <p className="mt-1 text-sm text-slate-600" aria-hidden="true">
                From {plural(rating.count, "verified purchase")}
              </p>
            </div>
            <Distribution distribution={rating.distribution} count={rating.count} />
          </div>
          <ol className="mt-6 space-y-4" aria-label={`Reviews of ${productName}, newest first`}>
            {data.reviews.map((r) => (
              <li key={r.id}>
                <Review review={r} developer={developer} />
              </li>
            ))}
          </ol>
          {data.pages > 1 ? (
            <nav aria-label="Review pages" className="mt-5 flex flex-wrap items-center justify-between gap-3 text-sm">
              <span className="text-slate-600">
                Page {data.page} of {data.pages}
              </span>
              <span className="flex gap-4">
                {data.page > 1 ? (
                  <Link href={`?${REVIEWS_PAGE_PARAM}=${String(data.page - 1)}#reviews`} className={textLink} rel="prev">
                    Newer reviews
                  </Link>
                ) : null}
                {data.next_page !== null ? (
                  <Link href={`?${REVIEWS_PAGE_PARAM}=${String(data.next_page)}#reviews`} className={textLink} rel="next">
                    Older reviews
                  </Link>
                ) : null}
              </span>
            </nav>
          ) : null}
        </>
      )}
    </section>
  );
}

function Distribution({ distribution, count }: { distribution: RatingSummary["distribution"]; count: number }) {
  return (
    <ul className="space-y-1.5" aria-label="How many reviews gave each number of stars">
      {(["5", "4", "3", "2", "1"] as const).map((stars) => {
        const n = distribution[stars];
        const pct = count ? Math.round((n / count) * 100) : 0;
        return (
          <li key={stars} className="grid grid-cols-[4.5rem_minmax(0,1fr)_2.5rem] items-center gap-3 text-sm">
            <span className="text-slate-700">{plural(Number(stars), "star")}</span>
            <span aria-hidden="true" className="h-2 overflow-hidden rounded-full bg-slate-200">
              <span className="block h-full rounded-full bg-amber-500" style={{ width: `${pct}%` }} />
            </span>
            <span className="text-right text-slate-700 tabular-nums">
              {n.toLocaleString("en-US")}
              <span className="sr-only"> {n === 1 ? "review" : "reviews"}</span>
            </span>
          </li>
        );
      })}
    </ul>
  );
}

function Review({ review: r, developer }: { review: PublicReview; developer: string }) {
  return (
    <article aria-labelledby={`review-${r.id}`} data-testid="review" className={`${card} p-5`}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5">
        <Stars value={r.rating} />
        <span className="sr-only">{ratingText(r.rating)}</span>
        <h3 id={`review-${r.id}`} className="text-base font-semibold break-words text-slate-900">
          {r.title || <span className="font-normal text-slate-700">Rated {plural(r.rating, "star")}</span>}
        </h3>
      </div>
      <p className="mt-1.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-600">
        <span className="font-medium break-all text-slate-800">{r.author_name}</span>
        <span aria-hidden="true">·</span>
        {r.verified_purchase ? (
          <span className="inline-flex items-center gap-1 font-medium text-emerald-800" data-testid="verified-purchase">
            <svg viewBox="0 0 20 20" aria-hidden="true" className="size-3.5 fill-current">
              <path
                fillRule="evenodd"
                d="M10 18a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm3.86-9.86a.75.75 0 0 0-1.22-.88l-3.48 4.83-1.88-1.88a.75.75 0 1 0-1.06 1.06l2.5 2.5a.75.75 0 0 0 1.14-.09l4-5.54Z"
                clipRule="evenodd"
              />
            </svg>
            Verified purchase
          </span>
        ) : (
          <span data-testid="purchase-refunded">Purchase refunded</span>
        )}
        <span aria-hidden="true">·</span>
        <time dateTime={r.created_at}>{formatDay(r.created_at)}</time>
        {r.edited_at ? (
          <span>
            (edited <time dateTime={r.edited_at}>{formatDay(r.edited_at)}</time>)
          </span>
        ) : null}
      </p>
      {r.body ? <p className="mt-3 text-sm leading-6 break-words whitespace-pre-line text-slate-700">{r.body}</p> : null}
      {r.seller_reply ? (
        <div className="mt-4 rounded-xl border-l-4 border-indigo-300 bg-slate-50 px-4 py-3" data-testid="seller-reply">
          <p className="text-xs font-semibold text-slate-800">
            Reply from {developer}
            <span className="font-normal text-slate-600">
              {" · "}
              <time dateTime={r.seller_reply.replied_at}>{formatDay(r.seller_reply.replied_at)}</time>
            </span>
          </p>
          <p className="mt-1 text-sm leading-6 break-words whitespace-pre-line text-slate-700">{r.seller_reply.body}</p>
        </div>
      ) : null}
    </article>
  );
}
