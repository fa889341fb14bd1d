import Link from "next/link";
import { focusRing } from "@/components/ui/styles";
import { browseHref, type BrowseQuery } from "./browse-query";

const pill = "inline-flex items-center gap-1 rounded-lg border px-3.5 py-2 text-sm font-medium";

/** Previous and next page links; `hrefFor` makes them on a page other than the home page's listing (a developer's page). */
export function Pagination({
  query,
  page,
  pages,
  hrefFor = (n) => browseHref({ ...query, page: n }),
}: {
  query: BrowseQuery;
  page: number;
  pages: number;
  hrefFor?: (page: number) => string;
}) {
  if (pages <= 1) return null;
  const prev = page > 1 ? hrefFor(page - 1) : undefined;
  const next = page < pages ? hrefFor(page + 1) : undefined;
  const link = `${pill} border-slate-300 bg-white text-slate-800 shadow-sm hover:bg-slate-50 ${focusRing}`;
  const disabled = `${pill} cursor-not-allowed border-slate-200 bg-slate-50 text-slate-500`;
  return (
    <nav aria-label="Pagination" className="mt-10 flex items-center justify-between gap-4">
      {prev ? (
        <Link href={prev} rel="prev" className={link}>
          <span aria-hidden="true">←</span> Previous
        </Link>
      ) : (
        <span className={disabled} aria-disabled="true">
          <span aria-hidden="true">←</span> Previous
        </span>
      )}
      <p className="text-sm text-slate-600">
        Page <span className="font-semibold text-slate-900">{page}</span> of <span className="font-semibold text-slate-900">{pages}</span>
      </p>
      {next ? (
        <Link href={next} rel="next" className={link}>
          Next <span aria-hidden="true">→</span>
        </Link>
      ) : (
        <span className={disabled} aria-disabled="true">
          Next <span aria-hidden="true">→</span>
        </span>
      )}
    </nav>
  );
}
