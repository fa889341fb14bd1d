import { plural } from "./labels";

const STAR = "M10 1.5l2.6 5.3 5.9.9-4.3 4.1 1 5.8L10 14.9l-5.2 2.7 1-5.8L1.5 7.7l5.9-.9L10 1.5z";

const SIZES = { sm: "size-4", md: "size-5", lg: "size-6" } as const;

/** "4.5 out of 5 stars, 12 reviews": what a screen reader says for a rating. */
export function ratingText(average: number, count?: number): string {
  const stars = `${average.toLocaleString("en-US", { maximumFractionDigits: 1 })} out of 5 stars`;
  return count === undefined ? stars : `${stars}, ${plural(count, "review")}`;
}

/** Five stars filled to `value` (0–5), drawn only: the text next to them says the figure. */
export function Stars({ value, size = "sm" }: { value: number; size?: keyof typeof SIZES }) {
  const pct = Math.max(0, Math.min(100, (value / 5) * 100));
  const row = (className: string) => (
    <span className={`flex ${className}`}>
      {[0, 1, 2, 3, 4].map((i) => (
        <svg key={i} viewBox="0 0 20 20" className={`${SIZES[size]} shrink-0 fill-current`}>
          <path d={STAR} />
        </svg>
      ))}
    </span>
  );
  return (
    <span aria-hidden="true" className="relative inline-flex shrink-0">
      {row("text-slate-300")}
      <span className="absolute inset-y-0 left-0 overflow-hidden" style={{ width: `${pct}%` }}>
        {row("text-amber-500")}
      </span>
    </span>
  );
}

/**
 * A product's rating: stars, the average and the number of reviews, read out as one sentence ("4.5 out of 5 stars,
 * 12 reviews"). Show it only when there are reviews; an unrated product is not a zero-star product.
 */
export function RatingStars({ average, count, size = "sm" }: { average: number; count: number; size?: keyof typeof SIZES }) {
  return (
    <span className="inline-flex items-center gap-1.5" data-testid="rating-stars">
      <Stars value={average} size={size} />
      <span aria-hidden="true" className={`${size === "sm" ? "text-sm" : "text-base"} font-medium text-slate-800`}>
        {average.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 })}
        <span className="ml-1 font-normal text-slate-600">({count.toLocaleString("en-US")})</span>
      </span>
      <span className="sr-only">{ratingText(average, count)}</span>
    </span>
  );
}
