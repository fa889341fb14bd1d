import Link from "next/link";
import type { ListingProduct } from "@/lib/marketplace/schemas";
import type { MediaView } from "@/lib/media/schemas";
import { mediaSrcSet } from "@/lib/media/variant";
import { paths, productIconPath } from "@/lib/urls";
import { Badge } from "@/components/ui/badge";
import { PlatformBadges } from "./platform-badges";
import { RatingStars } from "./rating-stars";

/**
 * The class of the list item around a card in a listing or a row (`card-slot` in app/globals.css): laid out and
 * painted only near the screen (content-visibility), so a phone spends its first moments on the cards it shows, not on
 * the ten below or beside them (docs/benchmarks.md).
 */
export const CARD_SLOT = "card-slot";

/**
 * How wide a card's cover shows, for the browser's pick from its `srcset` (the narrow copy or the original): a row's
 * card on a phone is 80 % of the screen, two columns from `sm`, three or four from `lg` (22rem at most), 18rem in a
 * four-column listing from `xl`.
 */
const CARD_IMAGE_SIZES = "(min-width: 1280px) 18rem, (min-width: 1024px) 22rem, (min-width: 640px) 45vw, 80vw";

/**
 * A product tile; the whole card is clickable through the name link stretched over it. With a cover (lib/media) the
 * card leads with it, wide and lazy, sized by its width and height so nothing shifts as it loads; the icon stays
 * beside the name. Its classes (`card`, `card-…`) are in app/globals.css: a listing repeats the card, and one short
 * class per element is sent once in the HTML and once in the RSC payload instead of fifteen utilities twice.
 */
export function ProductCard({ product, cover }: { product: ListingProduct; cover?: MediaView | undefined }) {
  return (
    <article className="card">
      {cover ? (
        // eslint-disable-next-line @next/next/no-img-element -- an upload of this site; the name below says what it is
        <img
          src={cover.url}
          srcSet={mediaSrcSet(cover)}
          sizes={CARD_IMAGE_SIZES}
          alt=""
          width={cover.width ?? 1200}
          height={cover.height ?? 630}
          loading="lazy"
          decoding="async"
          className="card-cover"
        />
      ) : null}
      <div className="card-head">
        {/* eslint-disable-next-line @next/next/no-img-element -- an upload or a bundled icon (this site's only), no optimisation needed */}
        <img src={productIconPath(product.icon_url)} alt="" width={56} height={56} loading="lazy" decoding="async" className="card-icon" />
        <div className="min-w-0">
          <h3 className="card-name">
            <Link href={`/products/${encodeURIComponent(product.id)}`} className="card-link">
              {product.name}
            </Link>
          </h3>
          {/* Above the name link stretched over the card, so it opens the developer's page. */}
          {/* Both links at least 24 px tall (WCAG 2.5.8): the name's is a block, the developer's a line of 24 px. */}
          <p className="card-developer">
            <Link href={paths.developer(product.developer_id)}>{product.developer}</Link>
          </p>
        </div>
      </div>
      {product.rating.count > 0 ? (
        <p className="mt-3">
          <RatingStars average={product.rating.average} count={product.rating.count} />
        </p>
      ) : null}
      <p className="card-tagline">{product.tagline}</p>
      <div className="card-foot">
        <div className="card-badges">
          <PlatformBadges platforms={product.platforms} />
          {product.trial_available && product.trial_days > 0 ? <Badge tone="success">Free trial · {product.trial_days} days</Badge> : null}
        </div>
        <div className="card-price">
          <p>
            <span className="sr-only">Price: </span>
            {product.price_display}
          </p>
          {product.latest_version ? (
            <p>
              <span className="sr-only">Latest version </span>v{product.latest_version.version}
            </p>
          ) : null}
        </div>
      </div>
    </article>
  );
}
