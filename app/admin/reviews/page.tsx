import type { Metadata } from "next";
import { adminMetadata, requireAdmin } from "@/lib/admin/session";
import { blankControlCharacters } from "@/lib/http/input";
import { listAdminReviews } from "@/lib/reviews/list-reviews";
import { param } from "@/components/dashboard/format";
import { PageHeader } from "@/components/dashboard/page-header";
import { td } from "@/components/dashboard/table";
import { plural } from "@/components/store/labels";
import { Stars, ratingText } from "@/components/store/rating-stars";
import { formatDay } from "@/lib/format";
import { textLink } from "@/components/ui/styles";
import { AdminMessages, AdminTable, Badge, FilterSelect, MeasureForms, SearchForm, type SearchParams } from "../_ui";
import { hideReviewAction, unhideReviewAction } from "./actions";
import { reviewError, reviewNotice } from "./messages";

export const dynamic = "force-dynamic";
export const generateMetadata = (): Promise<Metadata> => adminMetadata("Reviews");

const STATUSES = [
  ["", "Any"],
  ["visible", "Visible"],
  ["hidden", "Hidden"],
] as const;

export default async function AdminReviewsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requireAdmin();
  const query = await searchParams;
  const q = blankControlCharacters(param(query.q).slice(0, 200));
  const status = param(query.status);
  const reviews = await listAdminReviews({
    ...(q.trim() ? { q } : {}),
    ...(status === "visible" || status === "hidden" ? { status } : {}),
    limit: 100,
  });
  return (
    <>
      <AdminMessages notice={reviewNotice(param(query.notice))} error={reviewError(param(query.error))} />
      <PageHeader
        title="Reviews"
        description="Verified-purchase reviews of every product. Hiding one takes it off the product page and out of its rating, with a reason its seller sees; showing it again puts it back."
      />
      <div className="mt-6">
        <SearchForm label="Search reviews" q={q} placeholder="Product, words of the review, author or id">
          <FilterSelect name="status" label="Status" value={status} options={STATUSES} />
        </SearchForm>
      </div>
      <p className="mt-6 text-sm text-slate-600">{plural(reviews.length, "review")}, newest first.</p>
      <div className="mt-3">
        <AdminTable
          label="Reviews"
          caption="Reviews of every product, newest first"
          minWidth="sm:min-w-[56rem]"
          rows={reviews.length}
          empty="No review matches."
          columns={["Review", "Product", "Status", { name: "Actions", hidden: true }]}
        >
          {reviews.map((r) => (
            <tr key={r.id} className="align-top" data-testid="admin-review" data-review-id={r.id}>
              <td data-label="Review" className={`${td} max-w-md`}>
                <p className="flex items-center gap-2">
                  <Stars value={r.rating} />
                  <span className="sr-only">{ratingText(r.rating)}</span>
                  <span className="font-medium break-words text-slate-900">{r.title || "(no title)"}</span>
                </p>
                {r.body ? <p className="mt-1 line-clamp-4 text-sm break-words whitespace-pre-line text-slate-700">{r.body}</p> : null}
                <p className="mt-1 text-xs text-slate-600">
                  {r.author_name} · {formatDay(r.created_at)} · license <span className="font-mono">{r.license_id}</span>
                </p>
              </td>
              <td data-label="Product" className={td}>
                <a href={`/products/${encodeURIComponent(r.product.id)}`} className={textLink}>
                  {r.product.name}
                </a>
                <p className="text-xs text-slate-600">{r.seller.name}</p>
              </td>
              <td data-label="Status" className={td}>
                {r.hidden ? <Badge tone="amber">Hidden</Badge> : <Badge tone="green">Visible</Badge>}
                {r.hidden ? (
                  <p className="mt-1 max-w-xs text-xs text-slate-600">
                    {r.hidden_reason}
                    {r.hidden_by ? ` (${r.hidden_by}${r.hidden_at ? `, ${formatDay(r.hidden_at)}` : ""})` : ""}
                  </p>
                ) : null}
              </td>
              <td className={td}>
                <MeasureForms
                  id={r.id}
                  inForce={r.hidden}
                  take={{ action: hideReviewAction, summary: "Hide", submit: "Hide review" }}
                  undo={{ action: unhideReviewAction, summary: "Show", submit: "Show review" }}
                />
              </td>
            </tr>
          ))}
        </AdminTable>
      </div>
    </>
  );
}
