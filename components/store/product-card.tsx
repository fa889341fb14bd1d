import Link from "next/link";
import type { ListingProduct } from "@/lib/marketplace/schemas";
import type { MediaView } from "@/lib/media/schemas";
import { paths, productIconPath } from "@/lib/urls";
import { Badge } from "@/components/ui/badge";
import { focusRing } from "@/components/ui/styles";
import { PlatformBadges } from "./platform-badges";
import { RatingStars } from "./rating-stars";

/**
 * The classes of the list item around a card in a listing or a row: laid out and painted only near the screen
 * (content-visibility), so a phone spends its first moments on the cards it shows, not on the ten below or beside
 * them (docs/benchmarks.md). Until then it holds a card's usual height; its width always comes from the grid or the
 * row (`none`: no width of its own, which would otherwise widen a one-column grid on a phone).
 */
export const CARD_SLOT = "[content-visibility:auto] [contain-intrinsic-size:auto_none_auto_26rem]";

/**
 * A product tile; the whole card is clickable through the name link stretched over it. With a cover (lib/media) the
 * card leads with it, wide and lazy, sized by its width and height so nothing shifts as it loads; the icon stays
 * beside the name.
 */
export function ProductCard({ product, cover }: { product: ListingProduct; cover?: MediaView | undefined }) {
  return (
    <article className="group relative flex h-full flex-col rounded-2xl border border-slate-200 bg-white p-5 shadow-sm transition motion-safe:hover:-translate-y-0.5 hover:border-slate-300 hover:shadow-md has-[a:focus-visible]:ring-2 has-[a:focus-visible]:ring-indigo-600 has-[a:focus-visible]:ring-offset-2">
      {cover ? (
        // eslint-disable-next-line @next/next/no-img-element -- an upload of this site; the name below says what it is
        <img
          src={cover.url}
          alt=""
          width={cover.width ?? 1200}
          height={cover.height ?? 630}
          loading="lazy"
          decoding="async"
          className="-mx-5 -mt-5 mb-4 aspect-[1200/630] w-[calc(100%+2.5rem)] max-w-none rounded-t-2xl bg-slate-100 object-cover"
        />
      ) : null}
      <div className="flex items-start gap-4">
        {/* eslint-disable-next-line @next/next/no-img-element -- an upload or a bundled icon (this site's only), no optimisation needed */}
        <img
          src={productIconPath(product.icon_url)}
          alt=""
          width={56}
          height={56}
          loading="lazy"
          decoding="async"
          className="size-14 shrink-0 rounded-xl"
        />
        <div className="min-w-0">
          <h3 className="text-base leading-snug font-semibold text-slate-900">
            <Link
              href={`/products/${encodeURIComponent(product.id)}`}
              className="block min-h-6 rounded-sm after:absolute after:inset-0 after:rounded-2xl after:content-[''] focus-visible:outline-none"
            >
              {product.name}
            </Link>
          </h3>
          {/* Above the name link stretched over the card, so it opens the developer's page. */}
          {/* Both links at least 24 px tall (WCAG 2.5.8): the name's is a block, the developer's a line of 24 px. */}
          <p className="relative z-10 mt-0.5 text-sm text-slate-600">
            <Link
              href={paths.developer(product.developer_id)}
              className={`inline-block max-w-full truncate rounded-sm align-top leading-6 hover:text-slate-900 hover:underline ${focusRing}`}
            >
              {product.developer}
            </Link>
          </p>
        </div>
      </div>
      {product.rating.count > 0 ? (
        <p className="mt-3">
          <RatingStars average={product.rating.average} count={product.rating.count} />
        </p>
      ) : null}
      <p className="mt-4 line-clamp-3 text-sm leading-6 text-slate-700">{product.tagline}</p>
      <div className="mt-auto space-y-3 pt-5">
        <div className="flex flex-wrap items-center gap-1.5">
          <PlatformBadges platforms={product.platforms} />
          {product.trial_available && product.trial_days > 0 ? <Badge tone="success">Free trial · {product.trial_days} days</Badge> : null}
        </div>
        <div className="flex items-baseline justify-between gap-3">
          <p className="text-lg font-semibold text-slate-900">
            <span className="sr-only">Price: </span>
            {product.price_display}
          </p>
          {product.latest_version ? (
            <p className="truncate text-xs text-slate-600">
              <span className="sr-only">Latest version </span>v{product.latest_version.version}
            </p>
          ) : null}
        </div>
      </div>
    </article>
  );
}
