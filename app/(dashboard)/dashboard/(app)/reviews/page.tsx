import type { Metadata } from "next";
import Link from "next/link";
import { listSellerReviews } from "@/lib/reviews/list-reviews";
import type { SellerReview } from "@/lib/reviews/schemas";
import { paths } from "@/lib/urls";
import { formatDay, param } from "@/components/dashboard/format";
import { PageHeader } from "@/components/dashboard/page-header";
import { ReviewReplyForm } from "@/components/dashboard/review-reply-form";
import { plural } from "@/components/store/labels";
import { Stars, ratingText } from "@/components/store/rating-stars";
import { Badge } from "@/components/ui/badge";
import { card, focusRing, textLink } from "@/components/ui/styles";
import { pageSeller } from "../../../_lib/seller";
import { replyAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Reviews", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// Only known codes are shown, so a crafted link cannot put words on the page.
const DONE: Record<string, string> = { replied: "Reply posted. It shows under the review on your product page." };
const PAGE_SIZE = 20;

export default async function ReviewsPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const query = await searchParams;
  const awaiting = param(query.show) === "unreplied";
  const pageParam = param(query.page);
  const page = /^[1-9]\d{0,3}$/.test(pageParam) ? Number(pageParam) : 1;
  const data = await listSellerReviews(developer.id, { page, limit: PAGE_SIZE, ...(awaiting ? { unreplied: true } : {}) });
  const done = Object.hasOwn(DONE, param(query.done)) ? DONE[param(query.done)] : undefined;
  const href = (p: number, unreplied = awaiting) =>
    `/dashboard/reviews?${new URLSearchParams({ ...(unreplied ? { show: "unreplied" } : {}), ...(p > 1 ? { page: String(p) } : {}) }).toString()}`;

  return (
    <>
      {done ? (
        <div role="status" id="reviews-notice" className="mb-6 rounded-lg border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900">
          {done}
        </div>
      ) : null}
      <PageHeader
        title="Reviews"
        description="What buyers wrote about your products. Every review comes from a bought license. You can answer each one publicly, once; the marketplace operator may hide reviews that break the rules."
      />
      <nav aria-label="Which reviews" className="mt-6 flex gap-2 text-sm font-medium">
        {[
          { label: "All reviews", on: !awaiting, to: href(1, false) },
          { label: "Awaiting your reply", on: awaiting, to: href(1, true) },
        ].map((t) => (
          <Link
            key={t.label}
            href={t.to}
            aria-current={t.on ? "page" : undefined}
            className={`rounded-full px-3 py-1.5 ${focusRing} ${t.on ? "bg-indigo-600 text-white" : "border border-slate-300 bg-white text-slate-700 hover:bg-slate-50"}`}
          >
            {t.label}
          </Link>
        ))}
      </nav>
      <p className="mt-4 text-sm text-slate-600">
        {plural(data.total, awaiting ? "review awaiting a reply" : "review", awaiting ? "reviews awaiting a reply" : "reviews")}, newest first.
      </p>
      {data.reviews.length === 0 ? (
        <div className="mt-4 rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
          <p className="text-base font-medium text-slate-900">{awaiting ? "Nothing awaits a reply." : "No reviews yet."}</p>
          <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">Buyers can rate a product from My licenses once they have bought it.</p>
        </div>
      ) : (
        <ol className="mt-4 space-y-4">
          {data.reviews.map((r) => (
            <li key={r.id}>
              <SellerReviewCard review={r} />
            </li>
          ))}
        </ol>
      )}
      {data.pages > 1 ? (
        <nav aria-label="Review pages" className="mt-6 flex items-center justify-between text-sm">
          <span className="text-slate-600">
            Page {data.page} of {data.pages}
          </span>
          <span className="flex gap-4">
            {data.page > 1 ? (
              <Link href={href(data.page - 1)} className={textLink}>
                Newer
              </Link>
            ) : null}
            {data.next_page !== null ? (
              <Link href={href(data.next_page)} className={textLink}>
                Older
              </Link>
            ) : null}
          </span>
        </nav>
      ) : null}
    </>
  );
}

function SellerReviewCard({ review: r }: { review: SellerReview }) {
  return (
    <article id={`review-${r.id}`} aria-labelledby={`review-${r.id}-title`} data-testid="seller-review" className={`${card} scroll-mt-6 p-5`}>
      <p className="text-sm text-slate-600">
        <Link href={paths.product(r.product.id)} className={textLink}>
          {r.product.name}
        </Link>
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1.5">
        <Stars value={r.rating} />
        <span className="sr-only">{ratingText(r.rating)}</span>
        <h2 id={`review-${r.id}-title`} className="text-base font-semibold break-words text-slate-900">
          {r.title || `Rated ${plural(r.rating, "star")}`}
        </h2>
        {r.hidden ? <Badge>Hidden by the operator</Badge> : null}
      </div>
      <p className="mt-1 text-xs text-slate-600">
        <span className="font-medium break-all text-slate-800">{r.author_name}</span> · verified purchase ·{" "}
        <time dateTime={r.created_at}>{formatDay(r.created_at)}</time>
        {r.edited_at ? ` · edited ${formatDay(r.edited_at)}` : ""}
      </p>
      {r.body ? <p className="mt-3 text-sm leading-6 break-words whitespace-pre-line text-slate-700">{r.body}</p> : null}
      {r.hidden && r.hidden_reason ? <p className="mt-3 text-sm text-amber-900">Why it is hidden: {r.hidden_reason}</p> : null}
      <div className="mt-4 border-t border-slate-200 pt-4">
        {r.seller_reply ? (
          <div data-testid="seller-reply">
            <p className="text-xs font-semibold text-slate-800">
              Your reply · <time dateTime={r.seller_reply.replied_at}>{formatDay(r.seller_reply.replied_at)}</time>
            </p>
            <p className="mt-1 text-sm leading-6 break-words whitespace-pre-line text-slate-700">{r.seller_reply.body}</p>
          </div>
        ) : r.hidden ? (
          <p className="text-sm text-slate-600">A hidden review takes no reply.</p>
        ) : (
          <ReviewReplyForm action={replyAction} reviewId={r.id} />
        )}
      </div>
    </article>
  );
}
