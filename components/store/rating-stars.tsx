import { plural } from "./labels";

const SIZES = { sm: "h-4 w-20", md: "h-5 w-25", lg: "h-6 w-30" } as const;

/** "4.5 out of 5 stars, 12 reviews": what a screen reader says for a rating. */
export function ratingText(average: number, count?: number): string {
  const stars = `${average.toLocaleString("en-US", { maximumFractionDigits: 1 })} out of 5 stars`;
  return count === undefined ? stars : `${stars}, ${plural(count, "review")}`;
}

/**
 * Five stars filled to `value` (0–5), drawn only: the text next to them says the figure. One element (the `stars`
 * class in app/globals.css: a star mask repeated five times over a two-colour fill), not five drawings twice over: a
 * listing shows many, and each element is work for a phone before the page responds (docs/benchmarks.md).
 */
export function Stars({ value, size = "sm" }: { value: number; size?: keyof typeof SIZES }) {
  const pct = Math.max(0, Math.min(100, (value / 5) * 100));
  return <span aria-hidden="true" className={`stars ${SIZES[size]}`} style={{ ["--stars-fill" as string]: `${pct}%` }} />;
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
