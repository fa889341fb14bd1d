import type { ProductDetails } from "@/lib/marketplace/schemas";
import { minorToDecimal } from "@/lib/pricing";
import { listProductReviews } from "@/lib/reviews/list-reviews";
import { absoluteUrl } from "@/lib/urls";

/** How many of the newest reviews the markup carries beside the aggregate. */
const JSON_LD_REVIEWS = 5;

/**
 * schema.org Product markup for search engines and agents; with verified-purchase reviews, their AggregateRating and
 * the newest few reviews (none while there are none: an unrated product has no rating of 0).
 */
export async function ProductJsonLd({
  product,
  available,
  media = [],
}: {
  product: ProductDetails;
  available: boolean;
  /** Uploaded cover and screenshots' paths (lib/media), cover first: shown before the icon and linked screenshots. */
  media?: readonly string[];
}) {
  const reviews = product.rating.count > 0 ? (await listProductReviews(product.id, { sort: "newest", page: 1, limit: JSON_LD_REVIEWS })).reviews : [];
  const data = {
    "@context": "https://schema.org",
    "@type": "Product",
    name: product.name,
    description: product.description || product.tagline,
    image: [...media.map(absoluteUrl), product.icon_url, ...product.images],
    sku: product.plugin_id,
    category: product.category,
    url: product.product_page,
    brand: { "@type": "Brand", name: product.developer },
    manufacturer: {
      "@type": "Organization",
      name: product.developer,
      ...(product.developer_info.website ? { url: product.developer_info.website } : {}),
    },
    offers: {
      "@type": "Offer",
      price: minorToDecimal(product.price_cents, product.currency),
      priceCurrency: product.currency.toUpperCase(),
      // Not for sale while this deployment has no way to take payment (see lib/payments/provider.ts).
      availability: available ? "https://schema.org/InStock" : "https://schema.org/OutOfStock",
      url: product.product_page,
    },
    ...(product.rating.count > 0
      ? {
          aggregateRating: {
            "@type": "AggregateRating",
            ratingValue: product.rating.average,
            reviewCount: product.rating.count,
            bestRating: 5,
            worstRating: 1,
          },
          // Only reviews whose purchase stands, as the aggregate counts them.
          review: reviews
            .filter((r) => r.verified_purchase)
            .map((r) => ({
              "@type": "Review",
              ...(r.title ? { name: r.title } : {}),
              ...(r.body ? { reviewBody: r.body } : {}),
              datePublished: r.created_at.slice(0, 10),
              author: { "@type": "Person", name: r.author_name },
              reviewRating: { "@type": "Rating", ratingValue: r.rating, bestRating: 5, worstRating: 1 },
            })),
        }
      : {}),
  };
  // Escape "<" so no string in the data can close the script element.
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  return <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: json }} />;
}
