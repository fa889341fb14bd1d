import { defaultSort, SEARCH_MAX_LENGTH } from "@/lib/marketplace/schemas";
import { buttonPrimary, inputBase } from "@/components/ui/styles";
import { DEFAULT_SORT, type BrowseQuery } from "./browse-query";

// Orders a new search does not carry over: each is the default of a view with or without a search.
const DEFAULT_SORTS = new Set([DEFAULT_SORT, defaultSort("search")]);

/** Plain GET form: works without JavaScript. Keeps the current category and sort. */
export function SearchForm({ query }: { query: BrowseQuery }) {
  return (
    <form method="get" action="/" role="search" className="flex w-full max-w-2xl flex-col gap-2 sm:flex-row">
      <div className="relative flex-1">
        <svg aria-hidden="true" viewBox="0 0 20 20" className="pointer-events-none absolute top-1/2 left-3 size-5 -translate-y-1/2 fill-slate-500">
          <path
            fillRule="evenodd"
            d="M9 3.5a5.5 5.5 0 1 0 3.4 9.83l3.13 3.14a.75.75 0 1 0 1.06-1.06l-3.13-3.14A5.5 5.5 0 0 0 9 3.5ZM5 9a4 4 0 1 1 8 0 4 4 0 0 1-8 0Z"
            clipRule="evenodd"
          />
        </svg>
        <input
          type="search"
          name="q"
          aria-label="Search software"
          placeholder="Search plugins, apps, tools…"
          defaultValue={query.q}
          maxLength={SEARCH_MAX_LENGTH}
          autoComplete="off"
          className={`${inputBase} py-3 pl-10 text-base sm:text-sm`}
        />
      </div>
      {query.category ? <input type="hidden" name="category" value={query.category} /> : null}
      {query.developer ? <input type="hidden" name="developer" value={query.developer} /> : null}
      {DEFAULT_SORTS.has(query.sort) ? null : <input type="hidden" name="sort" value={query.sort} />}
      <button type="submit" className={`${buttonPrimary} py-3`}>
        Search
      </button>
    </form>
  );
}
