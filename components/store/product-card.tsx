import Link from "next/link";
import type { ListingProduct } from "@/lib/marketplace/schemas";
import { paths, productIconPath } from "@/lib/urls";
import { Badge } from "@/components/ui/badge";
import { focusRing } from "@/components/ui/styles";
import { PlatformBadges } from "./platform-badges";
import { RatingStars } from "./rating-stars";

/** A product tile; the whole card is clickable through the name link stretched over it. */
export function ProductCard({ product }: { product: ListingProduct }) {
  return (
    <article className="group relative flex h-full flex-col rounded-2xl border border-slate-200 bg-white p-5 shadow-sm transition motion-safe:hover:-translate-y-0.5 hover:border-slate-300 hover:shadow-md has-[a:focus-visible]:ring-2 has-[a:focus-visible]:ring-indigo-600 has-[a:focus-visible]:ring-offset-2">
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
              className="rounded-sm after:absolute after:inset-0 after:rounded-2xl after:content-[''] focus-visible:outline-none"
            >
              {product.name}
            </Link>
          </h3>
          {/* Above the name link stretched over the card, so it opens the developer's page. */}
          <p className="relative z-10 mt-0.5 truncate text-sm text-slate-600">
            <Link href={paths.developer(product.developer_id)} className={`rounded-sm hover:text-slate-900 hover:underline ${focusRing}`}>
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
