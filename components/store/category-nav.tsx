import Link from "next/link";
import { CATEGORY_LABELS, type Category } from "@/lib/marketplace/constants";
import type { CategoryCount } from "@/lib/marketplace/count-categories";
import { browseHref, type BrowseQuery } from "./browse-query";

/**
 * Category links with the number of products each lists in this view: the counts follow the search and the developer
 * (lib/marketplace/count-categories.ts). Each link keeps the search text, the developer and the sort order. The chip's
 * look, and the current one's (`aria-current`), is the `chip` class in app/globals.css.
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
                className="chip"
              >
                {item.label}
                <span>
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
