import { ALL_SORTS } from "@/lib/marketplace/schemas";
import { buttonSecondary, focusRing } from "@/components/ui/styles";
import type { BrowseQuery } from "./browse-query";
import { SORT_LABELS } from "./labels";

/** Sorting without JavaScript: a GET form with the other filters as hidden fields and a submit button. */
export function SortForm({ query }: { query: BrowseQuery }) {
  return (
    <form method="get" action="/" className="flex items-center gap-2">
      {query.q ? <input type="hidden" name="q" value={query.q} /> : null}
      {query.category ? <input type="hidden" name="category" value={query.category} /> : null}
      {query.developer ? <input type="hidden" name="developer" value={query.developer} /> : null}
      <label htmlFor="sort" className="text-sm font-medium whitespace-nowrap text-slate-700">
        Sort by
      </label>
      <select
        id="sort"
        name="sort"
        defaultValue={query.sort}
        className={`min-w-0 rounded-lg border border-slate-300 bg-white py-2 pr-8 pl-3 text-sm text-slate-900 shadow-sm ${focusRing}`}
      >
        {ALL_SORTS.map((s) => (
          <option key={s} value={s}>
            {SORT_LABELS[s]}
          </option>
        ))}
      </select>
      <button type="submit" className={`${buttonSecondary} py-2`}>
        Sort
      </button>
    </form>
  );
}
