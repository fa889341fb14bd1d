import { ALL_SORTS } from "@/lib/marketplace/schemas";
import { buttonSecondary, focusRing } from "@/components/ui/styles";
import type { BrowseQuery } from "./browse-query";
import { SORT_LABELS } from "./labels";
import { SortSelect } from "./sort-select";

/**
 * Sorting as a GET form with the other filters as hidden fields. With JavaScript a change applies at once (SortSelect);
 * without it, the Sort button submits. Relevance is offered only where there is a search to rank by.
 */
export function SortForm({ query }: { query: BrowseQuery }) {
  const sorts = ALL_SORTS.filter((s) => s !== "relevance" || query.q);
  return (
    <form method="get" action="/" className="flex items-center gap-2">
      {query.q ? <input type="hidden" name="q" value={query.q} /> : null}
      {query.category ? <input type="hidden" name="category" value={query.category} /> : null}
      {query.developer ? <input type="hidden" name="developer" value={query.developer} /> : null}
      <label htmlFor="sort" className="text-sm font-medium whitespace-nowrap text-slate-700">
        Sort by
      </label>
      <SortSelect
        defaultValue={query.sort}
        options={sorts.map((s) => ({ value: s, label: SORT_LABELS[s] }))}
        className={`min-w-0 rounded-lg border border-slate-300 bg-white py-2 pr-8 pl-3 text-sm text-slate-900 shadow-sm ${focusRing}`}
      />
      <noscript>
        <button type="submit" className={`${buttonSecondary} py-2`}>
          Sort
        </button>
      </noscript>
    </form>
  );
}
