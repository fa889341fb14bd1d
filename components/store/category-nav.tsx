import Link from "next/link";
import { CATEGORY_LABELS, type Category } from "@/lib/marketplace/constants";
import type { CategoryCount } from "@/lib/marketplace/count-categories";
import { focusRing } from "@/components/ui/styles";
import { browseHref, type BrowseQuery } from "./browse-query";

/**
 * Category links with the number of products each lists in this view: the counts follow the search and the developer
 * (lib/marketplace/count-categories.ts). Each link keeps the search text, the developer and the sort order.
 */
export function CategoryNav({ query, counts }: { query: BrowseQuery; counts: CategoryCount[] }) {
  const total = counts.reduce((sum, c) => sum + c.count, 0);
  const items: { key: string; label: string; count: number; category?: Category }[] = [
    { key: "all", label: "All", count: total },
    ...counts.map((c) => ({ key: c.category, label: CATEGORY_LABELS[c.category], count: c.count, category: c.category })),
  ];
  return (
    <nav aria-label="Categories">
      <ul className="flex flex-wrap gap-2">
        {items.map((item) => {
          const current = item.category === query.category;
          return (
            <li key={item.key}>
              <Link
                href={browseHref({ q: query.q, sort: query.sort, developer: query.developer, category: item.category })}
                aria-current={current ? "page" : undefined}
                className={`inline-flex items-center gap-2 rounded-full border px-3.5 py-1.5 text-sm font-medium transition-colors ${focusRing} ${
                  current
                    ? "border-indigo-600 bg-indigo-600 text-white shadow-sm"
                    : "border-slate-200 bg-white text-slate-700 hover:border-slate-300 hover:bg-slate-50 hover:text-slate-900"
                }`}
              >
                {item.label}
                <span
                  className={`rounded-full px-1.5 text-xs tabular-nums ${current ? "bg-indigo-900/40 text-white" : "bg-slate-100 text-slate-600"}`}
                >
                  <span className="sr-only">(</span>
                  {item.count}
                  <span className="sr-only"> products)</span>
                </span>
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
