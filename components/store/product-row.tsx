import Link from "next/link";
import type { ListingProduct } from "@/lib/marketplace/schemas";
import type { MediaView } from "@/lib/media/schemas";
import { textLink } from "@/components/ui/styles";
import { CARD_SLOT, ProductCard } from "./product-card";

/**
 * A titled row of product cards on the home page: on phones one card and the edge of the next (the visible sign that
 * the row scrolls sideways, snapping card by card); from the small breakpoint a grid. Not rendered when empty.
 */
export function ProductRow({
  id,
  title,
  description,
  products,
  seeAll,
  covers,
}: {
  /** Makes the heading's id unique on the page. */
  id: string;
  title: string;
  description?: string;
  products: ListingProduct[];
  /** Where the whole sorted listing is. */
  seeAll?: { href: string; label: string };
  /** The products' covers (lib/media coversOf), by product id. */
  covers?: ReadonlyMap<string, MediaView>;
}) {
  if (products.length === 0) return null;
  const headingId = `${id}-heading`;
  return (
    // Laid out and painted only near the screen (content-visibility); the padding, offset by the margin, keeps the
    // scroller's full width and the cards' focus rings inside the painted box.
    <section
      aria-labelledby={headingId}
      data-testid={`row-${id}`}
      className="-mx-4 px-4 [content-visibility:auto] [contain-intrinsic-size:auto_26rem]"
    >
      <div className="flex items-end justify-between gap-4">
        <div className="min-w-0">
          <h2 id={headingId} className="text-lg font-semibold text-slate-900">
            {title}
          </h2>
          {description ? <p className="mt-0.5 text-sm text-slate-600">{description}</p> : null}
        </div>
        {seeAll ? (
          <Link href={seeAll.href} className={`${textLink} shrink-0 text-sm`}>
            See all<span className="sr-only"> {seeAll.label}</span>
            <span aria-hidden="true"> →</span>
          </Link>
        ) : null}
      </div>
      {/* Padding inside the scroller keeps the cards' focus rings and shadows from being clipped. */}
      <ul className="-mx-4 mt-3 flex snap-x snap-mandatory scroll-px-4 gap-4 overflow-x-auto px-4 pt-1 pb-4 sm:mx-0 sm:grid sm:grid-cols-2 sm:overflow-visible sm:px-0 sm:pb-1 lg:grid-cols-4">
        {products.map((p) => (
          <li key={p.id} className={`w-[80%] max-w-xs shrink-0 snap-start sm:w-auto sm:max-w-none ${CARD_SLOT}`}>
            <ProductCard product={p} cover={covers?.get(p.id)} />
          </li>
        ))}
      </ul>
    </section>
  );
}
